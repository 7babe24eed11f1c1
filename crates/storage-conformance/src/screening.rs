//! The screening store: policy versions are numbered in publishing order with at most one
//! active; a tenant's override versions move by compare-and-set with one active per tenant
//! (also when activations race); whitelist entries need a second person's approval and are in
//! a check's context only while approved, unexpired and unrevoked; a check reads back exactly
//! as written (every score bit, every listing field), lists newest first within the reader's
//! countries, is never seen by another tenant, and cannot be changed or deleted beneath the
//! port.

use super::*;
use domain::ids::{
    OverrideVersionId, PolicyVersionId, ScreeningCheckId, SourceVersionId, WhitelistEntryId,
};
use domain::screening::check::{
    CandidateEvidence, CheckCandidate, CheckReason, InputKind, SealedCheckInput, StoredCheck,
};
use domain::screening::matcher::score::{Contribution, Weights};
use domain::screening::policy::{
    Band, OverrideConfig, OverrideStatus, PepPolicy, PolicyConfig, WeightOverrides,
};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality,
};
use domain::screening::whitelist::WhitelistEntry;

/// A policy whose numbers do not print short (so a lossy round trip would show).
fn policy_config(review: f64) -> PolicyConfig {
    PolicyConfig {
        review,
        hit: 0.1 + 0.2 + 0.6,
        weights: Weights {
            birth_date_exact: 1.0 / 3.0,
            weak_alias: 0.12,
            ..Weights::default()
        },
        // Not the defaults, so a store that drops them would show.
        peps: PepPolicy {
            screened: false,
            after_office_months: 37,
        },
    }
}

fn override_config() -> OverrideConfig {
    OverrideConfig {
        thresholds: Some((0.7 + 0.1, 2.0 / 3.0 + 0.3)),
        weights: WeightOverrides {
            nationality_match: Some(0.1 + 0.2),
            ..WeightOverrides::default()
        },
        peps_screened: Some(true),
        pep_after_office_months: Some(18),
    }
}

async fn publish(stores: &Stores, at: DateTime<Utc>) -> domain::screening::policy::PolicyVersion {
    stores
        .screening
        .publish_policy(
            PolicyVersionId::generate(),
            &policy_config(0.8),
            "ops-anna",
            at,
        )
        .await
        .expect("publish_policy")
}

async fn propose(stores: &Stores, t: &TenantId) -> domain::screening::policy::OverrideVersion {
    stores
        .screening
        .propose_override(
            t,
            OverrideVersionId::generate(),
            &override_config(),
            "ops-anna",
            t0(),
        )
        .await
        .expect("propose_override")
}

/// Moves a draft to approved (by another operator).
async fn approve(stores: &Stores, t: &TenantId, id: &OverrideVersionId) {
    stores
        .screening
        .move_override(
            t,
            id,
            OverrideStatus::Draft,
            OverrideStatus::Approved,
            Some("ops-bo"),
            t0(),
        )
        .await
        .unwrap()
        .expect("a draft is approved");
}

