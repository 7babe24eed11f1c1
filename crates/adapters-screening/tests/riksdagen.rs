//! The Riksdag's member list read as a PEP list: the synthetic sample in the official shape,
//! through `read_path` and `detect`.

mod common;

use adapters_screening::{detect, ListFormat};
use chrono::{TimeZone, Utc};
use common::{entry, testdata};
use domain::screening::sanctions::{
    ExposureRole, HeldPosition, ListSource, ListedDate, ParsedList, SetAside, TermStatus,
};
use std::sync::OnceLock;

const FILE: &str = "pep/riksdagen-personlista.synthetic.json";

fn sample() -> &'static ParsedList {
    static LIST: OnceLock<ParsedList> = OnceLock::new();
    common::read_once(&LIST, &testdata(FILE), ListFormat::RiksdagenJson)
}

fn term(title: &str, from: &str, tom: Option<&str>, status: TermStatus) -> HeldPosition {
    HeldPosition {
        title: title.into(),
        country: Some("SE".into()),
        start: ListedDate::from_wire(from),
        end: tom.and_then(ListedDate::from_wire),
        status,
    }
}

#[test]
fn the_format_is_detected() {
    assert_eq!(detect(&testdata(FILE)).unwrap(), ListFormat::RiksdagenJson);
}

#[test]
fn members_ministers_and_party_leaders_with_their_terms() {
    let list = sample();
    assert_eq!(list.source, ListSource::Riksdagen);
    // The file says 06:00 in Stockholm: winter time, UTC+1.
    assert_eq!(
        list.published_at,
        Some(Utc.with_ymd_and_hms(2026, 11, 20, 5, 0, 0).unwrap())
    );
    let ids: Vec<&str> = list
        .entries
        .iter()
        .map(|e| e.source_entry_id.as_str())
        .collect();
    assert_eq!(ids, ["0900000000001", "0900000000002", "0900000000003"]);
    assert_eq!(
        list.set_aside,
        vec![SetAside {
            what: "deceased".into(),
            count: 1
        }]
    );
    assert_eq!(list.skipped, ["person 5: no intressent_id"]);

    let ingrid = entry(list, "0900000000001");
    assert_eq!(ingrid.names[0].full, "Ingrid Provström");
    assert_eq!(ingrid.birth_dates, [ListedDate::Year(1971)]);
    let exposure = ingrid.exposure.as_ref().unwrap();
    assert_eq!(exposure.roles, [ExposureRole::Pep]);
    assert_eq!(
        exposure.positions,
        [
            // Newest first; a running term's `tom` is its scheduled end.
            term(
                "Member of the Riksdag (Riksdagsledamot)",
                "2026-09-29",
                Some("2030-09-30"),
                TermStatus::Current
            ),
            term(
                "Partiledare, Testpartiet",
                "2023-02-02",
                None,
                TermStatus::Current
            ),
            term(
                "Member of the Riksdag (Riksdagsledamot)",
                "2022-09-26",
                Some("2026-09-28"),
                TermStatus::Ended
            ),
        ],
        "the committee seat is no office of its own"
    );

    let olof = entry(list, "0900000000002");
    assert_eq!(
        olof.exposure.as_ref().unwrap().positions,
        [term(
            "Member of the Riksdag (Riksdagsledamot)",
            "2018-09-24",
            Some("2025-11-30"),
            TermStatus::Ended
        )]
    );
    let maria = entry(list, "0900000000003");
    assert_eq!(
        maria.exposure.as_ref().unwrap().positions,
        [term(
            "Provminister, Provdepartementet",
            "2022-10-18",
            None,
            TermStatus::Current
        )]
    );
}

#[test]
fn what_is_not_a_member_list_is_refused() {
    for bad in [
        &b"[]"[..],
        b"{\"personlista\": 3}",
        b"not json",
        b"{\"personlista\": {\"person\": 7}}",
    ] {
        assert!(
            adapters_screening::read_bytes(ListFormat::RiksdagenJson, bad).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}
