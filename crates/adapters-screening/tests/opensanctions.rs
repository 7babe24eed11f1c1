//! The OpenSanctions FollowTheMoney reader against two real exports (the Zala Aero cluster
//! and yente's older `t1` sample), through the crate's public `read_path` and `detect`.

mod common;

use adapters_screening::{detect, read_path, ListFormat, ReadError};
use common::{day, entry, id, ids_and_kinds, strong, weak, TempFile};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, NameQuality, ParsedList,
};
use serde_json::json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const ZAKHAROV: &str = "NK-aU5ybkbRFJucf8YMwsJvDw";
const CST: &str = "NK-abdzbEBkqyT29GyREbiURZ";

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/opensanctions")
        .join(name)
}

fn read(path: &Path) -> Result<ParsedList, ReadError> {
    read_path(path, Some(ListFormat::OpenSanctionsJson)).map(|r| r.list)
}

fn zala() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    LIST.get_or_init(|| read(&testdata("zala_entities.ftm.json")).expect("the sample reads"))
}

fn country(code: Option<&str>, name: &str) -> ListedCountry {
    ListedCountry {
        code: code.map(str::to_owned),
        name: name.into(),
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn zala_sample_gives_its_fourteen_screenable_targets() {
    let list = zala();
    assert_eq!(list.source, ListSource::OpenSanctions);
    assert_eq!(list.published_at, None, "an entity export does not say");
    assert_eq!(list.skipped, Vec::<String>::new());
    // Of 91 entities: the 6 Persons (all targets) and the 8 of 11 Companies that are
    // targets. The other 77 (3 non-target companies, 41 Sanction, 14 Ownership, 11 Address,
    // 4 Family, 3 Directorship, 1 Passport) are context.
    let ids: Vec<&str> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "NK-2Tbri3s6GgNtAwsSXh4qpL",
            "NK-DQ98GPMgdVH8DSZd8g9Xtc",
            "NK-DSxJ9ZzHxBBMyEMnnTBhai",
            "NK-ERScv7cLkkvZ3ejz7xiToj",
            "NK-JseaPJctnK9o8wrmz8xmoT",
            "NK-SiYwWfxwLVrVeFswsvAvsm",
            ZAKHAROV,
            CST,
            "NK-cPks3aTbes8k4aCerfBAzN",
            "NK-cWSvGMvufNH5KwEV88FwTA",
            "NK-hUAjuiA3vTKXF6v2X6MYnS",
            "NK-iE6m5ryPeTAMZozfECVSL7",
            "NK-mCEmxFfuhfdjpC8gsxH74o",
            "NK-nR5AXM9AVPq4pQaSPSaVam",
        ],
        "file order"
    );
    let count = |k: EntryKind| list.entries.iter().filter(|e| e.kind == k).count();
    assert_eq!(count(EntryKind::Person), 6);
    assert_eq!(count(EntryKind::Organisation), 8);
    // Non-target companies (owned or related) are not entries.
    for context in [
        "NK-56Edov9bas9puzaChH5pBy",
        "NK-9Xa4Kg7Y7nfccE7VcZt6Q6",
        "ru-inn-5920040846",
    ] {
        assert!(!ids.contains(&context), "{context}");
    }
    for e in &list.entries {
        let id = &e.source_entry_id;
        assert_eq!(e.names[0].quality, NameQuality::Strong, "{id}");
        let texts: HashSet<_> = e.names.iter().map(|n| &n.full).collect();
        assert_eq!(texts.len(), e.names.len(), "{id}: names are unique");
        assert!(e
            .names
            .iter()
            .all(|n| !n.full.is_empty() && n.full.trim() == n.full && !n.full.contains("  ")));
        // Every target but the unmanned-systems association has programIds of its own.
        assert_eq!(
            e.programs.is_empty(),
            id == "NK-SiYwWfxwLVrVeFswsvAvsm",
            "{id}"
        );
        assert!(
            e.countries.contains(&country(Some("RU"), "ru")),
            "{id}: all of them are Russian"
        );
        if e.kind == EntryKind::Person {
            assert_eq!(e.birth_dates.len(), 1, "{id}");
        } else {
            assert!(
                e.birth_dates.is_empty() && e.nationalities.is_empty(),
                "{id}"
            );
        }
    }
    // Only Zakharov and LLC CST have their Sanction entities in this cluster.
    let listed: Vec<_> = list
        .entries
        .iter()
        .filter(|e| e.listed_on.is_some())
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(listed, [ZAKHAROV, CST]);
}