pub async fn check_policy_versions_are_numbered_and_one_is_active(stores: &Stores) {
    let store = &stores.screening;
    assert!(store.policies().await.unwrap().is_empty());
    let first = publish(stores, t0()).await;
    assert_eq!(first.version, 1);
    assert!(first.active);
    assert_eq!(first.config, policy_config(0.8));
    assert_eq!(first.created_by, "ops-anna");
    assert_eq!(first.created_at, t0());

    // A newer version takes over; the older is kept, inactive, exactly as published.
    let second = store
        .publish_policy(
            PolicyVersionId::generate(),
            &policy_config(0.85),
            "ops-bo",
            t0() + Duration::hours(1),
        )
        .await
        .unwrap();
    assert_eq!(second.version, 2);
    let listed = store.policies().await.unwrap();
    assert_eq!(
        listed,
        vec![
            second.clone(),
            domain::screening::policy::PolicyVersion {
                active: false,
                ..first.clone()
            }
        ]
    );
    let (t, _) = tenant(stores, "SE").await;
    let context = store.screening_context(&t.id, t0()).await.unwrap();
    assert_eq!(context.policy, Some(second.clone()));

    // Retiring the active one leaves none active: no check can run.
    let retired = store.retire_policy(&second.id).await.unwrap().unwrap();
    assert!(!retired.active);
    assert_eq!(retired.version, 2);
    assert!(store.policies().await.unwrap().iter().all(|p| !p.active));
    assert_eq!(
        store.screening_context(&t.id, t0()).await.unwrap().policy,
        None
    );
    assert_eq!(
        store
            .retire_policy(&PolicyVersionId::generate())
            .await
            .unwrap(),
        None
    );

    // Concurrent publishes are numbered without gap or duplicate; one ends up active.
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = stores.screening.clone();
            tokio::spawn(async move {
                store
                    .publish_policy(
                        PolicyVersionId::generate(),
                        &policy_config(0.8),
                        &format!("ops-{i}"),
                        t0() + Duration::days(1),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let listed = store.policies().await.unwrap();
    let versions: Vec<u32> = listed.iter().map(|p| p.version).collect();
    assert_eq!(versions, (1..=10).rev().collect::<Vec<_>>());
    let active: Vec<_> = listed.iter().filter(|p| p.active).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(
        active[0].version, 10,
        "the last published is the active one"
    );
}

pub async fn check_override_versions_move_by_compare_and_set(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let first = propose(stores, &t.id).await;
    assert_eq!(first.version, 1);
    assert_eq!(first.tenant_id, t.id);
    assert_eq!(first.config, override_config());
    assert_eq!(first.status, OverrideStatus::Draft);
    assert_eq!(
        (first.approved_by.as_deref(), first.effective_from),
        (None, None)
    );
    let second = propose(stores, &t.id).await;
    assert_eq!(second.version, 2);
    // Numbering is per tenant.
    assert_eq!(propose(stores, &other.id).await.version, 1);
    assert_eq!(
        store
            .propose_override(
                &TenantId::generate(),
                OverrideVersionId::generate(),
                &OverrideConfig::default(),
                "ops-anna",
                t0(),
            )
            .await
            .unwrap_err(),
        StoreError::NotFound
    );

    // A draft becomes approved once; the same move again finds it no longer a draft.
    let approved = store
        .move_override(
            &t.id,
            &first.id,
            OverrideStatus::Draft,
            OverrideStatus::Approved,
            Some("ops-bo"),
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(approved.status, OverrideStatus::Approved);
    assert_eq!(approved.approved_by.as_deref(), Some("ops-bo"));
    assert_eq!(
        store
            .move_override(
                &t.id,
                &first.id,
                OverrideStatus::Draft,
                OverrideStatus::Approved,
                Some("ops-cy"),
                t0(),
            )
            .await
            .unwrap(),
        None
    );
    // Another tenant cannot move it, nor can an unknown id be moved.
    assert_eq!(
        store
            .move_override(
                &other.id,
                &first.id,
                OverrideStatus::Approved,
                OverrideStatus::Active,
                None,
                t0(),
            )
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .move_override(
                &t.id,
                &OverrideVersionId::generate(),
                OverrideStatus::Draft,
                OverrideStatus::Approved,
                Some("ops-bo"),
                t0(),
            )
            .await
            .unwrap(),
        None
    );

    // Activating sets effective_from and puts the version in the tenant's context.
    let at = t0() + Duration::hours(2);
    let active = store
        .move_override(
            &t.id,
            &first.id,
            OverrideStatus::Approved,
            OverrideStatus::Active,
            None,
            at,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(active.status, OverrideStatus::Active);
    assert_eq!(active.effective_from, Some(at));
    assert_eq!(
        active.approved_by.as_deref(),
        Some("ops-bo"),
        "the approver is kept"
    );
    let context = store.screening_context(&t.id, at).await.unwrap();
    assert_eq!(context.override_version, Some(active.clone()));
    assert_eq!(
        store
            .screening_context(&other.id, at)
            .await
            .unwrap()
            .override_version,
        None
    );

    // Activating the second retires the first in the same move.
    approve(stores, &t.id, &second.id).await;
    let later = at + Duration::hours(1);
    let now_active = store
        .move_override(
            &t.id,
            &second.id,
            OverrideStatus::Approved,
            OverrideStatus::Active,
            None,
            later,
        )
        .await
        .unwrap()
        .unwrap();
    let first_now = store
        .override_version(&t.id, &first.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first_now.status, OverrideStatus::Retired);
    assert_eq!(
        first_now.effective_from,
        Some(at),
        "retiring keeps when it began"
    );
    assert_eq!(
        store.overrides(&t.id).await.unwrap(),
        vec![now_active.clone(), first_now]
    );
    assert_eq!(
        store
            .screening_context(&t.id, later)
            .await
            .unwrap()
            .override_version,
        Some(now_active.clone())
    );
    // Retiring the active one leaves the policy alone in force.
    store
        .move_override(
            &t.id,
            &second.id,
            OverrideStatus::Active,
            OverrideStatus::Retired,
            None,
            later,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .screening_context(&t.id, later)
            .await
            .unwrap()
            .override_version,
        None
    );
    assert_eq!(
        store.override_version(&other.id, &first.id).await.unwrap(),
        None
    );
}

pub async fn check_concurrent_activations_leave_one_active(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let mut ids = Vec::new();
    for _ in 0..6 {
        let v = propose(stores, &t.id).await;
        approve(stores, &t.id, &v.id).await;
        ids.push(v.id);
    }
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| {
            let store = stores.screening.clone();
            let (tenant, id) = (t.id, *id);
            tokio::spawn(async move {
                store
                    .move_override(
                        &tenant,
                        &id,
                        OverrideStatus::Approved,
                        OverrideStatus::Active,
                        None,
                        t0(),
                    )
                    .await
            })
        })
        .collect();
    for task in tasks {
        // Every activation succeeds: they queue, each retiring the one before it.
        assert!(task.await.unwrap().unwrap().is_some());
    }
    let versions = store.overrides(&t.id).await.unwrap();
    let statuses: Vec<OverrideStatus> = versions.iter().map(|v| v.status).collect();
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == OverrideStatus::Active)
            .count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == OverrideStatus::Retired)
            .count(),
        5
    );
    let active = versions
        .into_iter()
        .find(|v| v.status == OverrideStatus::Active);
    assert_eq!(
        store
            .screening_context(&t.id, t0())
            .await
            .unwrap()
            .override_version,
        active
    );
}

fn whitelist_entry(
    t: &Tenant,
    subject: Option<SubjectId>,
    entry_id: &str,
    created_at: DateTime<Utc>,
) -> WhitelistEntry {
    WhitelistEntry {
        id: WhitelistEntryId::generate(),
        tenant_id: t.id,
        input_hash: subject
            .is_none()
            .then(|| format!("hmac-sha256:{}", "ab".repeat(32))),
        subject_id: subject,
        source: ListSource::OfacSdn,
        source_entry_id: entry_id.to_owned(),
        reason: "different person: born 1990, Ünïcode".into(),
        created_by: "ops-anna".into(),
        approved_by: None,
        created_at,
        expires_at: created_at + Duration::days(30),
        revoked_at: None,
    }
}

pub async fn check_whitelist_entries_need_four_eyes_and_count_only_in_effect(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let by_subject = whitelist_entry(&t, Some(subject), "36", t0());
    let by_input = whitelist_entry(&t, None, "37", t0() + Duration::seconds(1));
    let short = WhitelistEntry {
        expires_at: t0() + Duration::days(2),
        ..whitelist_entry(&t, None, "38", t0() + Duration::seconds(2))
    };
    let to_revoke = whitelist_entry(&t, None, "39", t0() + Duration::seconds(3));
    let unapproved = whitelist_entry(&t, None, "40", t0() + Duration::seconds(4));
    let all = [&by_subject, &by_input, &short, &to_revoke, &unapproved];
    for e in all {
        store.add_whitelist_entry(e).await.unwrap();
        assert_eq!(
            store.whitelist_entry(&t.id, &e.id).await.unwrap(),
            Some(e.clone())
        );
    }
    // Naming both a subject and an input (or neither) is refused beneath the port.
    let both = WhitelistEntry {
        input_hash: Some("hmac-sha256:cd".into()),
        ..whitelist_entry(&t, Some(subject), "41", t0())
    };
    assert!(store.add_whitelist_entry(&both).await.is_err());
    let neither = WhitelistEntry {
        input_hash: None,
        ..whitelist_entry(&t, None, "42", t0())
    };
    assert!(store.add_whitelist_entry(&neither).await.is_err());

    // Four eyes: the maker cannot approve, another operator can, once.
    assert_eq!(
        store
            .approve_whitelist_entry(&t.id, &by_subject.id, "ops-anna")
            .await
            .unwrap(),
        None
    );
    let approved = store
        .approve_whitelist_entry(&t.id, &by_subject.id, "ops-bo")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        approved,
        WhitelistEntry {
            approved_by: Some("ops-bo".into()),
            ..by_subject.clone()
        }
    );
    assert_eq!(
        store
            .approve_whitelist_entry(&t.id, &by_subject.id, "ops-cy")
            .await
            .unwrap(),
        None,
        "approved already"
    );
    // Another tenant reaches none of them.
    assert_eq!(
        store
            .approve_whitelist_entry(&other.id, &by_input.id, "ops-bo")
            .await
            .unwrap(),
        None
    );
    for e in [&by_input, &short, &to_revoke] {
        store
            .approve_whitelist_entry(&t.id, &e.id, "ops-bo")
            .await
            .unwrap()
            .unwrap();
    }
    let revoked_at = t0() + Duration::days(1);
    let revoked = store
        .revoke_whitelist_entry(&t.id, &to_revoke.id, revoked_at)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(revoked.revoked_at, Some(revoked_at));
    assert_eq!(
        store
            .revoke_whitelist_entry(&t.id, &to_revoke.id, revoked_at + Duration::days(1))
            .await
            .unwrap(),
        None,
        "revoked already"
    );
    // A revoked entry can no longer be approved.
    let withdrawn = whitelist_entry(&t, None, "43", t0() + Duration::seconds(5));
    store.add_whitelist_entry(&withdrawn).await.unwrap();
    store
        .revoke_whitelist_entry(&t.id, &withdrawn.id, t0() + Duration::seconds(6))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .approve_whitelist_entry(&t.id, &withdrawn.id, "ops-bo")
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .revoke_whitelist_entry(&other.id, &by_input.id, revoked_at)
            .await
            .unwrap(),
        None
    );

    // Newest first, every entry.
    let listed = store.whitelist(&t.id).await.unwrap();
    let ids: Vec<_> = listed.iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        vec![
            withdrawn.id,
            unapproved.id,
            to_revoke.id,
            short.id,
            by_input.id,
            by_subject.id
        ]
    );
    assert!(store.whitelist(&other.id).await.unwrap().is_empty());
    assert_eq!(
        store
            .whitelist_entry(&other.id, &by_input.id)
            .await
            .unwrap(),
        None
    );

    // A check's context holds exactly the entries in effect at its time, newest first.
    let entry = |id| listed.iter().find(|e| e.id == id).unwrap().clone();
    for (at, expected) in [
        (
            t0() + Duration::hours(12),
            vec![to_revoke.id, short.id, by_input.id, by_subject.id],
        ),
        (revoked_at, vec![short.id, by_input.id, by_subject.id]),
        (t0() + Duration::days(2), vec![by_input.id, by_subject.id]),
        (t0() + Duration::days(30), vec![by_input.id]),
        (t0() + Duration::days(31), vec![]),
    ] {
        let context = store.screening_context(&t.id, at).await.unwrap();
        let expected: Vec<WhitelistEntry> = expected.into_iter().map(entry).collect();
        assert!(expected.iter().all(|e| e.effective(at)));
        assert_eq!(
            listed.iter().filter(|e| e.effective(at)).count(),
            expected.len(),
            "the store and the domain agree on what is in effect at {at}"
        );
        assert_eq!(context.whitelist, expected, "at {at}");
    }
    assert!(store
        .screening_context(&other.id, t0() + Duration::hours(12))
        .await
        .unwrap()
        .whitelist
        .is_empty());
}

