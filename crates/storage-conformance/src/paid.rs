//! The paid store: the per-tenant cache of paid objects (one read returns the object, its
//! evidence and its subject) and the daily paid-call budget, whose spends are atomic with
//! their check.

use super::*;
use domain::companies::budget::{BudgetUsage, Spend, Spender};
use domain::companies::paid::{
    Officer, OfficerList, Owner, OwnerList, PaidData, PaidKey, PaidKind, PaidObject, ShareBand,
};
use domain::evidence::EvidenceSource;

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
}

fn spend(spender: Spender, cap: i64) -> Spend {
    Spend {
        day: day(),
        spender,
        units: 1,
        cap,
    }
}

/// Concurrent spends against one cap: exactly `cap` of them are made, never more.
pub async fn check_concurrent_spends_never_pass_the_cap(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let attempts = (0..24).map(|_| {
        let paid = stores.paid.clone();
        let id = t.id;
        tokio::spawn(async move { paid.spend_budget(&id, &spend(Spender::OnDemand, 7)).await })
    });
    let mut made = 0;
    for a in attempts.collect::<Vec<_>>() {
        if a.await.unwrap().unwrap() {
            made += 1;
        }
    }
    assert_eq!(made, 7);
    assert_eq!(
        stores.paid.budget_usage(&t.id, day()).await.unwrap(),
        BudgetUsage {
            on_demand: 7,
            scheduled: 0
        }
    );
    assert!(!stores
        .paid
        .spend_budget(&t.id, &spend(Spender::OnDemand, 7))
        .await
        .unwrap());
}

/// The parts, the days and the tenants are counted apart; a cap of zero spends nothing.
pub async fn check_parts_days_and_tenants_are_counted_apart(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    assert!(!stores
        .paid
        .spend_budget(&t.id, &spend(Spender::OnDemand, 0))
        .await
        .unwrap());
    for _ in 0..2 {
        assert!(stores
            .paid
            .spend_budget(&t.id, &spend(Spender::Scheduled, 2))
            .await
            .unwrap());
    }
    assert!(!stores
        .paid
        .spend_budget(&t.id, &spend(Spender::Scheduled, 2))
        .await
        .unwrap());
    assert!(stores
        .paid
        .spend_budget(&t.id, &spend(Spender::OnDemand, 1))
        .await
        .unwrap());
    assert_eq!(
        stores.paid.budget_usage(&t.id, day()).await.unwrap(),
        BudgetUsage {
            on_demand: 1,
            scheduled: 2
        }
    );
    let next_day = day().succ_opt().unwrap();
    assert_eq!(
        stores.paid.budget_usage(&t.id, next_day).await.unwrap(),
        BudgetUsage::default()
    );
    assert_eq!(
        stores.paid.budget_usage(&other.id, day()).await.unwrap(),
        BudgetUsage::default()
    );
}

pub(super) fn officers(orgnr: &str, evidence: Evidence) -> PaidObject {
    PaidObject {
        country: Country::Se,
        data: PaidData::Officers(OfficerList {
            orgnr: orgnr.to_owned(),
            officers: vec![
                Officer {
                    role: "Styrelseledamot".into(),
                    role_code: Some("LE".into()),
                    name: "FN1 EN1".into(),
                    personal_number_ref: Some(IdentifierRef::generate()),
                    appointed_at: NaiveDate::from_ymd_opt(2019, 5, 2),
                },
                Officer {
                    role: "Revisor".into(),
                    role_code: None,
                    name: "Revisionsbyrå AB".into(),
                    personal_number_ref: None,
                    appointed_at: None,
                },
            ],
            signatory_rule_text: Some("Firman tecknas av styrelsen".into()),
        }),
        evidence,
        fetched_at: t0(),
    }
}