#[test]
fn zakharov_multi_script_names_birth_date_nationality_and_programs() {
    assert_eq!(
        entry(zala(), ZAKHAROV),
        &ListEntry {
            source_entry_id: ZAKHAROV.into(),
            kind: EntryKind::Person,
            names: vec![
                // The caption first, then the other `name`s, then the new `alias`es (one
                // alias repeats a name and is dropped).
                strong("Alexander Vyacheslavovich ZAKHAROV"),
                strong("Aleksandr Vyacheslavovich Zakharov"),
                strong("Zakharov Aleksandr"),
                strong("Александр Вячеславович Захаров"),
                strong("Захаров Олександр В'ячеславович"),
                strong("Alexander ZAKHAROV"),
                strong("Захаров Александр Вячеславович"),
                strong("Zakharov Aleksandr Vyacheslavovich"),
                strong("ZAKHAROV, Aleksandr Vyacheslavovich"),
                strong("Aleksandr Vjačeslavovič Zacharov"),
                strong("Aleksandr Vyacheslavovich ZAKHAROV"),
                strong("Zacharov Aleksandr Vjačeslavovič"),
                strong("ЗАХАРОВ Александр Вячеславович"),
                strong("Alexander Vyacheslavovich Zakharov"),
                strong("Zakharov Oleksandr Viacheslavovych"),
                strong("Aleksandr Vjačeslavovič ZACHAROV"),
                strong("Александр Вячеславович ЗАХАРОВ"),
            ],
            birth_dates: vec![ListedDate::Day(day(1965, 9, 21))],
            // `nationality` and `citizenship` both `ru`.
            nationalities: vec![country(Some("RU"), "ru")],
            // `country`, `birthCountry` and his Address entity's `country`, all `ru`.
            countries: vec![country(Some("RU"), "ru")],
            // The Passport entity he holds has no number.
            identifiers: vec![
                id("tax number", "183111242406", None),
                id("inn", "183111242406", None),
            ],
            // His own programIds, then what his 13 Sanction entities add: one by authority
            // only (EU travel ban), the UK disqualification, Monaco's freeze, SAM's
            // `Reciprocal` programme.
            programs: strings(&[
                "UA-SA1644",
                "US-RUSHAR",
                "NZ-RSA2022",
                "SECO-UKRAINE",
                "GB-RUS",
                "EU-UKR",
                "Council of the European Union",
                "The Insolvency Service",
                "La Principauté de Monaco",
                "Reciprocal",
            ]),
            // Ukraine's NSDC listing (startDate 2023-07-01) is the earliest.
            listed_on: Some(day(2023, 7, 1)),
            exposure: None,
        }
    );
}