fn listing(id: &str) -> ListEntry {
    ListEntry {
        source_entry_id: id.to_owned(),
        kind: EntryKind::Person,
        names: vec![
            ListedName {
                full: "ABU EXAMPLE".into(),
                quality: NameQuality::Strong,
            },
            ListedName {
                full: "Абу Пример".into(),
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
            country: None,
        }],
        programs: vec!["SDGT".into(), "IRAQ2".into()],
        listed_on: NaiveDate::from_ymd_opt(2004, 3, 1),
        exposure: None,
    }
}

fn candidate(score: f64, whitelist: Option<WhitelistEntryId>) -> CheckCandidate {
    let version = SourceVersionId::generate();
    CheckCandidate {
        id: format!("{version}:36"),
        entity_id: "ofac_sdn:36".into(),
        source: ListSource::OfacSdn,
        source_entry_id: "36".into(),
        source_version_id: version,
        score,
        band: Band::Review,
        reasons: vec![
            CheckReason {
                code: "name_match".into(),
                detail: "all name tokens match \"abu example\"".into(),
                contributes: Contribution::Up,
            },
            CheckReason {
                code: "birth_date_mismatch".into(),
                detail: "1971-05-02 vs 1990".into(),
                contributes: Contribution::Down,
            },
            CheckReason {
                code: "no_nationality".into(),
                detail: String::new(),
                contributes: Contribution::Neutral,
            },
        ],
        listing: listing("36"),
        evidence: CandidateEvidence {
            digest: format!("sha256:{}", "0f".repeat(32)),
            // Finer than storage columns keep: the document keeps it whole.
            published_at: Some(t0() - Duration::days(3) + Duration::nanoseconds(7)),
            imported_at: t0() - Duration::days(2),
            matched_name: "Абу Пример".into(),
            matched_name_quality: NameQuality::Weak,
        },
        whitelisted: whitelist.is_some(),
        whitelist_id: whitelist,
        concerns: None,
    }
}

