//! OFAC's legacy CSV sets read through the public `read_path`, on the samples in
//! `testdata/` (see `testdata/PROVENANCE.md`) and on crafted sets.

mod common;

use adapters_screening::{read_path, ListFormat, ReadError};
use chrono::NaiveDate;
use common::{country, entry, id, ids_and_kinds};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedDate, NameQuality, ParsedList,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

fn testdata(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(p)
}

fn read(p: &Path) -> Result<ParsedList, ReadError> {
    read_path(p, Some(ListFormat::OfacCsv)).map(|r| r.list)
}

fn sdn() -> ParsedList {
    read(&testdata("ofac_sdn_2021-07")).expect("the SDN sample reads")
}

fn cons() -> ParsedList {
    read(&testdata("ofac_cons_2025-12")).expect("the consolidated sample reads")
}

fn names(e: &ListEntry, quality: NameQuality) -> Vec<&str> {
    e.names
        .iter()
        .filter(|n| n.quality == quality)
        .map(|n| n.full.as_str())
        .collect()
}

fn day(y: i32, m: u32, d: u32) -> ListedDate {
    ListedDate::Day(NaiveDate::from_ymd_opt(y, m, d).unwrap())
}

fn key(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The records of a sample file (the samples are ASCII), read independently of the reader.
fn rows(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    reader
        .records()
        .map(|r| r.unwrap().iter().map(|f| f.trim().to_owned()).collect())
        .filter(|r: &Vec<String>| r.len() > 1)
        .collect()
}

#[test]
fn the_sdn_sample_reads_every_record_with_its_kind() {
    let list = sdn();
    assert_eq!(list.source, ListSource::OfacSdn);
    assert_eq!(list.published_at, None);
    assert_eq!(list.skipped, Vec::<String>::new());
    assert_eq!(list.entries.len(), 8976);
    let mut kinds = BTreeMap::new();
    for e in &list.entries {
        *kinds.entry(e.kind.as_str()).or_insert(0) += 1;
    }
    assert_eq!(
        kinds,
        BTreeMap::from([
            ("aircraft", 277),
            ("organisation", 3673),
            ("person", 4620),
            ("vessel", 406)
        ])
    );
    let ids: HashSet<_> = list.entries.iter().map(|e| &e.source_entry_id).collect();
    assert_eq!(ids.len(), 8976);
    for e in &list.entries {
        assert_eq!(
            e.names[0].quality,
            NameQuality::Strong,
            "{}",
            e.source_entry_id
        );
        assert!(!e.programs.is_empty(), "{}", e.source_entry_id);
        assert_eq!(e.listed_on, None);
    }
    // Every DOB item of the remarks is read: 5,125 items, one repeated within its entry.
    let dates: usize = list.entries.iter().map(|e| e.birth_dates.len()).sum();
    assert_eq!(dates, 5124);
}

#[test]
fn every_sdn_alias_row_is_attached_as_a_strong_name() {
    let list = sdn();
    let by_id: HashMap<_, _> = list
        .entries
        .iter()
        .map(|e| (e.source_entry_id.as_str(), e))
        .collect();
    let alt = rows(&testdata("ofac_sdn_2021-07/alt.csv"));
    assert_eq!(alt.len(), 11910);
    let mut written: HashMap<&str, HashSet<String>> = HashMap::new();
    for row in rows(&testdata("ofac_sdn_2021-07/sdn.csv")) {
        let e = by_id[row[0].as_str()];
        written
            .entry(&e.source_entry_id)
            .or_default()
            .insert(key(&row[1]));
    }
    for row in &alt {
        let e = by_id[row[0].as_str()];
        let strong: Vec<String> = names(e, NameQuality::Strong).into_iter().map(key).collect();
        assert!(
            strong.contains(&key(&row[3])),
            "alias {:?} of {}",
            row[3],
            row[0]
        );
        written
            .entry(&e.source_entry_id)
            .or_default()
            .insert(key(&row[3]));
    }
    // 11,910 alias rows, 6 of which repeat a name their entry already has: 11,904 aliases.
    let as_written: usize = written.values().map(HashSet::len).sum();
    assert_eq!(as_written, 8976 + 11904);
    let strong: usize = list
        .entries
        .iter()
        .map(|e| names(e, NameQuality::Strong).len())
        .sum();
    // Each individual's `LAST, First` name is also kept as `First LAST`: 10,838 more.
    assert_eq!(strong, 8976 + 11904 + 10838);
    let weak: usize = list
        .entries
        .iter()
        .map(|e| names(e, NameQuality::Weak).len())
        .sum();
    assert_eq!(weak, 2916);
}

#[test]
fn an_individual_reads_field_by_field() {
    // 7828,"AMDOUNI, Mehrez","individual","SDGT",…,"DOB 18 Dec 1969; alt. DOB 25 May 1968;
    // alt. DOB 18 Dec 1968; alt. DOB 14 Jul 1969; POB Tunis, Tunisia; alt. POB Naples,
    // Italy; alt. POB Algeria; nationality Tunisia; Passport G737411 (Tunisia) issued 24 Oct
    // 1990 expires 20 Sep 1997; alt. Passport 0801888 (Bosnia and Herzegovina); a.k.a. 'ABU
    // THALE'." with six aliases in alt.csv and one address without a country.
    let list = sdn();
    let e = entry(&list, "7828");
    assert_eq!(e.kind, EntryKind::Person);
    assert_eq!(
        names(e, NameQuality::Strong),
        [
            "Mehrez AMDOUNI",
            "AMDOUNI, Mehrez",
            "Fabio FUSCO",
            "FUSCO, Fabio",
            "Mohamed HASSAN",
            "HASSAN, Mohamed",
            "Mehrez Ben Mahmoud Ben Sassi AL-AMDOUNI",
            "AL-AMDOUNI, Mehrez Ben Mahmoud Ben Sassi",
            "Meherez HAMDOUNI",
            "HAMDOUNI, Meherez",
            "Mehrez ben Tah AMDOUNI",
            "AMDOUNI, Mehrez ben Tah",
            "Meherez ben Ahdoud ben AMDOUNI",
            "AMDOUNI, Meherez ben Ahdoud ben",
        ]
    );
    assert_eq!(names(e, NameQuality::Weak), ["ABU THALE"]);
    assert_eq!(
        e.birth_dates,
        [
            day(1969, 12, 18),
            day(1968, 5, 25),
            day(1968, 12, 18),
            day(1969, 7, 14)
        ]
    );
    assert_eq!(e.nationalities, [country("TN", "Tunisia")]);
    assert_eq!(
        e.countries,
        [
            country("TN", "Tunisia"),
            country("IT", "Italy"),
            country("DZ", "Algeria")
        ]
    );
    assert_eq!(
        e.identifiers,
        [
            id("passport", "G737411", Some("TN")),
            id("passport", "0801888", Some("BA"))
        ]
    );
    assert_eq!(e.programs, ["SDGT"]);
    assert_eq!(e.listed_on, None);
}

#[test]
fn an_entity_with_a_registration_number_and_addresses_in_two_countries() {
    // 25679,"PERSIA INTERNATIONAL BANK PLC",-0- ,"SDGT] [IFSR",…,"SWIFT/BIC PIBPGB2L; Website
    // www.persiabank.co.uk; Additional Sanctions Information - Subject to Secondary
    // Sanctions; Registration Number 4218020 (United Kingdom); All Offices Worldwide; Linked
    // To: BANK MELLAT." with addresses in London and Dubai.
    let list = sdn();
    let e = entry(&list, "25679");
    assert_eq!(e.kind, EntryKind::Organisation);
    assert_eq!(
        names(e, NameQuality::Strong),
        ["PERSIA INTERNATIONAL BANK PLC"]
    );
    assert!(names(e, NameQuality::Weak).is_empty());
    assert!(e.birth_dates.is_empty());
    assert!(e.nationalities.is_empty());
    assert_eq!(
        e.countries,
        [
            country("GB", "United Kingdom"),
            country("AE", "United Arab Emirates")
        ]
    );
    assert_eq!(
        e.identifiers,
        [
            id("swift/bic", "PIBPGB2L", None),
            id("registration number", "4218020", Some("GB"))
        ]
    );
    assert_eq!(e.programs, ["SDGT", "IFSR"]);

    // An entity's comma is its name's: no reordering. 306 has an alias and a weak alias.
    let e = entry(&list, "480");
    assert_eq!(e.names.len(), 1);
    assert_eq!(e.names[0].full, "CECOEX, S.A.");
    let e = entry(&list, "306");
    assert_eq!(
        names(e, NameQuality::Strong),
        ["BANCO NACIONAL DE CUBA", "NATIONAL BANK OF CUBA"]
    );
    assert_eq!(names(e, NameQuality::Weak), ["BNC"]);
}

#[test]
fn a_vessel_with_its_flag_and_call_sign() {
    // 4243,"SAND SWAN","vessel","CUBA",-0- ,"P3QG3","General Cargo","2595","1116","Cyprus",
    // "Sand & Swan Navigation Co. Ltd.","f.k.a. 'ANA I'."
    let list = sdn();
    let e = entry(&list, "4243");
    assert_eq!(e.kind, EntryKind::Vessel);
    assert_eq!(names(e, NameQuality::Strong), ["SAND SWAN"]);
    assert_eq!(names(e, NameQuality::Weak), ["ANA I"]);
    assert_eq!(e.countries, [country("CY", "Cyprus")]);
    assert_eq!(e.identifiers, [id("call sign", "P3QG3", None)]);
    assert_eq!(e.programs, ["CUBA"]);
    assert!(e.birth_dates.is_empty() && e.nationalities.is_empty());

    // Every vessel registration (IMO) number of the remarks is an identifier.
    let in_file = std::fs::read_to_string(testdata("ofac_sdn_2021-07/sdn.csv"))
        .unwrap()
        .matches("Vessel Registration Identification ")
        .count();
    let read: Vec<_> = list
        .entries
        .iter()
        .flat_map(|e| &e.identifiers)
        .filter(|i| i.kind == "vessel registration identification")
        .collect();
    assert_eq!(read.len(), in_file);
    assert_eq!(read.len(), 410);
    assert!(read.contains(&&id(
        "vessel registration identification",
        "IMO 9187629",
        None
    )));
}

#[test]
fn circa_dates_and_ranges_widen() {
    let list = sdn();
    // "DOB circa 1951; POB Foca, Bosnia-Herzegovina."
    let e = entry(&list, "7782");
    assert_eq!(
        e.birth_dates,
        [ListedDate::Years {
            from: 1950,
            to: 1952
        }]
    );
    assert_eq!(e.countries, [country("BA", "Bosnia-Herzegovina")]);
    // "DOB 1929 to 1930; Linked To: SUMIYOSHI-KAI."
    let e = entry(&list, "15496");
    assert_eq!(
        e.birth_dates,
        [ListedDate::Years {
            from: 1929,
            to: 1930
        }]
    );
    let dates = |id: &str| entry(&list, id).birth_dates.clone();
    // "DOB circa 07 Jul 1966; POB Lanao del Sur, Philippines."
    assert_eq!(
        dates("7929"),
        [ListedDate::Years {
            from: 1965,
            to: 1967
        }]
    );
    // "nationality Somalia; DOB circa 1979-1982; alt. DOB 1982; …"
    assert_eq!(
        dates("11748"),
        [
            ListedDate::Years {
                from: 1978,
                to: 1983
            },
            ListedDate::Year(1982)
        ]
    );
    // "DOB 01 Jan 1973 to 31 Dec 1973" is the year; "01 Oct 1992 to 31 Oct 1992" the month.
    assert_eq!(dates("17166"), [ListedDate::Year(1973)]);
    assert_eq!(
        dates("20700"),
        [ListedDate::Month {
            year: 1992,
            month: 10
        }]
    );
    // "DOB Mar 1962 to Feb 1963".
    assert_eq!(
        dates("23470"),
        [ListedDate::Years {
            from: 1962,
            to: 1963
        }]
    );
    // "Passport Z3079423 (India) expires 01 Jan 2026 to 31 Dec 2026": the expiry dropped.
    assert!(entry(&list, "27265")
        .identifiers
        .contains(&id("passport", "Z3079423", Some("IN"))));
}

#[test]
fn remarks_continue_in_the_comments_file() {
    let list = sdn();
    // 28264's remarks end "…; P" in sdn.csv and go on "hone Number …; Identification
    // Number 210302198701102136 (China); a.k.a. 'blackjack1987'; a.k.a. 'khaleesi'; …" in
    // sdn_comments.csv.
    let e = entry(&list, "28264");
    assert!(
        e.identifiers.contains(&id(
            "identification number",
            "210302198701102136",
            Some("CN")
        )),
        "{:?}",
        e.identifiers
    );
    let weak = names(e, NameQuality::Weak);
    assert!(weak.contains(&"blackjack1987") && weak.contains(&"khaleesi"));
    // 28263's cut falls inside a weak alias: "a.k.a. 'snowsjo" + "hn'".
    let e = entry(&list, "28263");
    assert!(names(e, NameQuality::Weak).contains(&"snowsjohn"));
}

#[test]
fn the_consolidated_sample_reads() {
    let list = cons();
    assert_eq!(list.source, ListSource::OfacConsolidated);
    assert_eq!(list.skipped, Vec::<String>::new());
    assert_eq!(list.entries.len(), 442);
    let persons = list
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Person)
        .count();
    assert_eq!(persons, 79);
    assert!(list
        .entries
        .iter()
        .all(|e| matches!(e.kind, EntryKind::Person | EntryKind::Organisation)));
    let alt = rows(&testdata("ofac_cons_2025-12/cons_alt.csv"));
    assert_eq!(alt.len(), 1073);
    for row in &alt {
        let e = entry(&list, &row[0]);
        let strong: Vec<String> = names(e, NameQuality::Strong).into_iter().map(key).collect();
        assert!(
            strong.contains(&key(&row[3])),
            "alias {:?} of {}",
            row[3],
            row[0]
        );
    }
    // 9639,"HANIYA, Ismail Abdul Salah","individual","NS-PLC",…,"DOB 1962; POB Shati."
    let e = entry(&list, "9639");
    assert_eq!(e.kind, EntryKind::Person);
    assert_eq!(e.names[0].full, "Ismail Abdul Salah HANIYA");
    assert_eq!(e.names[1].full, "HANIYA, Ismail Abdul Salah");
    assert!(names(e, NameQuality::Strong).contains(&"Ismail HANIYA"));
    assert_eq!(e.birth_dates, [ListedDate::Year(1962)]);
    assert!(e.countries.is_empty(), "a town alone ties no country");
    assert_eq!(e.programs, ["NS-PLC"]);
    // 17014: two programmes, a SWIFT code, and remarks continued in cons_comments.csv.
    let e = entry(&list, "17014");
    assert_eq!(e.programs, ["UKRAINE-EO13662", "RUSSIA-EO14024"]);
    assert!(e.identifiers.contains(&id("swift/bic", "RUAGRUMM", None)));
    assert!(names(e, NameQuality::Weak).contains(&"RUSAG"));
}

