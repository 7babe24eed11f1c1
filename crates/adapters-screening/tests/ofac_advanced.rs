//! The OFAC advanced XML reader against the assembled test document (real published
//! fragments with their reference values, see `testdata/ofac_advanced/PROVENANCE.md`),
//! through the crate's public `read_path` and `detect`.

use adapters_screening::{detect, read_path, ListFormat, ReadError};
use chrono::{TimeZone, Utc};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedDate, ListedIdentifier, NameQuality, ParsedList,
};
use std::path::PathBuf;
use std::sync::OnceLock;

mod common;
use common::{country, day, strong, testdata, weak, Rng, TempFile};

fn sample_path() -> PathBuf {
    testdata("ofac_advanced/sdn_advanced_assembled.xml")
}

fn sample_text() -> String {
    std::fs::read_to_string(sample_path()).unwrap()
}

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    common::read_once(&LIST, &sample_path(), ListFormat::OfacAdvancedXml)
}

fn entry(id: &str) -> &'static ListEntry {
    common::entry(sample(), id)
}

fn id(kind: &str, value: &str, country: &str) -> ListedIdentifier {
    ListedIdentifier {
        kind: kind.into(),
        value: value.into(),
        country: Some(country.into()),
    }
}

fn read_bytes(tag: &str, bytes: &[u8]) -> Result<ParsedList, ReadError> {
    let file = TempFile::new("ofac-advanced", tag, bytes);
    read_path(&file.0, Some(ListFormat::OfacAdvancedXml)).map(|r| r.list)
}

fn is_malformed<T>(r: &Result<T, ReadError>) -> bool {
    matches!(
        r,
        Err(ReadError::Malformed {
            format: "ofac-advanced-xml",
            ..
        })
    )
}

#[test]
fn the_assembled_document_reads_every_party() {
    let list = sample();
    assert_eq!(list.source, ListSource::OfacSdn);
    assert_eq!(
        list.published_at,
        Some(Utc.with_ymd_and_hms(2024, 3, 6, 0, 0, 0).unwrap())
    );
    assert_eq!(list.skipped, Vec::<String>::new());
    let ids: Vec<_> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(ids, ["36", "306", "6832", "6905", "25057"]);
    for e in &list.entries {
        assert_eq!(e.names[0].quality, NameQuality::Strong);
        assert!(e.names.iter().all(|n| !n.full.is_empty()
            && n.full.trim() == n.full
            && !n.full.contains("  ")
            && !n.full.contains('\n')));
    }
}

#[test]
fn the_format_is_detected_from_the_content() {
    assert_eq!(detect(&sample_path()).unwrap(), ListFormat::OfacAdvancedXml);
    let read = read_path(&sample_path(), None).unwrap();
    assert_eq!(&read.list, sample());
    assert!(read.digest.starts_with("sha256:"));
    assert_eq!(read.files, vec![sample_path()]);
}

#[test]
fn party_36_aerocaribbean_airlines_with_its_listing() {
    assert_eq!(
        entry("36"),
        &ListEntry {
            source_entry_id: "36".into(),
            kind: EntryKind::Organisation,
            names: vec![strong("AEROCARIBBEAN AIRLINES"), strong("AERO-CARIBBEAN")],
            birth_dates: vec![],
            nationalities: vec![],
            // Location 25 (Havana): its LocationCountry.
            countries: vec![country("CU", "Cuba")],
            identifiers: vec![],
            // SanctionsMeasure of type Program; the Block measure and the legal basis
            // `Unknown` add none.
            programs: vec!["CUBA".into()],
            listed_on: Some(day(1986, 12, 10)),
            exposure: None,
        }
    );
}

#[test]
fn party_25057_al_rawi_names_in_both_orders_weak_aliases_and_birth_dates() {
    assert_eq!(
        entry("25057"),
        &ListEntry {
            source_entry_id: "25057".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("'Adnan Muhammad Amin al-Rawi"),
                strong("al-Rawi, 'Adnan Muhammad Amin"),
                strong("Amin Muhammad al-Rawi"),
                strong("al-Rawi, Amin Muhammad"),
                strong("'Adnan Muhammad Amin"),
                strong("Amin, 'Adnan Muhammad"),
                strong("Adnan Mahmoud Alrawi"),
                strong("Alrawi, Adnan Mahmoud"),
                strong("Adnan Mahmood Al Rawi"),
                strong("Al Rawi, Adnan Mahmood"),
                strong("Adnan Mahmood Rawi"),
                strong("Rawi, Adnan Mahmood"),
                weak("Mohammed Amad Az Aldeen"),
                weak("Aldeen, Mohammed Amad Az"),
                weak("Mohammad Emad"),
                weak("Emad, Mohammad"),
                weak("Mohammed Emad Ezaldeen"),
                weak("Ezaldeen, Mohammed Emad"),
            ],
            // Two Birthdate features; the Gender feature is not read.
            birth_dates: vec![
                ListedDate::Day(day(1985, 1, 7)),
                ListedDate::Day(day(1982, 8, 28)),
            ],
            nationalities: vec![],
            countries: vec![],
            identifiers: vec![],
            // No SanctionsEntry for this party in the fragments.
            programs: vec![],
            listed_on: None,
            exposure: None,
        }
    );
}