/// A check of `t` by `g` at `at`, seen from `visibility`.
fn stored_check(
    t: &Tenant,
    g: &Grant,
    policy: PolicyVersionId,
    subject: Option<SubjectId>,
    visibility: Option<Country>,
    at: DateTime<Utc>,
) -> StoredCheck {
    StoredCheck {
        id: ScreeningCheckId::generate(),
        tenant_id: t.id,
        grant_id: g.id,
        subject_id: subject,
        aliases: Vec::new(),
        visibility,
        input_kind: if subject.is_some() {
            InputKind::Subject
        } else {
            InputKind::Adhoc
        },
        sealed_input: SealedCheckInput(random_bytes(57)),
        has_identifier: visibility.is_some(),
        person_fields_masked: false,
        input_hash: Some(format!("hmac-sha256:{}", "12".repeat(32))),
        input_verified: subject.is_some(),
        band: Band::Clear,
        policy_version_id: policy,
        tenant_override_version_id: None,
        source_version_ids: vec![SourceVersionId::generate(), SourceVersionId::generate()],
        degraded_sources: Vec::new(),
        truncated_datasets: Vec::new(),
        matcher_version: "idreg-matcher/0.1.0".into(),
        checked_at: at,
        candidates: Vec::new(),
    }
}

/// Newest first by time, then by id (as the port orders).
fn newest_first(mut checks: Vec<StoredCheck>) -> Vec<ScreeningCheckId> {
    checks.sort_by_key(|c| std::cmp::Reverse((c.checked_at, c.id.to_string())));
    checks.into_iter().map(|c| c.id).collect()
}

