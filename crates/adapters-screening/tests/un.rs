//! The UN Consolidated List reader against the sample file of 2026-02-27, through the
//! crate's public `read_path`.

use adapters_screening::{read_path, ListFormat};
use chrono::{TimeZone, Utc};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, NameQuality,
    ParsedList,
};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

mod common;
use common::{country, day, strong, testdata, weak};

fn sample_path() -> PathBuf {
    testdata("un/un_sc_consolidated_2026-02-27.xml")
}

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    common::read_once(&LIST, &sample_path(), ListFormat::UnXml)
}

fn entry(id: &str) -> &'static ListEntry {
    common::entry(sample(), id)
}

#[test]
fn sample_reads_every_record() {
    let list = sample();
    assert_eq!(list.source, ListSource::UnConsolidated);
    assert_eq!(
        list.published_at,
        Some(
            Utc.with_ymd_and_hms(2026, 2, 27, 0, 0, 9).unwrap()
                + chrono::Duration::milliseconds(554)
        )
    );
    assert_eq!(list.skipped, Vec::<String>::new());
    assert_eq!(list.entries.len(), 1003);
    let persons = list
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Person)
        .count();
    let orgs = list
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Organisation)
        .count();
    assert_eq!((persons, orgs), (730, 273));

    let ids: HashSet<_> = list.entries.iter().map(|e| &e.source_entry_id).collect();
    assert_eq!(ids.len(), 1003, "reference numbers are unique");
    for e in &list.entries {
        let id = &e.source_entry_id;
        assert!(!id.is_empty() && id.trim() == id, "{id:?}");
        assert_eq!(e.names[0].quality, NameQuality::Strong, "{id}");
        assert!(e.names.iter().all(|n| !n.full.is_empty()
            && n.full.trim() == n.full
            && !n.full.contains("  ")
            && !n.full.contains('\n')));
        assert_eq!(e.programs.len(), 1, "{id}");
        assert!(e.listed_on.is_some(), "{id}");
        if e.kind == EntryKind::Organisation {
            assert!(e.birth_dates.is_empty() && e.nationalities.is_empty());
            assert!(e.identifiers.is_empty());
        }
    }
    // Counted independently from the file: 1003 primary names + 378 original-script names +
    // 2752 named aliases, less 12 repeats of the same text and quality.
    let names: usize = list.entries.iter().map(|e| e.names.len()).sum();
    assert_eq!(names, 4121);
    // 454 DATE + 378 YEAR + 31 spans + 58 alias dates of birth, less 33 repeats.
    let dates: usize = list.entries.iter().map(|e| e.birth_dates.len()).sum();
    assert_eq!(dates, 888);
    // Every document with a NUMBER (454 of 921 document elements).
    let ids: usize = list.entries.iter().map(|e| e.identifiers.len()).sum();
    assert_eq!(ids, 454);
    // The only country words without an ISO code.
    let uncoded: HashSet<_> = list
        .entries
        .iter()
        .flat_map(|e| e.nationalities.iter().chain(&e.countries))
        .filter(|c| c.code.is_none())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(uncoded, HashSet::from(["former Soviet Union"]));
}

#[test]
fn the_format_is_detected_from_the_content() {
    let read = read_path(&sample_path(), None).unwrap();
    assert_eq!(read.list.entries.len(), 1003);
    assert!(read.digest.starts_with("sha256:"));
    assert_eq!(read.files, vec![sample_path()]);
}

#[test]
fn cdi_001_eric_badege_birth_year_and_address_country() {
    let e = entry("CDi.001");
    assert_eq!(
        e,
        &ListEntry {
            source_entry_id: "CDi.001".into(),
            kind: EntryKind::Person,
            names: vec![strong("ERIC BADEGE")],
            birth_dates: vec![ListedDate::Year(1971)],
            nationalities: vec![country("CD", "Democratic Republic of the Congo")],
            countries: vec![country("RW", "Rwanda")],
            identifiers: vec![],
            programs: vec!["DRC".into()],
            listed_on: Some(day(2012, 12, 31)),
            exposure: None,
        }
    );
}

