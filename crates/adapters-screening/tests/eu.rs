//! The EU FSF XML 1.1 reader against the real 5-record excerpt of 2026-08-05, through the
//! crate's public `read_path` and `detect`.

use adapters_screening::{detect, read_path, ListFormat, ReadError};
use chrono::{NaiveDate, TimeZone, Utc};
use domain::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality, ParsedList,
};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

fn sample_path() -> PathBuf {
    testdata("eu/fsf_xml_1_1_excerpt_2026-08-05.xml")
}

fn legacy_path() -> PathBuf {
    testdata("eu/legacy_v1_0_2016/eu_global_v1_0_2016-02-11.xml")
}

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    LIST.get_or_init(|| {
        read_path(&sample_path(), Some(ListFormat::EuXml))
            .expect("the sample reads")
            .list
    })
}

fn entry(id: &str) -> &'static ListEntry {
    sample()
        .entries
        .iter()
        .find(|e| e.source_entry_id == id)
        .unwrap_or_else(|| panic!("{id} is in the sample"))
}

fn strong(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Strong,
    }
}

fn weak(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Weak,
    }
}

fn country(code: &str, name: &str) -> ListedCountry {
    ListedCountry {
        code: Some(code.into()),
        name: name.into(),
    }
}

fn id(kind: &str, value: &str, country: Option<&str>) -> ListedIdentifier {
    ListedIdentifier {
        kind: kind.into(),
        value: value.into(),
        country: country.map(Into::into),
    }
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn sample_reads_every_record() {
    let list = sample();
    assert_eq!(list.source, ListSource::EuFinancialSanctions);
    // generationDate="2026-08-05T16:47:04.449+02:00"
    assert_eq!(
        list.published_at,
        Some(
            Utc.with_ymd_and_hms(2026, 8, 5, 14, 47, 4).unwrap()
                + chrono::Duration::milliseconds(449)
        )
    );
    assert_eq!(list.skipped, Vec::<String>::new());
    let ids: Vec<_> = list
        .entries
        .iter()
        .map(|e| (e.source_entry_id.as_str(), e.kind))
        .collect();
    assert_eq!(
        ids,
        [
            ("EU.3579.2", EntryKind::Person),
            ("EU.502.12", EntryKind::Person),
            ("EU.3953.70", EntryKind::Organisation),
            ("EU.3886.3", EntryKind::Person),
            ("EU.3092.36", EntryKind::Person),
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
    }
    // Counted from the file: 7 + 3 + 16 + 4 + 15 nameAlias elements, each with a
    // wholeName, no two alike.
    let names: usize = list.entries.iter().map(|e| e.names.len()).sum();
    assert_eq!(names, 45);
}

#[test]
fn the_format_is_detected_from_the_content() {
    assert_eq!(detect(&sample_path()).unwrap(), ListFormat::EuXml);
    let read = read_path(&sample_path(), None).unwrap();
    assert_eq!(read.list.entries.len(), 5);
    assert!(read.digest.starts_with("sha256:"));
    assert_eq!(read.files, vec![sample_path()]);
}

#[test]
fn eu_3579_2_first_entered_name_leads_and_unknown_countries_are_none() {
    // No designationDate; the names are in no useful order in the file (the latest
    // amendments first): the one with the lowest logicalId (289) is the designated name.
    assert_eq!(
        entry("EU.3579.2"),
        &ListEntry {
            source_entry_id: "EU.3579.2".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Khalid Sheikh MOHAMMED"),
                strong("Bin Khalid Fahd Bin Adballah"),
                strong("Wadood Khalid Adbul"),
                strong("Henin Ashraf Refaat Nabith"),
                strong("Bin Khalid Fahd Bin Abdallah"),
                strong("Wadood Khalid Abdul"),
                strong("Ali Salem"),
            ],
            birth_dates: vec![
                ListedDate::Day(day(1965, 4, 14)),
                ListedDate::Day(day(1964, 3, 1)),
            ],
            nationalities: vec![],
            // Both places of birth are in Pakistan: one country.
            countries: vec![country("PK", "PAKISTAN")],
            // countryIso2Code="00": no issuing country.
            identifiers: vec![id("national passport", "488555", None)],
            programs: vec!["TERR".into()],
            listed_on: None,
        }
    );
}

#[test]
fn eu_502_12_circa_year_range_is_kept_as_the_range() {
    // Two birthdate elements, both circa="true" yearRangeFrom="1953" yearRangeTo="1958"
    // (remark "between 1953 and 1958"): one span, not widened.
    assert_eq!(
        entry("EU.502.12"),
        &ListEntry {
            source_entry_id: "EU.502.12".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Haji Ahmad Jan"),
                strong("Ahmed Jan Akhund"),
                strong("Ahmed Jan Akhundzada Wazir"),
            ],
            birth_dates: vec![ListedDate::Years {
                from: 1953,
                to: 1958
            }],
            nationalities: vec![country("AF", "AFGHANISTAN")],
            countries: vec![country("AF", "AFGHANISTAN")],
            identifiers: vec![],
            programs: vec!["AFG".into()],
            listed_on: Some(day(2001, 1, 25)),
        }
    );
}