#[test]
fn llc_cst_registration_numbers_address_countries_and_programs() {
    let e = entry(zala(), CST);
    assert_eq!(e.kind, EntryKind::Organisation);
    // 24 names, 35 aliases and 8 weak aliases, less the repeats.
    assert_eq!(e.names.len(), 59);
    assert_eq!(e.names[0], strong("LLC CST"));
    assert_eq!(
        e.names[1],
        strong("Товариство з обмеженою відповідальністю \"ЦСТ\"")
    );
    assert!(e.names.contains(&strong("ザラ・アエロ・グループ")));
    assert!(e.names.contains(&strong("ЗАЛА АЭРО")));
    // `Limited Liability Company CST` is an alias as well as a weak alias: strong.
    assert!(e.names.contains(&strong("Limited Liability Company CST")));
    let weak_names: Vec<_> = e
        .names
        .iter()
        .filter(|n| n.quality == NameQuality::Weak)
        .collect();
    assert_eq!(
        weak_names,
        [
            &weak("TsST LLC"),
            &weak("CST, OOO"),
            &weak("OOO TSST"),
            &weak("CST LLC"),
            &weak("CST"),
            &weak("TsST, OOO"),
            &weak("ZALA"),
        ]
    );
    assert!(e.birth_dates.is_empty());
    assert!(e.nationalities.is_empty());
    // `country` and `jurisdiction` `ru`, and the `country` of the five of its ten Address
    // entities that have one: one country.
    assert_eq!(e.countries, [country(Some("RU"), "ru")]);
    assert_eq!(
        e.identifiers,
        [
            id("registration number", "1091841000624", None),
            id("registration number", "1841015504", None),
            id("registration number", "1101841007938", None),
            id("tax number", "1841015504", None),
            id("tax number", "1841001815", None),
            id("inn", "1841015504", None),
            id("ogrn", "1101841007938", None),
        ]
    );
    // Its own programIds, then from its Sanction entities the authorities and programme
    // words of those without a programId (the Japanese ones in Japanese).
    assert_eq!(
        &e.programs[..11],
        strings(&[
            "UA-WS-MILIND",
            "AU-RUSSIA",
            "US-BIS-EL",
            "UA-SA1644",
            "US-RUSHAR",
            "NZ-RSA2022",
            "CA-SEMA",
            "SECO-UKRAINE",
            "UA-WS-UAVS",
            "GB-RUS",
            "EU-UKR",
        ])
    );
    assert_eq!(e.programs.len(), 16);
    assert_eq!(e.programs[11], "The Insolvency Service");
    assert!(e.programs[12].starts_with("資産凍結等の措置"));
    assert!(e.programs[13].starts_with("国際平和のための"));
    assert_eq!(
        e.programs[14..],
        strings(&["La Principauté de Monaco", "Reciprocal"])
    );
    // Ukraine's NSDC decree 556/2021 (startDate 2021-10-30).
    assert_eq!(e.listed_on, Some(day(2021, 10, 30)));
}

#[test]
fn llc_cst_address_countries_come_from_its_address_entities() {
    // Without its own `country` and `jurisdiction`, CST's countries are its Address
    // entities' (resolved within the file; half of them have a `country`).
    let (mut with, mut without) = (String::new(), String::new());
    for l in zala_lines() {
        let mut v: serde_json::Value = serde_json::from_str(&l).unwrap();
        if v["id"] == CST {
            let props = v["properties"].as_object_mut().unwrap();
            props.remove("country");
            props.remove("jurisdiction");
        }
        with.push_str(&format!("{v}\n"));
        if v["schema"] != "Address" {
            without.push_str(&format!("{v}\n"));
        }
    }
    let file = TempFile::new("opensanctions", "cst-addresses", with.as_bytes());
    let list = read(&file.0).unwrap();
    assert_eq!(entry(&list, CST).countries, [country(Some("RU"), "ru")]);
    // And without its addresses in the file, none.
    let file = TempFile::new("opensanctions", "cst-no-addresses", without.as_bytes());
    let list = read(&file.0).unwrap();
    assert_eq!(entry(&list, CST).countries, []);
}

#[test]
fn t1_older_export_reads() {
    // 7 entities on 6 lines: the last has no line end.
    let list = read(&testdata("t1_entities.ftm.json")).unwrap();
    assert_eq!(list.skipped, Vec::<String>::new());
    assert_eq!(list.published_at, None);
    let kinds = ids_and_kinds(&list);
    assert_eq!(
        kinds,
        [
            ("NK-2GdmHtZTeNXjNVrBGEXZNj", EntryKind::Organisation),
            ("NK-2Ka3UvopqbpZmVDFjWd4LA", EntryKind::Person),
            ("NK-2KeUB68qUJtykm3BuAcazG", EntryKind::Person),
            ("NK-2Mht2rqBeravCTdyQAWc4o", EntryKind::Person),
            ("NK-2Myxbs6wX9xFKGoQn3sLaY", EntryKind::Person),
            ("NK-2PacmNpiLUmoz4XD2mSt7A", EntryKind::Organisation),
        ]
    );
    // The caption is one of twelve names, in as many scripts; the Address it refers to is
    // not in the file, so only its own `country` counts.
    let e = entry(&list, "NK-2GdmHtZTeNXjNVrBGEXZNj");
    assert_eq!(e.names.len(), 12);
    assert_eq!(e.names[0], strong("RAB „Inter Tobacco“"));
    assert_eq!(e.names[1], strong("LLC “Inter Tobacco”"));
    assert!(e
        .names
        .contains(&strong("Таварыства з абмежаванай адказнасцю “Інтэр Табак”")));
    assert_eq!(e.countries, [country(Some("BY"), "by")]);
    assert_eq!(
        e.identifiers,
        [id("registration number", "808000714", None)]
    );
    assert!(e.programs.is_empty() && e.listed_on.is_none());
    for e in &list.entries {
        if e.kind == EntryKind::Person {
            assert!(!e.names.is_empty());
        }
    }
}

