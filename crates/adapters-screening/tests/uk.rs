//! The UK Sanctions List (FCDO XML) reader against the 5-designation fixture of 2026-09-10
//! (built from real records, hand-edited: see `testdata/uk/PROVENANCE.md`), through the
//! crate's public `read_path` and `detect`.

use adapters_screening::{detect, read_path, ListFormat, ReadError};
use chrono::{TimeZone, Utc};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedDate, ListedIdentifier, NameQuality, ParsedList,
};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;
use common::{country, day, ids_and_kinds, strong, testdata, weak, TempFile};

fn sample_path() -> PathBuf {
    testdata("uk/fcdo_uk_sanctions_list_excerpt_2026-09-10.xml")
}

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    common::read_once(&LIST, &sample_path(), ListFormat::UkXml)
}

fn entry(id: &str) -> &'static ListEntry {
    common::entry(sample(), id)
}

fn id(kind: &str, value: &str) -> ListedIdentifier {
    ListedIdentifier {
        kind: kind.into(),
        value: value.into(),
        country: None,
    }
}

#[test]
fn sample_reads_every_record() {
    let list = sample();
    assert_eq!(list.source, ListSource::UkSanctionsList);
    // <DateGenerated>10/09/2026</DateGenerated>: a day, taken at midnight UTC.
    assert_eq!(
        list.published_at,
        Some(Utc.with_ymd_and_hms(2026, 9, 10, 0, 0, 0).unwrap())
    );
    assert_eq!(list.skipped, Vec::<String>::new());
    let ids = ids_and_kinds(list);
    assert_eq!(
        ids,
        [
            ("AFG0001", EntryKind::Organisation),
            ("AFG0006", EntryKind::Person),
            ("BEL0107", EntryKind::Organisation),
            ("DPR0075", EntryKind::Vessel),
            ("AQD0195", EntryKind::Person),
        ]
    );
    for e in &list.entries {
        let id = &e.source_entry_id;
        assert_eq!(e.names[0].quality, NameQuality::Strong, "{id}");
        assert!(e.names.iter().all(|n| !n.full.is_empty()
            && n.full.trim() == n.full
            && !n.full.contains("  ")
            && !n.full.contains('\n')));
        assert_eq!(e.programs.len(), 1, "{id}");
        assert!(e.listed_on.is_some(), "{id}");
    }
}

#[test]
fn the_format_is_detected_from_the_content() {
    assert_eq!(detect(&sample_path()).unwrap(), ListFormat::UkXml);
    let read = read_path(&sample_path(), None).unwrap();
    assert_eq!(read.list.entries.len(), 5);
}

#[test]
fn the_read_is_digested() {
    let read = read_path(&sample_path(), Some(ListFormat::UkXml)).unwrap();
    assert!(read.digest.starts_with("sha256:"));
    assert_eq!(read.files, vec![sample_path()]);
}

#[test]
fn afg0006_dates_of_birth_including_partial_ones() {
    assert_eq!(
        entry("AFG0006"),
        &ListEntry {
            source_entry_id: "AFG0006".into(),
            kind: EntryKind::Person,
            names: vec![
                // Name1 Name2 Name6.
                strong("MOHAMMAD HASSAN AKHUND"),
                strong("محمد حسن آخوند"),
                // The Primary Name Variation.
                strong("Mohammad Akhwand"),
            ],
            // 12/05/1958, dd/mm/1945 and a bare 1946.
            birth_dates: vec![
                ListedDate::Day(day(1958, 5, 12)),
                ListedDate::Year(1945),
                ListedDate::Year(1946),
            ],
            nationalities: vec![country("AF", "Afghanistan")],
            // The address (Kabul) and the country of birth: one country.
            countries: vec![country("AF", "Afghanistan")],
            // The duplicated passport is kept once; its country is only in free text.
            identifiers: vec![
                id("passport", "P04581926"),
                id("national identifier", "2132370"),
            ],
            programs: vec!["The Afghanistan (Sanctions) (EU Exit) Regulations 2020".into()],
            listed_on: Some(day(2001, 1, 25)),
            exposure: None,
        }
    );
}