fn ids(checks: &[StoredCheck]) -> Vec<ScreeningCheckId> {
    checks.iter().map(|c| c.id).collect()
}

pub async fn check_a_check_reads_back_exactly_and_lists_newest_first(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE LT").await;
    let (g, _) = grant(stores, &t, "SE LT").await;
    let policy = publish(stores, t0()).await;
    let subject = company_subject(stores, &t).await;
    let over = propose(stores, &t.id).await;
    let wl = whitelist_entry(&t, Some(subject), "36", t0());
    store.add_whitelist_entry(&wl).await.unwrap();

    // Every field, with scores that print long and one that is a whole number.
    let full = StoredCheck {
        person_fields_masked: true,
        band: Band::Hit,
        tenant_override_version_id: Some(over.id),
        degraded_sources: vec!["un_sc".into()],
        truncated_datasets: vec!["ofac_sdn".into(), "eu_fsf".into()],
        candidates: vec![
            candidate(0.1 + 0.2, None),
            candidate(1.0 / 3.0, Some(wl.id)),
            candidate(1.0, None),
            candidate(0.9123, None),
            // A company's officer, by the handle of the personal number; an owner by name.
            CheckCandidate {
                concerns: Some(domain::companies::paid::Party {
                    role: domain::companies::paid::PartyRole::Officer,
                    name: String::new(),
                    personal_number_ref: Some(domain::ids::IdentifierRef::generate()),
                }),
                ..candidate(0.95, None)
            },
            CheckCandidate {
                concerns: Some(domain::companies::paid::Party {
                    role: domain::companies::paid::PartyRole::BeneficialOwner,
                    name: "Ägare Utan Nummer".into(),
                    personal_number_ref: None,
                }),
                ..candidate(0.85, None)
            },
        ],
        ..stored_check(
            &t,
            &g,
            policy.id,
            Some(subject),
            Some(Country::Se),
            t0() + Duration::minutes(5),
        )
    };
    store.insert_check(&full).await.unwrap();
    assert_eq!(
        store.check(&t.id, &full.id).await.unwrap(),
        Some(full.clone())
    );
    let bits: Vec<u64> = store
        .check(&t.id, &full.id)
        .await
        .unwrap()
        .unwrap()
        .candidates
        .iter()
        .map(|c| c.score.to_bits())
        .collect();
    assert_eq!(
        bits,
        full.candidates
            .iter()
            .map(|c| c.score.to_bits())
            .collect::<Vec<_>>()
    );
    // Inserting the same check again is refused (it is one row, forever).
    assert!(store.insert_check(&full).await.is_err());

    // More checks: ad hoc on a name alone (no country), Lithuanian, and two in one instant.
    let same = t0() + Duration::minutes(1);
    let mut all = vec![full.clone()];
    all.push(stored_check(&t, &g, policy.id, None, None, t0()));
    all.push(stored_check(
        &t,
        &g,
        policy.id,
        None,
        Some(adapters_lt::identifiers::LT),
        same,
    ));
    all.push(stored_check(
        &t,
        &g,
        policy.id,
        Some(subject),
        Some(Country::Se),
        same,
    ));
    all.push(stored_check(&t, &g, policy.id, None, None, same));
    for c in &all[1..] {
        store.insert_check(c).await.unwrap();
    }
    let both = countries("SE LT");
    let listed = store.checks(&t.id, None, &both, 50).await.unwrap();
    assert_eq!(ids(&listed), newest_first(all.clone()));
    assert_eq!(listed[0], full);

    // The limit cuts the newest.
    let two = store.checks(&t.id, None, &both, 2).await.unwrap();
    assert_eq!(ids(&two), newest_first(all.clone())[..2].to_vec());

    // A subject's checks only.
    let of_subject = store.checks(&t.id, Some(subject), &both, 50).await.unwrap();
    assert_eq!(
        ids(&of_subject),
        newest_first(
            all.iter()
                .filter(|c| c.subject_id == Some(subject))
                .cloned()
                .collect()
        )
    );
    assert!(store
        .checks(&t.id, Some(SubjectId::generate()), &both, 50)
        .await
        .unwrap()
        .is_empty());

    // A Swedish reader sees Swedish checks and those without a country, not Lithuanian ones.
    let se = store
        .checks(&t.id, None, &countries("SE"), 50)
        .await
        .unwrap();
    assert_eq!(
        ids(&se),
        newest_first(
            all.iter()
                .filter(|c| c.visibility != Some(adapters_lt::identifiers::LT))
                .cloned()
                .collect()
        )
    );
    let none = store
        .checks(&t.id, None, &CountrySet::new(), 50)
        .await
        .unwrap();
    assert_eq!(
        ids(&none),
        newest_first(
            all.iter()
                .filter(|c| c.visibility.is_none())
                .cloned()
                .collect()
        )
    );
}