#[test]
fn the_primary_file_names_its_set() {
    let by_file = read(&testdata("ofac_sdn_2021-07/sdn.csv")).unwrap();
    assert_eq!(by_file, sdn());
    let by_file = read(&testdata("ofac_cons_2025-12/cons_prim.csv")).unwrap();
    assert_eq!(by_file, cons());
}

/// A fresh folder for a crafted set.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ofac_csv-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn malformed(result: Result<ParsedList, ReadError>) -> String {
    match result {
        Err(ReadError::Malformed {
            format: "ofac-csv",
            detail,
        }) => detail,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn a_file_of_another_format_is_malformed() {
    let un = std::fs::read(testdata("un/un_sc_consolidated_2026-02-27.xml")).unwrap();
    let dir = scratch("un");
    std::fs::write(dir.join("sdn.csv"), &un).unwrap();
    let detail = malformed(read(&dir));
    assert!(detail.contains("sdn.csv line 1"), "{detail}");

    let dir = scratch("garbage");
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("sdn.csv"), &garbage).unwrap();
    malformed(read(&dir));

    // A sound primary file with a companion of another format.
    let dir = scratch("bad-companion");
    std::fs::write(
        dir.join("cons_prim.csv"),
        "1,\"A\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n",
    )
    .unwrap();
    std::fs::write(dir.join("cons_alt.csv"), &un).unwrap();
    let detail = malformed(read(&dir));
    assert!(detail.contains("cons_alt.csv"), "{detail}");

    // An empty file holds no entries.
    let dir = scratch("empty");
    std::fs::write(dir.join("sdn.csv"), b"\x1a").unwrap();
    assert!(matches!(read(&dir), Err(ReadError::Empty(_))));
}

