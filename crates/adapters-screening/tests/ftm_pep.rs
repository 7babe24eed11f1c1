//! FollowTheMoney PEP data, and what the sanctions reader does with it: the synthetic PEP
//! sample (invented people in OpenSanctions' export form) read as a PEP list, refused as a
//! sanctions list, and an export mixing both kinds split between them.

mod common;

use adapters_screening::{read_path, ListFormat, ReadError};
use common::{day, entry, testdata, TempFile};
use domain::screening::sanctions::{
    Exposure, ExposureRole, HeldPosition, ListSource, ListedDate, ParsedList, PepRelation,
    RelationKind, SetAside, TermStatus,
};
use std::sync::OnceLock;

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    common::read_once(
        &LIST,
        &testdata("pep/synthetic-peps.ftm.json"),
        ListFormat::FtmPep,
    )
}

fn held(
    title: &str,
    country: &str,
    start: &str,
    end: Option<&str>,
    status: TermStatus,
) -> HeldPosition {
    HeldPosition {
        title: title.into(),
        country: Some(country.into()),
        start: ListedDate::from_wire(start),
        end: end.and_then(ListedDate::from_wire),
        status,
    }
}

fn minister() -> HeldPosition {
    held(
        "Minister of Test Affairs",
        "SE",
        "2022-10-18",
        None,
        TermStatus::Current,
    )
}

fn astrid_mp() -> HeldPosition {
    held(
        "Member of the Test Parliament of Sweden",
        "SE",
        "2014-09-29",
        Some("2022-10-18"),
        TermStatus::Ended,
    )
}

#[test]
fn the_sample_reads_as_a_pep_list_of_its_peps_relatives_and_associates() {
    let list = sample();
    assert_eq!(list.source, ListSource::FtmPeps);
    assert_eq!(list.skipped, Vec::<String>::new());
    let ids: Vec<&str> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "synth-se-p-provholm-astrid",
            "synth-se-p-provholm-henrik",
            "synth-se-p-provholm-elsa",
            "synth-se-p-exempelsson-magnus",
            "synth-se-p-testdal-karin",
            "synth-lt-p-bandymaite-ruta",
            "synth-lt-p-pavyzdys-tomas",
            "synth-lt-p-bandymas-jonas",
            "synth-lt-p-meginyte-aiste",
        ],
        "the role.pol councillor (not a target) is not an entry"
    );
    for e in &list.entries {
        assert!(e.programs.is_empty() && e.listed_on.is_none(), "{e:?}");
    }
}

#[test]
fn a_pep_carries_her_offices_with_their_terms() {
    let astrid = entry(sample(), "synth-se-p-provholm-astrid");
    assert_eq!(
        astrid.exposure,
        Some(Exposure {
            roles: vec![ExposureRole::Pep],
            positions: vec![minister(), astrid_mp()],
            relations: vec![],
        })
    );
    assert_eq!(astrid.birth_dates, vec![ListedDate::Day(day(1968, 4, 9))]);
    let names: Vec<&str> = astrid.names.iter().map(|n| n.full.as_str()).collect();
    assert_eq!(names, ["Astrid Provholm", "Astrid Provholm-Lind"]);

    // A mandate that ended, with the term's end beside it: the person's own end counts.
    let karin = entry(sample(), "synth-se-p-testdal-karin");
    let positions = &karin.exposure.as_ref().unwrap().positions;
    assert_eq!(
        positions,
        &vec![held(
            "Member of the Test Parliament of Sweden",
            "SE",
            "2018-09-24",
            Some("2025-11-30"),
            TermStatus::Ended
        )]
    );
}