pub async fn check_another_tenant_sees_nothing_of_a_tenants_screening(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let policy = publish(stores, t0()).await;
    let check = stored_check(&t, &g, policy.id, None, None, t0());
    store.insert_check(&check).await.unwrap();
    let over = propose(stores, &t.id).await;
    approve(stores, &t.id, &over.id).await;
    store
        .move_override(
            &t.id,
            &over.id,
            OverrideStatus::Approved,
            OverrideStatus::Active,
            None,
            t0(),
        )
        .await
        .unwrap()
        .unwrap();
    let wl = whitelist_entry(&t, None, "36", t0());
    store.add_whitelist_entry(&wl).await.unwrap();
    store
        .approve_whitelist_entry(&t.id, &wl.id, "ops-bo")
        .await
        .unwrap()
        .unwrap();

    let all = countries("SE LT");
    assert_eq!(store.check(&other.id, &check.id).await.unwrap(), None);
    assert!(store
        .checks(&other.id, None, &all, 50)
        .await
        .unwrap()
        .is_empty());
    assert!(store.overrides(&other.id).await.unwrap().is_empty());
    assert_eq!(
        store.override_version(&other.id, &over.id).await.unwrap(),
        None
    );
    assert!(store.whitelist(&other.id).await.unwrap().is_empty());
    let theirs = store.screening_context(&other.id, t0()).await.unwrap();
    // The policy is the service's, shared; the override and whitelist are the tenant's own.
    assert_eq!(theirs.policy, Some(policy.clone()));
    assert_eq!(theirs.override_version, None);
    assert!(theirs.whitelist.is_empty());
    let ours = store.screening_context(&t.id, t0()).await.unwrap();
    assert_eq!(ours.override_version.map(|o| o.id), Some(over.id));
    assert_eq!(ours.whitelist.len(), 1);

    // A check naming another tenant's grant is refused beneath the port.
    let (og, _) = grant(stores, &other, "SE").await;
    let foreign = stored_check(&t, &og, policy.id, None, None, t0());
    assert!(store.insert_check(&foreign).await.is_err());
}

