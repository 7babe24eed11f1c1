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
        exposure: None,
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

/// Each change of a list's active version is recorded with it and worked once: a claim
/// holds it until its lease passes, progress is kept, a takeover after the lease voids the
/// late claimer's writes, and imports made before a change is begun extend it.
pub async fn check_a_change_of_the_active_version_is_recorded_and_worked_once(stores: &Stores) {
    use domain::screening::sanctions::ListChange;
    let store = &stores.sanctions;
    let entries = vec![entry("1", "ANNA EXEMPEL")];
    let lease = Duration::minutes(5);
    assert_eq!(
        store.claim_list_change(t0(), t0() + lease).await.unwrap(),
        None
    );

    // A list's first version: a change from nothing.
    let first = version(ListSource::UnConsolidated, "sha256:01", &entries, t0());
    store.import_version(&first, &entries).await.unwrap();
    assert_eq!(
        store.source_version(&first.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store
            .source_version(&SourceVersionId::generate())
            .await
            .unwrap(),
        None
    );
    let claim = store
        .claim_list_change(t0(), t0() + lease)
        .await
        .unwrap()
        .expect("the first version is a change");
    assert_eq!(
        (claim.change.source, claim.change.from, claim.change.to),
        (ListSource::UnConsolidated, None, first.id)
    );
    assert_eq!((claim.after, claim.lease_until), (None, t0() + lease));
    // Held: no one else claims it, nor anything after it.
    assert_eq!(
        store
            .claim_list_change(t0() + Duration::minutes(1), t0() + lease * 2)
            .await
            .unwrap(),
        None
    );
    assert!(store
        .advance_list_change(
            &claim,
            None,
            t0() + lease,
            Some(t0() + Duration::minutes(1))
        )
        .await
        .unwrap());
    assert_eq!(
        store
            .claim_list_change(t0() + lease * 3, t0() + lease * 4)
            .await
            .unwrap(),
        None,
        "a done change is never claimed again"
    );

    // The same version made active again is no change; two versions imported before the
    // change is begun are one change, from the version subjects were screened at.
    store.import_version(&first, &entries).await.unwrap();
    let mut last = first.clone();
    for (i, digest) in ["sha256:02", "sha256:03"].into_iter().enumerate() {
        let at = t0() + Duration::days(i64::try_from(i).unwrap() + 1);
        let v = version(ListSource::UnConsolidated, digest, &entries, at);
        store.import_version(&v, &entries).await.unwrap();
        last = v;
    }
    let at = t0() + Duration::days(3);
    let claim = store
        .claim_list_change(at, at + lease)
        .await
        .unwrap()
        .expect("the change");
    assert_eq!(
        (claim.change.from, claim.change.to),
        (Some(first.id), last.id)
    );

    // Progress is kept; after the lease another replica takes the change over, where it
    // stood, and the first one's writes change nothing.
    let (t, _) = tenant(stores, "SE").await;
    let cursor = (t.id, domain::ids::SubscriptionId::generate());
    assert!(store
        .advance_list_change(&claim, Some(cursor), at + lease, None)
        .await
        .unwrap());
    let later = at + lease + Duration::seconds(1);
    let taken = store
        .claim_list_change(later, later + lease)
        .await
        .unwrap()
        .expect("taken over after the lease");
    assert_eq!(taken.change, claim.change);
    assert_eq!(taken.after, Some(cursor));
    assert!(!store
        .advance_list_change(&claim, None, later + lease, Some(later))
        .await
        .unwrap());
    // A version imported while the change is under way is a change of its own, after it.
    let fourth = version(ListSource::UnConsolidated, "sha256:04", &entries, later);
    store.import_version(&fourth, &entries).await.unwrap();
    assert!(store
        .advance_list_change(&taken, Some(cursor), later + lease, Some(later))
        .await
        .unwrap());
    let next = store
        .claim_list_change(later, later + lease)
        .await
        .unwrap()
        .expect("the next change");
    let ListChange { from, to, .. } = next.change;
    assert_eq!((from, to), (Some(last.id), fourth.id));
}