#[test]
fn party_306_banco_nacional_de_cuba_address_in_japan_and_a_weak_alias() {
    assert_eq!(
        entry("306"),
        &ListEntry {
            source_entry_id: "306".into(),
            kind: EntryKind::Organisation,
            names: vec![
                strong("BANCO NACIONAL DE CUBA"),
                strong("NATIONAL BANK OF CUBA"),
                weak("BNC"),
            ],
            birth_dates: vec![],
            nationalities: vec![],
            // The real Location 201 (Tokyo): its LocationCountry 11115.
            countries: vec![country("JP", "Japan")],
            identifiers: vec![],
            programs: vec![],
            listed_on: None,
            exposure: None,
        }
    );
}

#[test]
fn party_6832_echeverry_herrera_and_his_cedula() {
    assert_eq!(
        entry("6832"),
        &ListEntry {
            source_entry_id: "6832".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Hernando ECHEVERRY HERRERA"),
                strong("ECHEVERRY HERRERA, Hernando"),
                strong("Hernando ECHEVERRI HERRERA"),
                strong("ECHEVERRI HERRERA, Hernando"),
            ],
            birth_dates: vec![],
            nationalities: vec![],
            countries: vec![],
            // The real IDRegDocument 1511 (IdentityID 2967, issued by Colombia).
            identifiers: vec![id("cedula no.", "1625525", "CO")],
            programs: vec![],
            listed_on: None,
            exposure: None,
        }
    );
}

#[test]
fn party_6905_abu_zubaydah_nationality_place_of_birth_and_passport() {
    assert_eq!(
        entry("6905"),
        &ListEntry {
            source_entry_id: "6905".into(),
            kind: EntryKind::Person,
            // A one-part name is kept as written, whatever its part type.
            names: vec![
                strong("ABU ZUBAYDAH"),
                strong("Zayn al-Abidin Muhammad HUSAYN"),
                strong("HUSAYN, Zayn al-Abidin Muhammad"),
                strong("ABU ZUBAIDA"),
                weak("TARIQ"),
            ],
            birth_dates: vec![ListedDate::Day(day(1971, 3, 12))],
            // A location holding only the words, as published files write nationalities.
            nationalities: vec![country("PS", "Palestinian")],
            // `Riyadh, Saudi Arabia`: the part after the last comma.
            countries: vec![country("SA", "Saudi Arabia")],
            // The real IDRegDocument 4901 (IdentityID 2327, issued by Egypt).
            identifiers: vec![id("passport", "484824", "EG")],
            programs: vec![],
            listed_on: None,
            exposure: None,
        }
    );
}

#[test]
fn an_unknown_reference_id_skips_its_party_not_the_file() {
    let text = sample_text();
    let cases = [
        // The party's kind.
        (
            r#"<Profile ID="25057" PartySubTypeID="4">"#,
            r#"<Profile ID="25057" PartySubTypeID="99">"#,
            "DistinctParty 25057: unknown PartySubTypeID 99",
            "25057",
        ),
        // A feature type.
        (
            r#"<Feature ID="28251" FeatureTypeID="224">"#,
            r#"<Feature ID="28251" FeatureTypeID="999">"#,
            "DistinctParty 25057: unknown FeatureTypeID 999",
            "25057",
        ),
        // An alias type.
        (
            r#"<Alias FixedRef="36" AliasTypeID="1400""#,
            r#"<Alias FixedRef="36" AliasTypeID="1401""#,
            "DistinctParty 36: unknown AliasTypeID 1401",
            "36",
        ),
        // A location.
        (
            r#"<VersionLocation LocationID="201" />"#,
            r#"<VersionLocation LocationID="202" />"#,
            "DistinctParty 306: unknown LocationID 202",
            "306",
        ),
        // A document's type, found when its party is read.
        (
            r#"IDRegDocTypeID="1571""#,
            r#"IDRegDocTypeID="1599""#,
            "DistinctParty 6905: unknown IDRegDocTypeID 1599",
            "6905",
        ),
        // A country a document names.
        (
            r#"IssuedBy-CountryID="11066""#,
            r#"IssuedBy-CountryID="11067""#,
            "DistinctParty 6832: unknown IssuedBy-CountryID 11067",
            "6832",
        ),
        // A sanctions measure's type: the listing cannot be understood.
        (
            r#"SanctionsTypeID="1705""#,
            r#"SanctionsTypeID="1706""#,
            "DistinctParty 36: SanctionsEntry 36: unknown SanctionsTypeID 1706",
            "36",
        ),
    ];
    for (i, (from, to, why, gone)) in cases.into_iter().enumerate() {
        assert_eq!(text.matches(from).count(), 1, "{from}");
        let list = read_bytes(&format!("ref{i}"), text.replacen(from, to, 1).as_bytes())
            .unwrap_or_else(|e| panic!("{to}: the file still reads: {e}"));
        assert_eq!(list.skipped, vec![why.to_owned()], "{to}");
        let ids: Vec<_> = list
            .entries
            .iter()
            .map(|e| e.source_entry_id.as_str())
            .collect();
        assert_eq!(ids.len(), 4, "{to}");
        assert!(!ids.contains(&gone), "{to}");
        for e in &list.entries {
            assert_eq!(
                e,
                entry(&e.source_entry_id),
                "{to}: the others read the same"
            );
        }
    }
}