#[test]
fn records_the_reader_cannot_use_are_skipped_and_named() {
    let dir = scratch("odd");
    let mut sdn = Vec::new();
    sdn.extend_from_slice(
        b"10,\"JOS\xc9 GARC\xcdA, Mar\xeda\",\"individual\",\"SDNTK] [ ILLICIT-DRUGS-EO14059\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB 31 Feb 1960; DOB sometime; nationality M\xe9xico; Passport 1234 (Pa\xeds Desconocido); a.k.a. '\x93EL GORDO\x94'; Gender Male.\"\r\n",
    );
    sdn.extend_from_slice(b"11,\"SHORT\",\"individual\"\r\n");
    sdn.extend_from_slice(
        b"x12,\"NOT A NUMBER\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n",
    );
    sdn.extend_from_slice(b"13,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n");
    sdn.extend_from_slice(b"10,\"TWICE\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n");
    sdn.extend_from_slice(
        b"14,\"AN AIRLINE\",\"aircraft\",\"IRAN\",-0- ,-0- ,-0- ,-0- ,-0- ,\"Man, Isle of\",-0- ,\"Aircraft Tail Number EP-MMH; DOB (((; POB ,,,; Passport (; a.k.a. '.\"\r\n",
    );
    sdn.extend_from_slice(
        b"15,\"SOMETHING\",\"ship\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a",
    );
    std::fs::write(dir.join("sdn.csv"), &sdn).unwrap();
    std::fs::write(
        dir.join("alt.csv"),
        "10,1,\"aka\",\"GORDO, El\",-0- \r\n99,2,\"aka\",\"ORPHAN\",-0- \r\n14,3,\"aka\",-0- ,-0- \r\n14,4,\"aka\",\"BAD\"\r\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("add.csv"),
        "10,1,-0- ,\"Culiacan\",\"Mexico\",-0- \r\n10,2,-0- ,-0- ,\"undetermined\",-0- \r\n98,3,-0- ,-0- ,\"Iran\",-0- \r\n",
    )
    .unwrap();
    std::fs::write(dir.join("sdn_comments.csv"), "97,\"orphan remark\"\r\n").unwrap();

    let list = read(&dir).unwrap();
    assert_eq!(
        list.skipped,
        [
            "sdn.csv line 2: 3 columns, a record has 12",
            "sdn.csv line 3: ent_num \"x12\" is not a number",
            "sdn.csv line 4: ent_num 13 has no name",
            "sdn.csv line 5: ent_num 10 is listed twice",
            "sdn_comments.csv line 1: ent_num 97 is not in the primary file",
            "alt.csv line 2: ent_num 99 is not in the primary file",
            "alt.csv line 3: the alias of ent_num 14 has no name",
            "alt.csv line 4: 4 columns, a record has 5",
            "add.csv line 3: ent_num 98 is not in the primary file",
        ]
    );
    let ids = ids_and_kinds(&list);
    assert_eq!(
        ids,
        [
            ("10", EntryKind::Person),
            ("14", EntryKind::Aircraft),
            ("15", EntryKind::Other)
        ]
    );

    // Windows-1252 decoded; an impossible day kept as its month; an unreadable DOB ignored.
    let e = entry(&list, "10");
    assert_eq!(
        names(e, NameQuality::Strong),
        [
            "María JOSÉ GARCÍA",
            "JOSÉ GARCÍA, María",
            "El GORDO",
            "GORDO, El"
        ]
    );
    assert_eq!(names(e, NameQuality::Weak), ["“EL GORDO”"]);
    assert_eq!(e.programs, ["SDNTK", "ILLICIT-DRUGS-EO14059"]);
    assert_eq!(
        e.birth_dates,
        [ListedDate::Month {
            year: 1960,
            month: 2
        }]
    );
    assert_eq!(e.nationalities, [country("MX", "México")]);
    assert_eq!(e.countries, [country("MX", "Mexico")]);
    assert_eq!(e.identifiers, [id("passport", "1234", None)]);

    let e = entry(&list, "14");
    assert_eq!(e.countries, [country("IM", "Man, Isle of")]);
    assert_eq!(e.identifiers, [id("aircraft tail number", "EP-MMH", None)]);
    assert!(e.birth_dates.is_empty());
    assert_eq!(e.names.len(), 1);
}