pub async fn check_checks_are_append_only_beneath_the_port(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let policy = publish(stores, t0()).await;
    let check = stored_check(&t, &g, policy.id, None, None, t0());
    store.insert_check(&check).await.unwrap();
    let (documents, truncate) = match stores.backing.dialect() {
        Dialect::Postgres => ("'[]'::jsonb", "TRUNCATE screening_checks"),
        // SQLite's TRUNCATE: a DELETE with no WHERE.
        Dialect::Sqlite => ("'[]'", "DELETE FROM screening_checks"),
    };
    for statement in [
        format!(
            "UPDATE screening_checks SET band = 'hit' WHERE check_id = '{}'",
            check.id
        ),
        format!(
            "UPDATE screening_checks SET candidates = {documents} WHERE tenant_id = '{}'",
            t.id
        ),
        format!(
            "DELETE FROM screening_checks WHERE check_id = '{}'",
            check.id
        ),
        truncate.to_owned(),
    ] {
        let message = stores
            .backing
            .try_execute(&statement)
            .await
            .expect_err(&statement);
        assert!(message.contains("append-only"), "{statement}: {message}");
    }
    assert_eq!(
        stores
            .backing
            .count("screening_checks", &format!("tenant_id = '{}'", t.id))
            .await,
        1
    );
    assert_eq!(store.check(&t.id, &check.id).await.unwrap(), Some(check));
}

