//! The sanctions-list store: a version round-trips every field of its entries, the same file
//! is one version (imported again, it is active again), and an import that fails leaves the
//! previous version active with nothing of the failed one stored; a failed import marks the
//! list degraded until a good one is activated.

use super::*;
use domain::screening::sanctions::{
    EntryKind, FailedImport, ImportOutcome, ListEntry, ListSource, ListedCountry, ListedDate,
    ListedIdentifier, ListedName, NameQuality, SourceVersion, SourceVersionId,
};

fn entry(id: &str, name: &str) -> ListEntry {
    ListEntry {
        source_entry_id: id.to_owned(),
        kind: EntryKind::Person,
        names: vec![
            ListedName {
                full: name.to_owned(),
                quality: NameQuality::Strong,
            },
            ListedName {
                full: "Абу Пример".to_owned(),
                quality: NameQuality::Weak,
            },
        ],
        birth_dates: vec![
            ListedDate::Day(NaiveDate::from_ymd_opt(1971, 5, 2).unwrap()),
            ListedDate::Month {
                year: 1970,
                month: 11,
            },
            ListedDate::Year(1969),
            ListedDate::Years {
                from: 1968,
                to: 1972,
            },
        ],
        nationalities: vec![ListedCountry {
            code: Some("IQ".into()),
            name: "Iraq".into(),
        }],
        countries: vec![ListedCountry {
            code: None,
            name: "undetermined".into(),
        }],
        identifiers: vec![ListedIdentifier {
            kind: "passport".into(),
            value: "A1234567".into(),
            country: Some("IQ".into()),
        }],
        programs: vec!["SDGT".into(), "IRAQ2".into()],
        listed_on: NaiveDate::from_ymd_opt(2004, 3, 1),
    }
}

fn version(
    source: ListSource,
    digest: &str,
    entries: &[ListEntry],
    at: DateTime<Utc>,
) -> SourceVersion {
    SourceVersion {
        id: SourceVersionId::generate(),
        source,
        digest: digest.to_owned(),
        published_at: Some(at - Duration::days(1)),
        imported_at: at,
        entry_count: u32::try_from(entries.len()).unwrap(),
        skipped_count: 1,
    }
}

pub async fn check_a_list_version_round_trips_and_the_same_file_is_one_version(stores: &Stores) {
    let store = &stores.sanctions;
    assert!(store.active_lists().await.unwrap().is_empty());
    let entries = vec![
        entry("6908555", "ABU EXAMPLE"),
        entry("6908556", "JANE ROE"),
    ];
    let first = version(ListSource::OfacSdn, "sha256:aa", &entries, t0());
    assert_eq!(
        store.import_version(&first, &entries).await.unwrap(),
        ImportOutcome::Stored(first.clone())
    );
    assert_eq!(store.version_entries(&first.id).await.unwrap(), entries);
    let active = store.active_lists().await.unwrap();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0].version, first);
    assert_eq!(active[0].failed_since, None);

    // A newer file becomes the active version; the older stays stored, unchanged.
    let newer_entries = vec![entry("6908557", "NEW NAME")];
    let second = version(
        ListSource::OfacSdn,
        "sha256:bb",
        &newer_entries,
        t0() + Duration::days(1),
    );
    store.import_version(&second, &newer_entries).await.unwrap();
    assert_eq!(store.active_lists().await.unwrap()[0].version, second);
    assert_eq!(store.version_entries(&first.id).await.unwrap(), entries);

    // The first file again: no new version; the stored one is active again.
    let again = version(
        ListSource::OfacSdn,
        "sha256:aa",
        &entries,
        t0() + Duration::days(2),
    );
    assert_eq!(
        store.import_version(&again, &entries).await.unwrap(),
        ImportOutcome::AlreadyStored(first.clone())
    );
    assert_eq!(store.active_lists().await.unwrap()[0].version, first);
    // Lists are apart: the same digest under another list is another version.
    let un = version(ListSource::UnConsolidated, "sha256:aa", &entries, t0());
    assert!(matches!(
        store.import_version(&un, &entries).await.unwrap(),
        ImportOutcome::Stored(_)
    ));
    assert_eq!(store.active_lists().await.unwrap().len(), 2);
}

pub async fn check_a_failed_import_leaves_the_active_version_and_marks_the_list_degraded(
    stores: &Stores,
) {
    let store = &stores.sanctions;
    let entries = vec![entry("CDi.001", "ERIC EXAMPLE")];
    let good = version(ListSource::UnConsolidated, "sha256:11", &entries, t0());
    store.import_version(&good, &entries).await.unwrap();

    // A version the store refuses (no entries counted) changes nothing.
    let broken = SourceVersion {
        entry_count: 0,
        ..version(
            ListSource::UnConsolidated,
            "sha256:22",
            &entries,
            t0() + Duration::hours(1),
        )
    };
    assert!(store.import_version(&broken, &entries).await.is_err());
    assert!(store.version_entries(&broken.id).await.unwrap().is_empty());
    let active = store.active_lists().await.unwrap();
    assert_eq!(active[0].version, good);

    // A failed read is recorded: the list is degraded until a good import replaces it.
    let failure = FailedImport {
        source: ListSource::UnConsolidated,
        attempted_at: t0() + Duration::hours(2),
        reason: "not a valid un-xml file: truncated".into(),
    };
    store.record_failed_import(&failure).await.unwrap();
    assert_eq!(
        store.active_lists().await.unwrap()[0].failed_since,
        Some(failure)
    );
    let newer = version(
        ListSource::UnConsolidated,
        "sha256:33",
        &entries,
        t0() + Duration::hours(3),
    );
    store.import_version(&newer, &entries).await.unwrap();
    let active = store.active_lists().await.unwrap();
    assert_eq!(active[0].version, newer);
    assert_eq!(active[0].failed_since, None);
}