/// A saved object reads back whole with its evidence and subject; a later save replaces it;
/// another tenant, kind or key sees nothing.
pub async fn check_a_paid_object_round_trips_per_tenant(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let route = "/v1/companies/{orgnr}/officers";
    let calls = [(
        CallRef::generate(),
        call(
            EvidenceSource::declared("companyreg.foretagsinformation"),
            "POST /organisationer",
            t0(),
        ),
    )];
    let evidence = stores
        .companies
        .record_calls(&t.id, route, &calls)
        .await
        .unwrap()
        .remove(0);
    let key = PaidKey {
        kind: PaidKind::Officers,
        country: Country::Se,
        key: "5560021361".into(),
    };
    let object = officers("5560021361", evidence.clone());
    stores
        .paid
        .save_paid(&t.id, &key, &subject, &object)
        .await
        .unwrap();
    let cached = stores.paid.cached_paid(&t.id, &key).await.unwrap().unwrap();
    assert_eq!(cached.object, object);
    assert_eq!(cached.subject.subject_id, subject);

    // Replaced by a later save.
    let owners = PaidObject {
        data: PaidData::BeneficialOwners(OwnerList {
            orgnr: "5560021361".into(),
            owners: vec![Owner {
                name: "FN2 EN2".into(),
                personal_number_ref: Some(IdentifierRef::generate()),
                nature_of_control: "Ägande".into(),
                share_band: ShareBand::From50To75,
            }],
            no_ubo_reported: false,
        }),
        ..object.clone()
    };
    let owners_key = PaidKey {
        kind: PaidKind::BeneficialOwners,
        ..key.clone()
    };
    stores
        .paid
        .save_paid(&t.id, &owners_key, &subject, &owners)
        .await
        .unwrap();
    let mut newer = object.clone();
    newer.fetched_at = t0() + Duration::hours(25);
    if let PaidData::Officers(o) = &mut newer.data {
        o.signatory_rule_text = None;
    }
    stores
        .paid
        .save_paid(&t.id, &key, &subject, &newer)
        .await
        .unwrap();
    let cached = stores.paid.cached_paid(&t.id, &key).await.unwrap().unwrap();
    assert_eq!(cached.object, newer);
    let cached_owners = stores
        .paid
        .cached_paid(&t.id, &owners_key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cached_owners.object, owners);

    // Nothing across tenants or keys; an object under another kind's key is refused.
    assert!(stores
        .paid
        .cached_paid(&other.id, &key)
        .await
        .unwrap()
        .is_none());
    let elsewhere = PaidKey {
        key: "5567223705".into(),
        ..key.clone()
    };
    assert!(stores
        .paid
        .cached_paid(&t.id, &elsewhere)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .paid
        .save_paid(&t.id, &owners_key, &subject, &object)
        .await
        .is_err());
}

pub async fn check_a_range_of_days_reads_the_spending_days_in_one_read(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let d = |n: u32| NaiveDate::from_ymd_opt(2026, 11, n).unwrap();
    let on = |day: NaiveDate, spender: Spender, units: i64| Spend {
        day,
        spender,
        units,
        cap: 1_000,
    };
    for (tenant, s) in [
        (&t, on(d(2), Spender::OnDemand, 3)),
        (&t, on(d(2), Spender::Scheduled, 1)),
        (&t, on(d(5), Spender::OnDemand, 2)),
        (&t, on(d(9), Spender::OnDemand, 4)),
        (&other, on(d(5), Spender::OnDemand, 7)),
    ] {
        assert!(stores.paid.spend_budget(&tenant.id, &s).await.unwrap());
    }
    let read = stores
        .paid
        .budget_usage_between(&t.id, d(2), d(8))
        .await
        .unwrap();
    let usage = |on_demand, scheduled| BudgetUsage {
        on_demand,
        scheduled,
    };
    assert_eq!(read, vec![(d(2), usage(3, 1)), (d(5), usage(2, 0))]);
    assert!(stores
        .paid
        .budget_usage_between(&t.id, d(10), d(30))
        .await
        .unwrap()
        .is_empty());
}