pub async fn check_checks_made_before_a_merge_are_found_under_either_id(stores: &Stores) {
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let policy = publish(stores, t0()).await;
    let from = company_subject(stores, &t).await;
    let into = company_subject(stores, &t).await;
    let other = company_subject(stores, &t).await;
    let se = CountrySet::parse_list("SE").unwrap();
    let of_from = stored_check(&t, &g, policy.id, Some(from), Some(Country::Se), t0());
    let of_into = stored_check(
        &t,
        &g,
        policy.id,
        Some(into),
        Some(Country::Se),
        t0() + Duration::minutes(1),
    );
    let of_other = stored_check(&t, &g, policy.id, Some(other), Some(Country::Se), t0());
    for c in [&of_from, &of_into, &of_other] {
        store.insert_check(c).await.unwrap();
    }
    let wl = whitelist_entry(&t, Some(from), "36", t0());
    store.add_whitelist_entry(&wl).await.unwrap();

    stores
        .subjects
        .merge_subjects(
            &t.id,
            &domain::subjects::merge::SubjectMerge {
                from,
                into,
                event: super::events::event("merge", "subject.merged", Country::Se),
                ended: Vec::new(),
            },
        )
        .await
        .unwrap();

    // Listed under either id: the checks of both; each read names the canonical id now.
    for id in [from, into] {
        let listed = store.checks(&t.id, Some(id), &se, 50).await.unwrap();
        assert_eq!(ids(&listed), vec![of_into.id, of_from.id], "asked by {id}");
        for c in &listed {
            assert_eq!((c.subject_id, c.aliases.clone()), (Some(into), vec![from]));
        }
    }
    let read = store.check(&t.id, &of_from.id).await.unwrap().unwrap();
    assert_eq!(
        read,
        StoredCheck {
            subject_id: Some(into),
            aliases: vec![from],
            ..of_from.clone()
        }
    );
    // Another subject's checks are its own.
    let listed = store.checks(&t.id, Some(other), &se, 50).await.unwrap();
    assert_eq!(ids(&listed), vec![of_other.id]);
    assert_eq!(listed[0].aliases, Vec::<SubjectId>::new());
    // The row itself was not rewritten (append-only): it still names the id it was made
    // under.
    let rows = stores
        .backing
        .column(
            "screening_checks",
            "subject_id",
            &format!("check_id = '{}'", of_from.id),
        )
        .await;
    assert_eq!(rows[0]["subject_id"], from.to_string());
    // A whitelist entry made for the merged-away subject now clears for the canonical one.
    let entry = store.whitelist_entry(&t.id, &wl.id).await.unwrap().unwrap();
    assert_eq!(entry.subject_id, Some(into));
}

/// A check made by ongoing screening (no grant) is written with its event in one
/// transaction, once per event key, and only while the subscription is active.
pub async fn check_a_rescreening_check_is_written_with_its_event_once_and_only_while_active(
    stores: &Stores,
) {
    use domain::monitoring::subscription::SubscriptionKind;
    let store = &stores.screening;
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let policy = publish(stores, t0()).await;
    let subject = company_subject(stores, &t).await;
    let s = super::subscriptions::subscription(subject, SubscriptionKind::Company);
    let mut created = super::events::event("created", "subscription.created", Country::Se);
    created.subscription_id = Some(s.id);
    stores
        .subscriptions
        .create_subscription(&t.id, &s, &created)
        .await
        .unwrap();
    let made = |at| StoredCheck {
        grant_id: GrantId::MONITORING,
        band: Band::Hit,
        candidates: vec![candidate(0.95, None)],
        ..stored_check(&t, &g, policy.id, Some(subject), Some(Country::Se), at)
    };
    let mut changed = super::events::event(
        "sub:lchg:screening.changed",
        "screening.changed",
        Country::Se,
    );
    changed.subscription_id = Some(s.id);
    changed.subject_id = Some(subject);

    let check = made(t0() + Duration::minutes(1));
    let seqs = store
        .record_screening_change(&t.id, &s.id, &check, std::slice::from_ref(&changed))
        .await
        .unwrap()
        .expect("written while active");
    assert_eq!(seqs, [2]);
    assert_eq!(
        store.check(&t.id, &check.id).await.unwrap(),
        Some(check.clone())
    );

    // The same work again (after a crash): the logged seq, and no second check.
    let again = made(t0() + Duration::minutes(2));
    let mut repeated = changed.clone();
    repeated.id = domain::ids::EventId::generate();
    assert_eq!(
        store
            .record_screening_change(&t.id, &s.id, &again, &[repeated])
            .await
            .unwrap(),
        Some(vec![2])
    );
    assert_eq!(store.check(&t.id, &again.id).await.unwrap(), None);

    // Ended: nothing is written.
    let ended = s
        .clone()
        .ended(t0() + Duration::hours(1), Duration::days(90));
    let mut end = super::events::event("end", "subscription.ended", Country::Se);
    end.subscription_id = Some(s.id);
    stores
        .subscriptions
        .end_subscription(&t.id, &ended, &end)
        .await
        .unwrap()
        .unwrap();
    let late = made(t0() + Duration::hours(2));
    let mut other = changed.clone();
    other.idempotency_key = "sub:lchg2:screening.changed".into();
    assert_eq!(
        store
            .record_screening_change(&t.id, &s.id, &late, &[other])
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.check(&t.id, &late.id).await.unwrap(), None);
}