#[test]
fn the_format_is_detected_from_the_content() {
    for name in ["zala_entities.ftm.json", "t1_entities.ftm.json"] {
        let path = testdata(name);
        assert_eq!(detect(&path).unwrap(), ListFormat::OpenSanctionsJson);
        let read = read_path(&path, None).unwrap();
        assert_eq!(read.list.source, ListSource::OpenSanctions);
        assert!(read.digest.starts_with("sha256:"));
        assert_eq!(read.files, vec![path]);
    }
}

/// The sample's lines.
fn zala_lines() -> Vec<String> {
    std::fs::read_to_string(testdata("zala_entities.ftm.json"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn unreadable_lines_are_skipped_and_named() {
    let mut lines = zala_lines();
    lines.insert(0, String::new()); // line 1: blank, ignored
    lines.insert(3, "{\"id\": \"NK-broken\", \"schema\": \"Person\"".into()); // line 4: cut
    lines.insert(10, "{\"id\": \"NK-noschema\", \"caption\": \"X\"}".into()); // line 11
    lines.insert(20, "[1, 2]".into()); // line 21
    lines.insert(30, "   ".into()); // blank
    let text = lines.join("\r\n") + "\r\n";
    let file = TempFile::new("opensanctions", "damaged", text.as_bytes());
    let list = read(&file.0).unwrap();
    assert_eq!(list.entries, zala().entries, "every entity still read");
    assert_eq!(list.skipped.len(), 3, "{:?}", list.skipped);
    assert!(
        list.skipped[0].starts_with("line 4: not JSON (EOF while parsing"),
        "{}",
        list.skipped[0]
    );
    assert_eq!(
        list.skipped[1],
        "line 11: NK-noschema: a JSON object without a schema"
    );
    assert_eq!(list.skipped[2], "line 21: a JSON array, not an object");
}

/// A small export of odd corners, one entity per line.
fn odd_export() -> Vec<serde_json::Value> {
    vec![
        // 1: no `target` (an export that does not mark targets), no `name`: the parts.
        json!({"id": "p-ivan", "schema": "Person", "caption": "Ivanov",
            "referents": ["src-ivan"],
            "properties": {
                "firstName": ["Ivan"], "middleName": ["Petrovich"],
                "fatherName": ["PETROVICH"], "lastName": ["Ivanov"],
                "previousName": ["Ivan  Sidorov"], "weakAlias": ["Vanya"],
                "birthDate": ["1975", "1975-04", "1975-04-21", "1975-04-21T00:00:00"],
                "nationality": ["suhh", "xk"], "citizenship": ["ru", "RU"],
                "country": ["zz"], "passportNumber": ["P123"],
                "notes": [{"free": "form"}]}}),
        // 2
        json!({"id": "v-star", "schema": "Vessel", "caption": "SEA STAR", "target": true,
            "properties": {"name": ["SEA STAR"], "imoNumber": ["IMO 1234567"],
                "mmsi": ["123456789"], "callSign": ["ABCD"], "flag": ["pa"],
                "pastFlags": ["Panama", "Liberia"]}}),
        // 3
        json!({"id": "a-plane", "schema": "Airplane", "caption": "EP-ABC", "target": true,
            "properties": {"name": ["EP-ABC"], "registrationNumber": ["EP-ABC"],
                "serialNumber": ["12345"], "country": ["ir"]}}),
        // 4: the caption is not a name; one address missing from the file.
        json!({"id": "o-first", "schema": "Organization", "caption": "Caption Co",
            "target": true,
            "properties": {"name": ["First Co", "Second Co"], "abbreviation": ["FC"],
                "addressEntity": ["addr-missing", "addr-1"], "swiftBic": ["FIRSXX22"],
                "leiCode": ["5493001KJTIIGC8Y1R12"]}}),
        // 5
        json!({"id": "addr-1", "schema": "Address", "caption": "Berlin", "target": false,
            "properties": {"full": ["Berlin"], "country": ["de"]}}),
        // 6
        json!({"id": "p-bad-date", "schema": "Person", "target": true,
            "properties": {"name": ["Bad Date"], "birthDate": ["1975-13"]}}),
        // 7
        json!({"id": "p-bad-name", "schema": "Person", "target": true,
            "properties": {"name": "Not A List"}}),
        // 8
        json!({"id": "p-bad-target", "schema": "Person", "target": "yes",
            "properties": {"name": ["Maybe"]}}),
        // 9
        json!({"id": "sec-1", "schema": "Security", "caption": "RU000A0JX0J2",
            "target": true, "properties": {"isin": ["RU000A0JX0J2"]}}),
        // 10
        json!({"id": "v-star", "schema": "Vessel", "target": true,
            "properties": {"name": ["SEA STAR II"]}}),
        // 11: related, not listed.
        json!({"id": "c-related", "schema": "Company", "target": false,
            "properties": {"name": ["Related Co"]}}),
        // 12: a sanction naming the person by a referent; a year is no day.
        json!({"id": "s-1", "schema": "Sanction", "target": false,
            "properties": {"entity": ["src-ivan"], "program": ["SDGT"],
                "authority": ["OFAC"], "startDate": ["2001"],
                "listingDate": ["2005-05-05"]}}),
        // 13: authority only; listingDate counts when there is no startDate.
        json!({"id": "s-2", "schema": "Sanction", "target": false,
            "properties": {"entity": ["p-ivan", "o-first"], "authority": ["Some Authority"],
                "listingDate": ["2010-01-02", "2009-12"]}}),
        // 14: an unreadable date: the sanction is skipped.
        json!({"id": "s-3", "schema": "Sanction", "target": false,
            "properties": {"entity": ["o-first"], "programId": ["XX-NEVER"],
                "startDate": ["soon"]}}),
        // 15
        json!({"id": "c-nameless", "schema": "Company", "caption": "Company",
            "target": true, "properties": {"country": ["ru"]}}),
        // 16, 17
        json!({"id": "le-1", "schema": "LegalEntity", "target": true,
            "properties": {"name": ["Legal One"], "idNumber": ["L-1"]}}),
        json!({"id": "pb-1", "schema": "PublicBody", "target": true,
            "properties": {"name": ["Ministry of Things"], "jurisdiction": ["ge-ab"]}}),
        // 18, 19: identity documents held by the person.
        json!({"id": "pass-1", "schema": "Passport", "target": false,
            "properties": {"holder": ["p-ivan"], "number": ["AB1"], "country": ["ru"]}}),
        json!({"id": "ident-1", "schema": "Identification", "target": false,
            "properties": {"holder": ["p-ivan"], "number": ["77"], "type": ["National ID"],
                "country": ["suhh"]}}),
        // 20: no id.
        json!({"schema": "Person", "target": true, "properties": {"name": ["Nobody"]}}),
    ]
}

#[test]
fn odd_corners_map_as_documented() {
    let text: String = odd_export().iter().map(|v| format!("{v}\n")).collect();
    let file = TempFile::new("opensanctions", "odd", text.as_bytes());
    let list = read(&file.0).unwrap();
    assert_eq!(
        list.skipped,
        [
            "line 6 (p-bad-date, Person): birthDate \"1975-13\" is not a date",
            "line 7 (p-bad-name, Person): name is not a list of strings",
            "line 8 (p-bad-target, Person): target is neither true nor false",
            "line 9 (sec-1, Security): a target of a schema name screening does not cover",
            "line 10 (v-star, Vessel): the id is on line 2 too",
            "line 14 (s-3, Sanction): startDate \"soon\" is not a date",
            "line 15 (c-nameless, Company): no name",
            "line 20 (Person): no id",
        ]
    );
    let ids = ids_and_kinds(&list);
    assert_eq!(
        ids,
        [
            ("p-ivan", EntryKind::Person),
            ("v-star", EntryKind::Vessel),
            ("a-plane", EntryKind::Aircraft),
            ("o-first", EntryKind::Organisation),
            ("le-1", EntryKind::Organisation),
            ("pb-1", EntryKind::Organisation),
        ]
    );

    assert_eq!(
        entry(&list, "p-ivan"),
        &ListEntry {
            source_entry_id: "p-ivan".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Ivan Petrovich Ivanov"),
                strong("Ivan Sidorov"),
                weak("Vanya")
            ],
            birth_dates: vec![
                ListedDate::Year(1975),
                ListedDate::Month {
                    year: 1975,
                    month: 4
                },
                ListedDate::Day(day(1975, 4, 21)),
            ],
            nationalities: vec![
                country(None, "Soviet Union"),
                country(Some("XK"), "xk"),
                country(Some("RU"), "ru"),
            ],
            countries: vec![],
            identifiers: vec![
                id("passport number", "P123", None),
                id("passport", "AB1", Some("RU")),
                id("national id", "77", None),
            ],
            programs: strings(&["SDGT", "Some Authority"]),
            listed_on: Some(day(2010, 1, 2)),
            exposure: None,
        }
    );

    let v = entry(&list, "v-star");
    assert_eq!(v.names, [strong("SEA STAR")]);
    assert_eq!(
        v.identifiers,
        [
            id("imo number", "IMO 1234567", None),
            id("mmsi", "123456789", None),
            id("call sign", "ABCD", None),
        ]
    );
    assert_eq!(
        v.countries,
        [country(Some("PA"), "pa"), country(Some("LR"), "Liberia")]
    );

    let a = entry(&list, "a-plane");
    assert_eq!(
        a.identifiers,
        [
            id("registration number", "EP-ABC", None),
            id("serial number", "12345", None),
        ]
    );
    assert_eq!(a.countries, [country(Some("IR"), "ir")]);

    let o = entry(&list, "o-first");
    assert_eq!(
        o.names,
        [strong("First Co"), strong("Second Co"), weak("FC")]
    );
    assert_eq!(o.countries, [country(Some("DE"), "de")]);
    assert_eq!(
        o.identifiers,
        [
            id("lei", "5493001KJTIIGC8Y1R12", None),
            id("swift bic", "FIRSXX22", None),
        ]
    );
    // s-2 names it; s-3 is skipped.
    assert_eq!(o.programs, strings(&["Some Authority"]));
    assert_eq!(o.listed_on, Some(day(2010, 1, 2)));

    assert_eq!(
        entry(&list, "le-1").identifiers,
        [id("id number", "L-1", None)]
    );
    assert_eq!(entry(&list, "pb-1").countries, [country(None, "Abkhazia")]);
}

fn assert_malformed(tag: &str, bytes: &[u8]) -> String {
    let file = TempFile::new("opensanctions", tag, bytes);
    match read(&file.0) {
        Err(ReadError::Malformed { format, detail }) => {
            assert_eq!(format, "opensanctions-json", "{tag}");
            detail
        }
        other => panic!("{tag}: expected Malformed, got {other:?}"),
    }
}

#[test]
fn not_this_format_is_malformed() {
    let un = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/un/un_sc_consolidated_2026-02-27.xml"),
    )
    .unwrap();
    let detail = assert_malformed("un-xml", &un);
    assert!(
        detail.starts_with("no line is a FollowTheMoney entity (line 1: not JSON"),
        "{detail}"
    );
    assert_malformed("binary", &[0x00, 0xff, 0x13, 0x37, 0x80, 0x7b, 0xfe, 0x7f]);
    assert_eq!(assert_malformed("empty", b""), "the file is empty");
    assert_eq!(
        assert_malformed("blank", b"\n \r\n\t\n"),
        "the file is empty"
    );
    // One entity pretty-printed over many lines, and an export as one JSON array.
    let lines = zala_lines();
    let entity: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_malformed(
        "pretty",
        serde_json::to_string_pretty(&entity).unwrap().as_bytes(),
    );
    assert_malformed("array", format!("[{},{}]\n", lines[0], lines[1]).as_bytes());
    // A stray entity line in some other text.
    let detail = assert_malformed(
        "mostly-text",
        format!("Hello,\n{}\nregards\n", lines[0]).as_bytes(),
    );
    assert!(
        detail.starts_with("only 1 of 3 lines are FollowTheMoney entities (line 1: not JSON"),
        "{detail}"
    );
}

#[test]
fn a_delta_file_is_malformed() {
    // The delta format: `{"op": ..., "entity": {...}}` lines.
    let lines = zala_lines();
    let delta = format!(
        "{{\"op\":\"ADD\",\"entity\":{}}}\n{{\"op\":\"MOD\",\"entity\":{}}}\n\
         {{\"op\":\"DEL\",\"entity\":{{\"id\":\"NK-500Poltergeist\"}}}}\n",
        lines[0], lines[1]
    );
    let file = TempFile::new("opensanctions", "delta", delta.as_bytes());
    // It looks like an export to the detection, and is refused by the reader.
    assert_eq!(detect(&file.0).unwrap(), ListFormat::OpenSanctionsJson);
    match read_path(&file.0, None) {
        Err(ReadError::Malformed { format, detail }) => {
            assert_eq!(format, "opensanctions-json");
            assert!(
                detail.starts_with("line 1 is a delta operation (\"op\": \"ADD\")"),
                "{detail}"
            );
            assert!(detail.contains("full entity export"), "{detail}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    let only_del = assert_malformed(
        "delta-del",
        b"{\"op\":\"DEL\",\"entity\":{\"id\":\"NK-500Poltergeist\"}}\n",
    );
    assert!(only_del.contains("\"DEL\""), "{only_del}");
    // A delta operation in the middle of an export.
    let mixed = format!(
        "{}\n{}\n{{\"op\":\"DEL\",\"entity\":{{\"id\":\"x\"}}}}\n",
        lines[0], lines[1]
    );
    let detail = assert_malformed("delta-mixed", mixed.as_bytes());
    assert!(
        detail.starts_with("line 3 is a delta operation"),
        "{detail}"
    );
}

#[test]
fn an_export_without_screenable_targets_holds_no_entries() {
    let lines = zala_lines();
    let addresses: String = lines
        .iter()
        .filter(|l| l.contains("\"schema\": \"Address\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!addresses.is_empty());
    let file = TempFile::new("opensanctions", "addresses", addresses.as_bytes());
    assert!(matches!(read(&file.0), Err(ReadError::Empty(_))));
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mutated_samples_never_panic() {
    let original = std::fs::read(testdata("zala_entities.ftm.json")).unwrap();
    let noise = b"{}[]\":,\\\n\r 0tfn-T\xc3\xa9\x80\x00";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut outcomes = [0usize; 3];
    for round in 0..120 {
        let mut bytes = original.clone();
        // Few changes (most lines stay entities) to many (few do).
        let changes = if round % 2 == 0 {
            1 + round % 7
        } else {
            50 * round
        };
        for _ in 0..changes {
            let at = (rng.next() as usize) % bytes.len();
            match rng.next() % 3 {
                0 => bytes[at] = noise[(rng.next() as usize) % noise.len()],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, noise[(rng.next() as usize) % noise.len()]),
            }
        }
        if round % 5 == 0 {
            let cut = (rng.next() as usize) % bytes.len();
            bytes.truncate(cut);
        }
        let file = TempFile::new("opensanctions", "mutated", &bytes);
        // Any outcome but a panic: entries with some records skipped, or an error.
        match read(&file.0) {
            Ok(list) => {
                assert!(!list.entries.is_empty());
                let kept = common::check_damaged_read(zala(), &list, &format!("round {round}"));
                assert!(
                    kept * 4 >= list.entries.len(),
                    "round {round}: {kept} of {} entries intact",
                    list.entries.len()
                );
                outcomes[0] += 1;
            }
            Err(ReadError::Malformed { .. }) => outcomes[1] += 1,
            Err(ReadError::Empty(_)) => outcomes[2] += 1,
            Err(other) => panic!("{other:?}"),
        }
    }
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}