#[test]
fn relatives_and_associates_say_whose_and_how() {
    let henrik = entry(sample(), "synth-se-p-provholm-henrik");
    assert_eq!(
        henrik.exposure,
        Some(Exposure {
            roles: vec![ExposureRole::Rca],
            positions: vec![],
            relations: vec![PepRelation {
                kind: RelationKind::Family,
                relationship: Some("spouse".into()),
                pep_entry_id: "synth-se-p-provholm-astrid".into(),
                pep_name: "Astrid Provholm".into(),
                pep_positions: vec![minister(), astrid_mp()],
            }],
        })
    );
    let magnus = entry(sample(), "synth-se-p-exempelsson-magnus");
    let tie = &magnus.exposure.as_ref().unwrap().relations[0];
    assert_eq!(tie.kind, RelationKind::Associate);
    assert_eq!(
        tie.relationship.as_deref(),
        Some("business partner (joint beneficial owner of a company)")
    );
    // Lithuania: the father of a current Seimas member, her office copied in.
    let jonas = entry(sample(), "synth-lt-p-bandymas-jonas");
    let tie = &jonas.exposure.as_ref().unwrap().relations[0];
    assert_eq!(tie.relationship.as_deref(), Some("father"));
    assert_eq!(tie.pep_name, "Rūta Bandymaitė");
    assert_eq!(tie.pep_positions[0].status, TermStatus::Current);
    assert_eq!(tie.pep_positions[0].country.as_deref(), Some("LT"));
}

