//! Tenants: their fields, status, permits and budget.

use super::*;

pub async fn check_tenant_round_trips_every_field(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let stored = stores.tenants.tenant(&t.id).await.unwrap();
    assert_eq!(stored, t);
    assert_eq!(stored.created_at, t0(), "created_at keeps its microseconds");

    // An active tenant with the default budget, and the data key it was stored with.
    let active = Tenant {
        id: TenantId::generate(),
        status: TenantStatus::Active,
        budget: Budget::default(),
        ..new_tenant("SE")
    };
    let key = data_key();
    stores.tenants.insert_tenant(&active, &key).await.unwrap();
    assert_eq!(stores.tenants.tenant(&active.id).await.unwrap(), active);
    let (g, _) = grant(stores, &active, "SE").await;
    let access = stores
        .grants
        .grant_access(&active.id, &g.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        access.data_key, key,
        "the data key round-trips byte for byte"
    );
}

pub async fn check_a_tenant_inserted_with_a_permit_keeps_it(stores: &Stores) {
    // `Tenant` carries its current permit; inserting one must not lose it.
    let mut t = new_tenant("SE");
    t.permit = Some(permit(PermitStatus::Active, t0()));
    stores.tenants.insert_tenant(&t, &data_key()).await.unwrap();
    assert_eq!(stores.tenants.tenant(&t.id).await.unwrap(), t);
}

pub async fn check_unknown_tenant_is_not_found(stores: &Stores) {
    let unknown = TenantId::generate();
    let permit = Permit {
        valid_from: NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
        valid_to: NaiveDate::from_ymd_opt(2027, 1, 1).unwrap(),
        status: PermitStatus::Active,
        recorded_at: t0(),
    };
    assert_eq!(
        stores.tenants.tenant(&unknown).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores
            .tenants
            .set_tenant_status(&unknown, TenantStatus::Active)
            .await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores
            .tenants
            .set_provisioned_countries(&unknown, &countries("SE"))
            .await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.tenants.record_permit(&unknown, &permit).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores
            .tenants
            .set_budget(&unknown, &Budget::default())
            .await,
        Err(StoreError::NotFound)
    );
}

pub async fn check_tenant_status_changes(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let active = stores
        .tenants
        .set_tenant_status(&t.id, TenantStatus::Active)
        .await
        .unwrap();
    let expected = Tenant {
        status: TenantStatus::Active,
        ..t.clone()
    };
    assert_eq!(active, expected);
    assert_eq!(stores.tenants.tenant(&t.id).await.unwrap(), expected);
}

fn permit(status: PermitStatus, recorded_at: DateTime<Utc>) -> Permit {
    Permit {
        valid_from: NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
        valid_to: NaiveDate::from_ymd_opt(2027, 12, 31).unwrap(),
        status,
        recorded_at,
    }
}

pub async fn check_the_newest_permit_is_current_and_reinstating_adds_a_row(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    assert_eq!(stores.tenants.tenant(&t.id).await.unwrap().permit, None);

    let granted = permit(PermitStatus::Active, t0() + Duration::days(1));
    let after = stores.tenants.record_permit(&t.id, &granted).await.unwrap();
    assert_eq!(after.permit.as_ref(), Some(&granted));

    let suspended = permit(PermitStatus::Suspended, t0() + Duration::days(2));
    let after = stores
        .tenants
        .record_permit(&t.id, &suspended)
        .await
        .unwrap();
    assert_eq!(after.permit.as_ref(), Some(&suspended));

    // Reinstating is a new permit, never an edit of the suspended one.
    let reinstated = Permit {
        valid_from: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
        ..permit(PermitStatus::Active, t0() + Duration::days(3))
    };
    let after = stores
        .tenants
        .record_permit(&t.id, &reinstated)
        .await
        .unwrap();
    assert_eq!(after.permit.as_ref(), Some(&reinstated));
    assert_eq!(
        stores.tenants.tenant(&t.id).await.unwrap().permit,
        Some(reinstated)
    );
    assert_eq!(stores.backing.permit_count(t.id).await, 3);
    // Nothing else about the tenant changed.
    assert_eq!(
        Tenant {
            permit: None,
            ..after
        },
        t
    );
}

pub async fn check_a_permit_recorded_in_the_same_instant_still_becomes_current(stores: &Stores) {
    // A fixed or coarse clock records a suspension and its reinstatement at one instant: the
    // one recorded last is the tenant's permit.
    let (t, _) = tenant(stores, "SE").await;
    for round in 0..12 {
        let status = if round % 2 == 0 {
            PermitStatus::Suspended
        } else {
            PermitStatus::Active
        };
        let recorded = permit(status, t0());
        let after = stores
            .tenants
            .record_permit(&t.id, &recorded)
            .await
            .unwrap();
        assert_eq!(after.permit, Some(recorded), "round {round}");
    }
}