#[test]
fn a_reference_value_missing_from_the_sets_skips_every_party_using_it() {
    // Without the name part type `Last Name` the individuals' names cannot be assembled.
    let text = sample_text().replace(r#"<NamePartType ID="1520">Last Name</NamePartType>"#, "");
    let list = read_bytes("last-name", text.as_bytes()).unwrap();
    let ids: Vec<_> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(ids, ["36", "306"]);
    assert_eq!(
        list.skipped,
        ["6832", "6905", "25057"]
            .map(|id| format!("DistinctParty {id}: unknown NamePartTypeID 1520"))
    );
    // Without the Latin script no party is left: the file holds no entries.
    let text = sample_text().replace(r#"<Script ID="215" ScriptCode="Latin">Latin</Script>"#, "");
    assert!(matches!(
        read_bytes("script", text.as_bytes()),
        Err(ReadError::Empty(_))
    ));
}

#[test]
fn other_formats_and_broken_files_are_malformed() {
    let un = testdata("un/un_sc_consolidated_2026-02-27.xml");
    let r = read_path(&un, Some(ListFormat::OfacAdvancedXml));
    assert!(is_malformed(&r), "the UN list is not this format");
    for (i, bad) in [
        &b"<CONSOLIDATED_LIST/>"[..],
        b"<CONSOLIDATED_LIST dateGenerated=\"2026-01-01T00:00:00Z\"><INDIVIDUALS/></CONSOLIDATED_LIST>",
        b"",
        b"garbage, not XML",
        b"\x00\x01\xff\xfe<\x80>",
        b"<Sanctions xmlns=\"http://www.un.org/sanctions/1.0\"/>",
        b"<Sanctions><ReferenceValueSets/>",
        b"{\"schema\": \"Person\"}",
        b"ent_num,name\n36,\"AEROCARIBBEAN AIRLINES\"\n",
    ]
    .into_iter()
    .enumerate()
    {
        let r = read_bytes(&format!("bad{i}"), bad);
        assert!(
            is_malformed(&r),
            "{:?} should be malformed: {r:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn truncated_copies_are_malformed() {
    let full = sample_text().into_bytes();
    // Cuts spread over the file, landing in tags, attributes and text alike.
    for i in 1..60 {
        // Never past the root's closing tag's last `>`.
        let cut = (full.len() * i / 60 + i * 11).min(full.len() - 3);
        let r = read_bytes("cut", &full[..cut]);
        assert!(is_malformed(&r), "cut at {cut}: {r:?}");
    }
    let r = read_bytes("cut-last", &full[..full.len() - "</Sanctions>\n".len()]);
    assert!(is_malformed(&r));
}

#[test]
fn mutated_copies_never_panic() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let full = sample_text().into_bytes();
    let file = TempFile::new("ofac-advanced", "mutant", b"");
    let (mut read, mut refused) = (0, 0);
    for round in 0..400 {
        let mut bytes = full.clone();
        for _ in 0..(1 + rng.next() % 12) {
            let at = (rng.next() as usize) % bytes.len();
            match rng.next() % 6 {
                0 => bytes[at] = rng.next() as u8,
                1 => {
                    bytes.remove(at);
                }
                2 => bytes[at] = b"<>&/;\"'=0123456789"[(rng.next() % 18) as usize],
                3 => bytes.insert(at, b'&'),
                // A digit changed: IDs that resolve to nothing, dates that are none.
                4 => {
                    if bytes[at].is_ascii_digit() {
                        bytes[at] = b'0' + (rng.next() % 10) as u8;
                    }
                }
                _ => {
                    let end = (at + (rng.next() % 400) as usize).min(bytes.len());
                    bytes.drain(at..end);
                }
            }
        }
        std::fs::write(&file.0, &bytes).unwrap();
        match read_path(&file.0, Some(ListFormat::OfacAdvancedXml)) {
            Ok(result) => {
                read += 1;
                // Whatever was read is whole, and mostly the sample's own entries.
                let list = &result.list;
                let kept = common::check_damaged_read(sample(), list, &format!("round {round}"));
                assert!(
                    kept * 4 >= list.entries.len(),
                    "round {round}: {kept} of {} entries intact",
                    list.entries.len()
                );
            }
            Err(ReadError::Malformed { .. } | ReadError::Empty(_)) => refused += 1,
            Err(other) => panic!("round {round}: {other}"),
        }
    }
    // Both outcomes are exercised.
    assert!(read > 20 && refused > 20, "{read} read, {refused} refused");
}