#[test]
fn eu_3953_70_enterprise_with_multilingual_aliases_registration_number_and_addresses() {
    assert_eq!(
        entry("EU.3953.70"),
        &ListEntry {
            source_entry_id: "EU.3953.70".into(),
            kind: EntryKind::Organisation,
            names: vec![
                // logicalId 5202: the English name the entity was designated under.
                strong("Parchin Chemical Industries (PCI)"),
                // "Tionscail  Ceimiceán Parchin" in the file: whitespace collapsed.
                strong("Tionscail Ceimiceán Parchin"),
                strong("Parcsini Vegyipari Vállalat"),
                strong("Industrias Químicas Parchin"),
                strong("Parchin-Militärbasis"),
                strong("Parchin Chemical Ind (PCF)"),
                strong("Para Chemical Industries"),
                strong("PCF"),
                strong("صنایع شیمیایی پارچین"),
                strong("PCF Chemical Industries Group"),
                strong("Parchin Chemical Factories Chemical Industries Group"),
                strong("PCI"),
                strong("PCI Group"),
                strong("Parchin Chemical Industry Group"),
                strong("Parchin Chemical Factories"),
                strong("Parchin Military Base"),
            ],
            birth_dates: vec![],
            nationalities: vec![],
            // Six addresses, all in Iran.
            countries: vec![country("IR", "IRAN (ISLAMIC REPUBLIC OF)")],
            identifiers: vec![id("registration number", "892", None)],
            programs: vec!["IRN".into()],
            listed_on: Some(day(2008, 6, 23)),
        }
    );
}

#[test]
fn eu_3886_3_good_quality_alias_and_a_passport_with_its_country() {
    assert_eq!(
        entry("EU.3886.3"),
        &ListEntry {
            source_entry_id: "EU.3886.3".into(),
            kind: EntryKind::Person,
            names: vec![
                strong("Abu Zayd Umar DORDA"),
                strong("Dorda Abuzed OE"),
                strong("ABÚ ZAJD UMAR DÚRDA"),
                strong("Abu Zayd Umar Hmeid Dorda"),
            ],
            birth_dates: vec![ListedDate::Day(day(1944, 4, 4))],
            nationalities: vec![],
            // The place of birth is "00"/UNKNOWN: only the address counts.
            countries: vec![country("LY", "LIBYA")],
            identifiers: vec![id("national passport", "FK117RK0", Some("LY"))],
            programs: vec!["LBY".into()],
            listed_on: Some(day(2011, 2, 26)),
        }
    );
}