#[test]
fn a_pep_file_is_no_sanctions_list() {
    let err = read_path(
        &testdata("pep/synthetic-peps.ftm.json"),
        Some(ListFormat::OpenSanctionsJson),
    )
    .unwrap_err();
    let ReadError::OtherKind { what, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(what, "3 role.pep, 6 role.rca");
    assert!(err.to_string().contains("--format ftm-pep"), "{err}");
}

/// An export mixing sanctioned entities with PEPs (as OpenSanctions' `default` collection
/// does): each list takes its own kind and counts the rest.
#[test]
fn a_mixed_export_gives_each_list_its_own_kind() {
    let mut mixed = std::fs::read(testdata("opensanctions/zala_entities.ftm.json")).unwrap();
    mixed.push(b'\n');
    mixed.extend(std::fs::read(testdata("pep/synthetic-peps.ftm.json")).unwrap());
    // A wanted person and a debarred company: neither a sanction nor a PEP.
    mixed.extend(
        br#"
{"id": "x-wanted", "schema": "Person", "target": true, "properties": {"name": ["Testo Wanted"], "topics": ["wanted", "crime.fraud"]}}
{"id": "x-debarred", "schema": "Company", "target": true, "properties": {"name": ["Debarred Test AB"], "topics": ["debarment"]}}
{"id": "x-untagged", "schema": "Person", "target": true, "properties": {"name": ["Untagged Testperson"]}}
"#,
    );
    let file = TempFile::new("ftm-pep", "mixed", &mixed);

    let sanctions = read_path(&file.0, Some(ListFormat::OpenSanctionsJson))
        .unwrap()
        .list;
    let zala = read_path(
        &testdata("opensanctions/zala_entities.ftm.json"),
        Some(ListFormat::OpenSanctionsJson),
    )
    .unwrap()
    .list;
    assert_eq!(
        sanctions.entries, zala.entries,
        "the sanctioned entities, and only they"
    );
    assert_eq!(sanctions.skipped, zala.skipped);
    let aside = |what: &str, count: u32| SetAside {
        what: what.into(),
        count,
    };
    assert_eq!(
        sanctions.set_aside,
        vec![
            aside("(no topic)", 1),
            aside("crime.fraud", 1),
            aside("debarment", 1),
            aside("role.pep", 3),
            aside("role.rca", 6),
        ]
    );

    let peps = read_path(&file.0, Some(ListFormat::FtmPep)).unwrap().list;
    assert_eq!(peps.entries, sample().entries);
    let sanctioned_targets = zala.entries.len() as u32;
    assert_eq!(
        peps.set_aside,
        vec![
            aside("(no topic)", 1),
            aside("crime.fraud", 1),
            aside("debarment", 1),
            aside("sanction", sanctioned_targets),
        ]
    );
}

/// An export that marks no entity with topics: an office makes a PEP, a tie to one a
/// relative or associate.
#[test]
fn without_topics_offices_and_ties_decide() {
    let file = TempFile::new("ftm-pep", "untagged",
        br#"{"id": "p1", "schema": "Person", "properties": {"name": ["Prova Person"]}}
{"id": "p2", "schema": "Person", "properties": {"name": ["Prova Make"]}}
{"id": "p3", "schema": "Person", "properties": {"name": ["Prova Ingen"]}}
{"id": "pos", "schema": "Position", "properties": {"name": ["Test Governor"], "country": ["se"]}}
{"id": "occ", "schema": "Occupancy", "properties": {"holder": ["p1"], "post": ["pos"], "startDate": ["2020"], "endDate": ["2024-05"]}}
{"id": "fam", "schema": "Family", "properties": {"person": ["p2"], "relative": ["p1"], "relationship": ["wife"]}}
{"id": "bad", "schema": "Occupancy", "properties": {"holder": ["p3"], "post": ["nowhere"]}}
"#,
    );
    let list = read_path(&file.0, Some(ListFormat::FtmPep)).unwrap().list;
    let ids: Vec<&str> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(ids, ["p1", "p2"]);
    let p1 = list.entries[0].exposure.as_ref().unwrap();
    assert_eq!(p1.roles, [ExposureRole::Pep]);
    assert_eq!(
        p1.positions,
        [HeldPosition {
            title: "Test Governor".into(),
            country: Some("SE".into()),
            start: Some(ListedDate::Year(2020)),
            end: Some(ListedDate::Month {
                year: 2024,
                month: 5
            }),
            status: TermStatus::Unknown,
        }]
    );
    let p2 = list.entries[1].exposure.as_ref().unwrap();
    assert_eq!(p2.roles, [ExposureRole::Rca]);
    // The file reads the PEP as the person's wife.
    assert_eq!(
        p2.relations[0].relationship.as_deref(),
        Some("the PEP is their wife")
    );
    assert_eq!(
        list.set_aside,
        vec![SetAside {
            what: "(no topic)".into(),
            count: 1
        }]
    );
    assert_eq!(list.skipped.len(), 1, "{:?}", list.skipped);
    assert!(list.skipped[0].contains("its post is not a Position of the file"));
}

/// Exports differ in whether they mark relatives and associates as targets: the topic says
/// the person is exposed, and decides.
#[test]
fn a_relative_not_marked_target_is_still_an_entry() {
    let file = TempFile::new("ftm-pep", "rca-not-target",
        br#"{"id": "p1", "schema": "Person", "target": true, "properties": {"name": ["Prova Minister"], "topics": ["role.pep"], "position": ["Minister of Tests"], "country": ["se"]}}
{"id": "p2", "schema": "Person", "target": false, "properties": {"name": ["Prova Maka"], "topics": ["role.rca"]}}
{"id": "p3", "schema": "Person", "target": false, "properties": {"name": ["Prova Granne"], "topics": ["role.pol"]}}
{"id": "fam", "schema": "Family", "target": false, "properties": {"person": ["p1"], "relative": ["p2"], "relationship": ["spouse"]}}
"#,
    );
    let list = read_path(&file.0, Some(ListFormat::FtmPep)).unwrap().list;
    let ids: Vec<&str> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(ids, ["p1", "p2"]);
    let minister = list.entries[0].exposure.as_ref().unwrap();
    assert_eq!(
        minister.positions,
        [HeldPosition {
            title: "Minister of Tests".into(),
            country: Some("SE".into()),
            start: None,
            end: None,
            status: TermStatus::Unknown,
        }],
        "no occupancy in the file: the person's own words"
    );
    let spouse = list.entries[1].exposure.as_ref().unwrap();
    assert_eq!(spouse.relations[0].pep_name, "Prova Minister");
    assert_eq!(spouse.relations[0].pep_positions, minister.positions);
    assert!(list.set_aside.is_empty(), "{:?}", list.set_aside);
}