#[test]
fn dpr0075_ship_with_its_imo_number_and_flag() {
    assert_eq!(
        entry("DPR0075"),
        &ListEntry {
            source_entry_id: "DPR0075".into(),
            kind: EntryKind::Vessel,
            names: vec![strong("Petrel 8"), strong("Tian Tai 36")],
            birth_dates: vec![],
            nationalities: vec![],
            // The current flag (Comoros), not the previous one (India).
            countries: vec![country("KM", "Comoros")],
            // <IMONumber>IMO9562233</IMONumber>
            identifiers: vec![id("imo number", "9562233")],
            programs: vec![
                "The Democratic People's Republic of Korea (Sanctions) (EU Exit) Regulations 2019"
                    .into()
            ],
            listed_on: Some(day(2017, 10, 3)),
            exposure: None,
        }
    );
}

#[test]
fn bel0107_alias_strengths_and_registration_number() {
    let e = entry("BEL0107");
    assert_eq!(
        e.names,
        vec![
            strong("BNK (UK) Ltd"),
            strong("BNK UK Limited"),
            weak("BNK"),
        ]
    );
    assert_eq!(
        e.identifiers,
        vec![id(
            "business registration number",
            "UK Company no. 06527449"
        )]
    );
    assert_eq!(e.countries, vec![country("GB", "United Kingdom")]);
    assert!(e.nationalities.is_empty() && e.birth_dates.is_empty());
    assert_eq!(e.listed_on, Some(day(2021, 6, 21)));
}

#[test]
fn afg0001_entity_with_non_latin_name_and_two_address_countries() {
    assert_eq!(
        entry("AFG0001"),
        &ListEntry {
            source_entry_id: "AFG0001".into(),
            kind: EntryKind::Organisation,
            names: vec![
                strong("HAJI KHAIRULLAH MONEY EXCHANGE"),
                strong("حاجی خيرالله صرافی"),
                strong("Haji Alim Hawala"),
            ],
            birth_dates: vec![],
            nationalities: vec![],
            countries: vec![
                country("AF", "Afghanistan"),
                country("AE", "United Arab Emirates"),
            ],
            identifiers: vec![],
            programs: vec!["The Afghanistan (Sanctions) (EU Exit) Regulations 2020".into()],
            listed_on: Some(day(2012, 6, 29)),
            exposure: None,
        }
    );
}

#[test]
fn aqd0195_name_without_name6_and_a_year_only_birth_date() {
    let e = entry("AQD0195");
    assert_eq!(e.names, vec![strong("Fadhil Harun")]);
    assert_eq!(e.birth_dates, vec![ListedDate::Year(1972)]);
    assert_eq!(e.nationalities, vec![country("KM", "Comoros")]);
    assert_eq!(e.countries, vec![country("KM", "Comoros")]);
    assert!(e.identifiers.is_empty());
}

fn assert_malformed_path(tag: &str, path: &Path) {
    common::assert_malformed_path(ListFormat::UkXml, tag, path);
}

fn assert_malformed(tag: &str, bytes: &[u8]) {
    common::assert_malformed(ListFormat::UkXml, "uk-test", tag, bytes);
}

#[test]
fn not_this_format_is_malformed() {
    for other in [
        "un/un_sc_consolidated_2026-02-27.xml",
        "eu/fsf_xml_1_1_excerpt_2026-08-05.xml",
    ] {
        assert_malformed_path(other, &testdata(other));
    }
    let full = std::fs::read(sample_path()).unwrap();
    common::assert_cut_short_malformed(ListFormat::UkXml, "uk-test", &full, "Designations", 6);
    // Cut inside a multi-byte character of the Arabic name.
    assert_malformed("cut-in-char", &full[..common::find(&full, "محمد") + 1]);
}

#[test]
fn a_list_without_designations_is_empty() {
    let file = TempFile::new(
        "uk-test",
        "empty",
        b"<Designations><DateGenerated>10/09/2026</DateGenerated></Designations>",
    );
    assert!(matches!(
        read_path(&file.0, Some(ListFormat::UkXml)),
        Err(ReadError::Empty(_))
    ));
}