#[test]
fn eu_3092_36_low_quality_aliases_are_weak_and_the_islamic_date_is_not_gregorian() {
    let e = entry("EU.3092.36");
    assert_eq!(
        e.names,
        vec![
            strong("Ibrahim Hassan Tali Al-Asiri"),
            strong("إبراهيم حسن طالع عسيري"),
            strong("إبراهيم حسن طالع العسيري"),
            strong("Ibrahim al-'Asiri"),
            // remark "low quality alias" (twice) and "low quality aliias".
            weak("Abu-Salaah"),
            weak("Abosslah"),
            weak("Abu Saleh"),
            strong("Ibrahim Hassan Al Asiri"),
            strong("Ibrahim Hasan Tali al-’Asiri"),
            strong("Ibrahim Hassan Tali Asiri"),
            strong("Ibrahim Hasan Talea Aseeri"),
            strong("Ibrahim Hassan al-Asiri"),
            strong("Ibrahim Hasan Tali Asiri"),
            strong("Ibrahim Hassan Tali Assiri"),
            strong("Ibrahim Hasan Tali’A ’Asiri"),
        ]
    );
    // The ISLAMIC birthdate (24/6/1402, with a Gregorian-looking birthdate="1982-04-19")
    // is converted to what it can honestly say: April 1982.
    assert_eq!(
        e.birth_dates,
        vec![
            ListedDate::Day(day(1982, 4, 18)),
            ListedDate::Month {
                year: 1982,
                month: 4
            },
            ListedDate::Day(day(1982, 4, 19)),
        ]
    );
    assert_eq!(e.nationalities, vec![country("SA", "SAUDI ARABIA")]);
    assert_eq!(
        e.countries,
        vec![country("SA", "SAUDI ARABIA"), country("YE", "YEMEN")]
    );
    // The expired passport is kept.
    assert_eq!(
        e.identifiers,
        vec![
            id("national identification card", "1028745097", Some("SA")),
            id("national passport", "F654645", Some("SA")),
        ]
    );
    assert_eq!(e.programs, vec!["TAQA".to_string()]);
    assert_eq!(e.listed_on, Some(day(2011, 3, 24)));
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("idreg-eu-test-{}-{tag}.xml", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn assert_malformed_path(tag: &str, path: &Path) {
    match read_path(path, Some(ListFormat::EuXml)) {
        Err(ReadError::Malformed { format, .. }) => assert_eq!(format, "eu-xml", "{tag}"),
        other => panic!("{tag}: expected Malformed, got {other:?}"),
    }
}

fn assert_malformed(tag: &str, bytes: &[u8]) {
    let file = TempFile::new(tag, bytes);
    assert_malformed_path(tag, &file.0);
}

#[test]
fn the_obsolete_v1_0_file_is_another_format() {
    // The complete 2016 list in the retired layout (<WHOLE>, no namespace): not detected as
    // the FSF 1.1 format, and refused when named as it.
    assert!(matches!(
        detect(&legacy_path()),
        Err(ReadError::UnknownFormat(_))
    ));
    assert_malformed_path("legacy", &legacy_path());
}

#[test]
fn not_this_format_is_malformed() {
    assert_malformed("nope", b"<nope/>");
    assert_malformed("binary", &[0x00, 0xff, 0x13, 0x37, 0x80, 0x3c, 0xfe, 0x7f]);
    assert_malformed(
        "no-namespace",
        b"<export generationDate=\"2026-08-05T16:47:04\"><sanctionEntity/></export>",
    );
    for other in [
        "un/un_sc_consolidated_2026-02-27.xml",
        "uk/fcdo_uk_sanctions_list_excerpt_2026-09-10.xml",
    ] {
        assert_malformed_path(other, &testdata(other));
    }
    let full = std::fs::read(sample_path()).unwrap();
    assert_malformed("half", &full[..full.len() / 2]);
    let root_end = full
        .windows(b"</export>".len())
        .rposition(|w| w == b"</export>")
        .unwrap();
    assert_malformed("no-root-end", &full[..root_end]);
    assert_malformed("cut-in-root-end", &full[..root_end + 4]);
    // Cut inside a multi-byte character of the Persian alias.
    let persian = full
        .windows("صنایع".len())
        .position(|w| w == "صنایع".as_bytes())
        .unwrap();
    assert_malformed("cut-in-char", &full[..persian + 1]);
}

#[test]
fn an_export_without_records_is_empty() {
    let file = TempFile::new(
        "empty",
        b"<export xmlns=\"http://eu.europa.ec/fpi/fsd/export\" generationDate=\"2026-08-05T16:47:04.449+02:00\"/>",
    );
    assert!(matches!(
        read_path(&file.0, Some(ListFormat::EuXml)),
        Err(ReadError::Empty(_))
    ));
}