#[test]
fn lyi_023_exact_birth_date_passport_original_script_and_low_aliases() {
    let e = entry("LYi.023");
    assert_eq!(
        e,
        &ListEntry {
            source_entry_id: "LYi.023".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Ahmad Oumar Imhamad al-Fitouri"),
                strong("احمد عمر امحمد الفيتوري"),
                weak("Al-Dabachi"),
                weak("Al Ammu"),
                weak("The Uncle"),
                weak("Al-Ahwal"),
                weak("Al Dabbashi"),
            ],
            birth_dates: vec![ListedDate::Day(day(1988, 5, 7))],
            nationalities: vec![country("LY", "Libya")],
            // Two addresses in Libya: one country.
            countries: vec![country("LY", "Libya")],
            identifiers: vec![
                ListedIdentifier {
                    kind: "passport".into(),
                    value: "LY53FP76".into(),
                    country: Some("LY".into()),
                },
                ListedIdentifier {
                    kind: "national identification number".into(),
                    value: "119880387067".into(),
                    country: None,
                },
            ],
            programs: vec!["Libya".into()],
            listed_on: Some(day(2018, 6, 7)),
            exposure: None,
        }
    );
}

#[test]
fn cdi_030_bosco_taganda_between_range_and_both_alias_qualities() {
    let e = entry("CDi.030");
    assert_eq!(e.kind, EntryKind::Person);
    assert_eq!(
        e.names,
        vec![
            strong("BOSCO TAGANDA"),
            strong("Bosco Ntaganda"),
            strong("Bosco Ntagenda"),
            strong("General Taganda"),
            weak("Lydia"),
            weak("Terminator"),
            weak("Tango Romeo"),
            weak("Romeo"),
            weak("Major"),
        ]
    );
    assert_eq!(
        e.birth_dates,
        vec![ListedDate::Years {
            from: 1973,
            to: 1974
        }]
    );
    assert_eq!(
        e.nationalities,
        vec![country("CD", "Democratic Republic of the Congo")]
    );
    // The address (Belgium), then the place of birth (Rwanda).
    assert_eq!(
        e.countries,
        vec![country("BE", "Belgium"), country("RW", "Rwanda")]
    );
    assert!(
        e.identifiers.is_empty(),
        "<INDIVIDUAL_DOCUMENT/> gives nothing"
    );
    assert_eq!(e.programs, vec!["DRC".to_string()]);
    assert_eq!(e.listed_on, Some(day(2005, 11, 1)));
}

#[test]
fn qde_014_entity_with_aka_and_fka_aliases() {
    // No entity of the sample has a `Low` alias: entities use `a.k.a.` and `f.k.a.`, both
    // strong. (The weak mapping of an entity alias is covered by the module's own tests.)
    let e = entry("QDe.014");
    assert_eq!(
        e,
        &ListEntry {
            source_entry_id: "QDe.014".into(),
            kind: EntryKind::Organisation,
            names: vec![
                strong("THE ORGANIZATION OF AL-QAIDA IN THE ISLAMIC MAGHREB"),
                strong("تنظيم القا عدة ببلاد المغرب الاسلامي"),
                strong("AQIM"),
                strong("Al Qaïda au Maghreb islamique (AQMI)"),
                strong("Le Groupe Salafiste pour La Prédication et le Combat (GSPC)"),
                strong("Salafist Group For Call and Combat"),
            ],
            birth_dates: vec![],
            nationalities: vec![],
            countries: vec![
                country("DZ", "Algeria"),
                country("ML", "Mali"),
                country("MR", "Mauritania"),
                country("MA", "Morocco"),
                country("NE", "Niger"),
                country("TN", "Tunisia"),
            ],
            identifiers: vec![],
            programs: vec!["Al-Qaida".into()],
            listed_on: Some(day(2001, 10, 6)),
            exposure: None,
        }
    );
}

#[test]
fn kpe_055_reference_trimmed_and_ampersand_unescaped() {
    // The file writes `<REFERENCE_NUMBER>KPe.055 </REFERENCE_NUMBER>`.
    let e = entry("KPe.055");
    assert_eq!(e.kind, EntryKind::Organisation);
    assert_eq!(
        e.names,
        vec![
            strong("CHANG AN SHIPPING & TECHNOLOGY"),
            strong("長安海連技術有限公司"),
            strong("CHANG AN SHIPPING AND TECHNOLOGY"),
        ]
    );
    assert_eq!(e.countries, vec![country("CN", "China")]);
    assert_eq!(e.programs, vec!["DPRK".to_string()]);
}