pub async fn check_the_budget_is_set(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let budget = Budget {
        daily_paid_calls: 0,
        monitoring_share: 0.875,
        person_lookup_ceiling: 9_000_000_000,
    };
    let after = stores.tenants.set_budget(&t.id, &budget).await.unwrap();
    let expected = Tenant {
        budget: budget.clone(),
        ..t.clone()
    };
    assert_eq!(after, expected);
    assert_eq!(stores.tenants.tenant(&t.id).await.unwrap(), expected);
}

pub async fn check_retention_is_set_and_the_key_read_with_the_tenant(stores: &Stores) {
    let (t, key) = tenant(stores, "SE").await;
    let (read, read_key) = stores.tenants.tenant_with_key(&t.id).await.unwrap();
    assert_eq!((read, read_key), (t.clone(), key));
    let after = stores.tenants.set_retention(&t.id, 30).await.unwrap();
    assert_eq!(
        after,
        Tenant {
            retention_days: 30,
            ..t.clone()
        }
    );
    assert_eq!(
        stores.tenants.tenant(&t.id).await.unwrap().retention_days,
        30
    );
    assert!(matches!(
        stores
            .tenants
            .set_retention(&TenantId::generate(), 30)
            .await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        stores.tenants.tenant_with_key(&TenantId::generate()).await,
        Err(StoreError::NotFound)
    ));
}

/// A live tenant gets one test twin, however many ask at once; the twin is a tenant of its
/// own (mode `test`), named on the live tenant, and reads back as such.
pub async fn check_a_live_tenant_has_one_test_twin(stores: &Stores) {
    use domain::access::tenant::TenantMode;
    let (live, _) = tenant(stores, "SE,LT").await;
    let attempts: Vec<_> = (0..6)
        .map(|_| {
            let tenants = stores.tenants.clone();
            let live = live.id;
            let mut twin = new_tenant("SE,LT");
            twin.mode = TenantMode::Test;
            twin.status = TenantStatus::Active;
            twin.name = "Acme (test)".into();
            let key = data_key();
            tokio::spawn(async move { tenants.test_twin(&live, &twin, &key).await })
        })
        .collect();
    let mut twins = Vec::new();
    for a in attempts {
        twins.push(a.await.unwrap().expect("test_twin"));
    }
    let first = twins[0].id;
    assert!(twins.iter().all(|t| t.id == first), "one twin");
    assert_ne!(first, live.id);
    let twin = stores.tenants.tenant(&first).await.unwrap();
    assert_eq!(twin.mode, TenantMode::Test);
    assert_eq!(twin.status, TenantStatus::Active);
    assert_eq!(twin.test_tenant, None);
    let live_now = stores.tenants.tenant(&live.id).await.unwrap();
    assert_eq!(live_now.mode, TenantMode::Live);
    assert_eq!(live_now.test_tenant, Some(first));
    assert_eq!(
        stores.backing.count("tenants", "true").await,
        2,
        "no stray twin"
    );
    let unknown = stores
        .tenants
        .test_twin(&TenantId::generate(), &new_tenant("SE"), &data_key())
        .await;
    assert!(matches!(unknown, Err(StoreError::NotFound)));
}

/// Wiping a tenant's data deletes its subjects and what hangs on them, and nothing of
/// another tenant's, nor the tenant itself, its grants or its audit trail.
pub async fn check_wiping_deletes_one_tenants_data_only(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let (grant_a, _) = grant(stores, &a, "SE").await;
    for t in [&a, &b] {
        let id = identifier(adapters_se::identifiers::ORGNR);
        stores
            .subjects
            .resolve_or_create_subject(&t.id, &id, Some("crm-1"), &company(t0()))
            .await
            .expect("a subject");
    }
    let before_b = stores
        .backing
        .count("subjects", &format!("tenant_id = '{}'", b.id))
        .await;
    let deleted = stores.tenants.wipe_tenant_data(&a.id).await.expect("wiped");
    assert!(
        deleted >= 2,
        "the subject and its identifier at least: {deleted}"
    );
    assert_eq!(
        stores
            .backing
            .count("subjects", &format!("tenant_id = '{}'", a.id))
            .await,
        0
    );
    assert_eq!(
        stores
            .backing
            .count("subject_identifiers", &format!("tenant_id = '{}'", a.id))
            .await,
        0
    );
    assert_eq!(
        stores
            .backing
            .count("subjects", &format!("tenant_id = '{}'", b.id))
            .await,
        before_b
    );
    // The tenant and its grant stay.
    assert!(stores.tenants.tenant(&a.id).await.is_ok());
    assert!(stores.grants.grant(&a.id, &grant_a.id).await.is_ok());
    // A second wipe finds nothing.
    assert_eq!(stores.tenants.wipe_tenant_data(&a.id).await.unwrap(), 0);
}