#[test]
fn mutated_samples_never_panic() {
    let sample = |name: &str| {
        let bytes = std::fs::read(testdata(&format!("ofac_sdn_2021-07/{name}"))).unwrap();
        bytes[..bytes.len().min(40_000)].to_vec()
    };
    let files = [
        ("sdn.csv", sample("sdn.csv")),
        ("alt.csv", sample("alt.csv")),
        ("add.csv", sample("add.csv")),
        ("sdn_comments.csv", sample("sdn_comments.csv")),
    ];
    let dir = scratch("mutated");
    // The undamaged copies (the samples' first 40 kB) first: what damage is measured against.
    for (name, original) in &files {
        std::fs::write(dir.join(name), original).unwrap();
    }
    let undamaged = read(&dir).expect("the cut samples read");
    assert!(undamaged.entries.len() > 100, "{}", undamaged.entries.len());
    let (mut read_rounds, mut refused) = (0, 0);
    let noise = b"\",;()'\r\n\x1a\xc3\xa9\x80\x00-0- 9";
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..40 {
        for (name, original) in &files {
            let mut bytes = original.clone();
            for _ in 0..200 {
                let at = (next() as usize) % bytes.len();
                bytes[at] = noise[(next() as usize) % noise.len()];
            }
            let cut = (next() as usize) % bytes.len();
            bytes.truncate(bytes.len() - cut / 4);
            std::fs::write(dir.join(name), &bytes).unwrap();
        }
        // Entries with some records skipped, or Malformed; never a panic or half an entry.
        match read(&dir) {
            Ok(list) => {
                read_rounds += 1;
                assert!(!list.entries.is_empty(), "round {round}");
                assert!(!list.skipped.is_empty(), "round {round}: damage unnoticed");
                let kept = common::check_damaged_read(&undamaged, &list, &format!("round {round}"));
                // Scattered byte damage leaves most records alone.
                assert!(
                    kept * 4 >= list.entries.len(),
                    "round {round}: {kept} of {} entries intact",
                    list.entries.len()
                );
            }
            Err(ReadError::Malformed { .. } | ReadError::Empty(_)) => refused += 1,
            Err(other) => panic!("round {round}: {other:?}"),
        }
    }
    // Both outcomes are exercised.
    assert!(
        read_rounds >= 5 && refused >= 5,
        "{read_rounds} read, {refused} refused"
    );
}