#[test]
fn tai_153_na_name_part_and_several_birth_dates() {
    // `<FOURTH_NAME>na</FOURTH_NAME>` is the list's "not available", not a name.
    let e = entry("TAi.153");
    assert_eq!(e.names[0], strong("FAIZULLAH KHAN NOORZAI"));
    assert_eq!(e.names[1], strong("فیض الله خان نورزی"));
    assert_eq!(e.names.len(), 8);
    assert!(e.names.contains(&weak("Haji Pazullah Noorzai")));
    assert_eq!(
        e.birth_dates,
        vec![
            ListedDate::Year(1966),
            ListedDate::Year(1961),
            ListedDate::Years {
                from: 1968,
                to: 1970
            },
            ListedDate::Year(1962),
        ]
    );
    assert_eq!(e.nationalities, vec![country("AF", "Afghanistan")]);
    assert_eq!(
        e.countries,
        vec![country("PK", "Pakistan"), country("AF", "Afghanistan")]
    );
}

#[test]
fn sdi_001_na_nationality_is_no_nationality() {
    let e = entry("SDi.001");
    assert!(e.nationalities.is_empty());
    assert_eq!(e.countries, vec![country("SD", "Sudan")]);
    assert_eq!(
        e.identifiers,
        vec![ListedIdentifier {
            kind: "national identification number".into(),
            value: "4302".into(),
            country: None,
        }]
    );
}

#[test]
fn qdi_426_line_breaks_inside_values_are_collapsed() {
    let e = entry("QDi.426");
    assert_eq!(
        e.names[0],
        strong("Amir Muhammad Sa’id Abdal-Rahman al-Salbi")
    );
    assert_eq!(e.names[1], strong("أمیر محمد سعید عبد الرحمن السلبي"));
    assert_eq!(
        e.identifiers,
        vec![ListedIdentifier {
            kind: "national identification number".into(),
            value: "00278640".into(),
            country: None,
        }]
    );
    assert_eq!(
        e.birth_dates,
        vec![
            ListedDate::Day(day(1976, 10, 5)),
            ListedDate::Day(day(1976, 10, 1)),
            ListedDate::Day(day(1976, 1, 6)),
        ]
    );
    assert_eq!(
        e.countries,
        vec![
            country("IQ", "Iraq"),
            ListedCountry {
                code: Some("SY".into()),
                name: "Syrian Arab Republic".into()
            },
        ]
    );
}

#[test]
fn odd_corners_of_the_sample() {
    // `APPROXIMATELY` with a single YEAR is that year.
    assert_eq!(
        entry("CDi.014").birth_dates,
        vec![ListedDate::Day(day(1962, 3, 17)), ListedDate::Year(1966)]
    );
    // `LISTED_ON` in the `xs:date` form with a zone.
    assert_eq!(entry("QDi.352").listed_on, Some(day(2015, 4, 7)));
    // An alias's own date of birth is a birth date of the entry.
    assert_eq!(
        entry("KPi.016").birth_dates,
        vec![
            ListedDate::Day(day(1957, 4, 15)),
            ListedDate::Day(day(1958, 2, 22))
        ]
    );
    // COUNTRY_OF_ISSUE when there is no ISSUING_COUNTRY.
    assert_eq!(
        entry("GBi.001").identifiers,
        vec![ListedIdentifier {
            kind: "passport".into(),
            value: "AAID00437".into(),
            country: Some("GW".into()),
        }]
    );
    // A country without an ISO code keeps its words.
    assert!(entry("QDi.290")
        .countries
        .iter()
        .chain(&entry("QDi.290").nationalities)
        .any(|c| c
            == &ListedCountry {
                code: None,
                name: "former Soviet Union".into()
            }));
}

#[test]
fn not_this_format_is_malformed() {
    let full = std::fs::read(sample_path()).unwrap();
    common::assert_cut_short_malformed(ListFormat::UnXml, "un-test", &full, "CONSOLIDATED_LIST", 5);
}
