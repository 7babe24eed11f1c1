//! Grants and the countries provisioned above them: round trips, tenant scoping, narrowing under
//! live grants, updates, revocation and rotation.

use super::*;

pub async fn check_narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let (lt_only, _) = grant(stores, &t, "LT").await;
    let (both, _) = grant(stores, &t, "SE,LT").await;
    let (se_only, _) = grant(stores, &t, "SE").await;

    let refused = stores
        .tenants
        .set_provisioned_countries(&t.id, &countries("SE"))
        .await;
    match refused {
        Err(StoreError::GrantsOutsideCountries(ids)) => {
            assert_eq!(sorted(ids), sorted(vec![lt_only.id, both.id]));
        }
        other => panic!("expected GrantsOutsideCountries, got {other:?}"),
    }
    assert_eq!(
        stores.tenants.tenant(&t.id).await.unwrap(),
        t,
        "nothing changed"
    );
    for g in [&lt_only, &both, &se_only] {
        assert_eq!(&stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(), g);
    }
}

pub async fn check_a_revoked_grant_does_not_block_narrowing(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let (lt, _) = grant(stores, &t, "SE,LT").await;
    stores
        .grants
        .revoke_grant(&lt.tenant_id, &lt.id, t0() + Duration::hours(1))
        .await
        .unwrap();
    let narrowed = stores
        .tenants
        .set_provisioned_countries(&t.id, &countries("SE"))
        .await
        .unwrap();
    assert_eq!(narrowed.provisioned, countries("SE"));
    assert_eq!(
        stores.tenants.tenant(&t.id).await.unwrap(),
        Tenant {
            provisioned: countries("SE"),
            ..t
        }
    );
}

pub async fn check_narrowing_and_widening_succeed_when_the_grants_fit(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    grant(stores, &t, "SE").await;
    let narrowed = stores
        .tenants
        .set_provisioned_countries(&t.id, &countries("SE"))
        .await
        .unwrap();
    assert_eq!(narrowed.provisioned, countries("SE"));
    let widened = stores
        .tenants
        .set_provisioned_countries(&t.id, &countries("SE,LT"))
        .await
        .unwrap();
    assert_eq!(
        widened,
        Tenant {
            provisioned: countries("SE,LT"),
            ..t.clone()
        }
    );
    assert_eq!(
        stores.tenants.tenant(&t.id).await.unwrap().provisioned,
        countries("SE,LT")
    );
}

pub async fn check_a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside(stores: &Stores) {
    // Check and write are atomic: whichever runs first, the other is refused, and no live
    // grant ends up carrying a country the tenant lacks.
    for round in 0..8 {
        let (t, _) = tenant(stores, "SE,LT").await;
        let g = new_grant(&t, "kyb:read", "LT");
        let (grants, tenants) = (stores.grants.clone(), stores.tenants.clone());
        let (g2, id) = (g.clone(), t.id);
        let insert = tokio::spawn(async move { grants.insert_grant(&g2, &hash()).await });
        let narrow = tokio::spawn(async move {
            tenants
                .set_provisioned_countries(&id, &countries("SE"))
                .await
        });
        let (inserted, narrowed) = (insert.await.unwrap(), narrow.await.unwrap());
        match (&inserted, &narrowed) {
            (Ok(()), Err(StoreError::GrantsOutsideCountries(ids))) => assert_eq!(ids, &[g.id]),
            (Err(StoreError::GrantsOutsideCountries(ids)), Ok(_)) => assert_eq!(ids, &[g.id]),
            other => panic!("round {round}: exactly one write may win, got {other:?}"),
        }
        let provisioned = stores.tenants.tenant(&t.id).await.unwrap().provisioned;
        if let Ok(stored) = stores.grants.grant(&g.tenant_id, &g.id).await {
            assert!(stored.countries.is_subset(&provisioned), "round {round}");
        }
    }
}

// --- grants ---

pub async fn check_a_grant_round_trips_every_field(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let g = new_grant(&t, "kyb:read monitoring:read events:read", "SE,LT");
    stores.grants.insert_grant(&g, &hash()).await.unwrap();
    assert_eq!(stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(), g);

    // Open-ended, and made by the tenant in the portal.
    let open_ended = Grant {
        expires_at: None,
        owner: domain::access::grant::GrantOwner::Tenant,
        ..new_grant(&t, "kyc:read", "LT")
    };
    stores
        .grants
        .insert_grant(&open_ended, &hash())
        .await
        .unwrap();
    assert_eq!(
        stores
            .grants
            .grant(&open_ended.tenant_id, &open_ended.id)
            .await
            .unwrap(),
        open_ended
    );
    assert_eq!(
        stores.grants.grant(&t.id, &GrantId::generate()).await,
        Err(StoreError::NotFound)
    );
}

pub async fn check_grants_are_found_only_under_their_own_tenant(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    // The credential directory names the tenant of a grant known by id alone.
    assert_eq!(stores.grants.grant_tenant(&g.id).await, Ok(Some(t.id)));
    assert_eq!(
        stores.grants.grant_tenant(&GrantId::generate()).await,
        Ok(None)
    );
    // Under another tenant the grant does not exist, for reads and writes alike.
    assert_eq!(
        stores.grants.grant(&other.id, &g.id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores
            .grants
            .revoke_grant(&other.id, &g.id, t0() + Duration::hours(1))
            .await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.grants.rotate_secret(&other.id, &g.id, &hash()).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores
            .grants
            .update_grant(&other.id, &g.id, Some(&scopes("kyc:read")), None)
            .await,
        Err(StoreError::NotFound)
    );
    assert_eq!(stores.grants.grant(&t.id, &g.id).await.unwrap(), g);
}

pub async fn check_a_grant_outside_the_tenant_countries_is_refused_and_not_written(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE").await;
    let g = new_grant(&t, "kyb:read", "SE,LT");
    assert_eq!(
        stores.grants.insert_grant(&g, &hash()).await,
        Err(StoreError::GrantsOutsideCountries(vec![g.id]))
    );
    assert_eq!(
        stores.grants.grant(&g.tenant_id, &g.id).await,
        Err(StoreError::NotFound)
    );
    assert!(stores
        .grants
        .credentials(&g.client_id)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .grants
        .grant_access(&t.id, &g.id)
        .await
        .unwrap()
        .is_none());
}

pub async fn check_a_grant_of_an_unknown_tenant_is_not_found(stores: &Stores) {
    let ghost = new_tenant("SE");
    let g = new_grant(&ghost, "kyb:read", "SE");
    assert_eq!(
        stores.grants.insert_grant(&g, &hash()).await,
        Err(StoreError::NotFound)
    );
    assert!(stores
        .grants
        .credentials(&g.client_id)
        .await
        .unwrap()
        .is_none());
}

pub async fn check_credentials_find_grant_tenant_key_and_hash(stores: &Stores) {
    let (t, key) = tenant(stores, "SE,LT").await;
    let (g, h) = grant(stores, &t, "SE").await;
    let (access, stored_hash) = stores
        .grants
        .credentials(&g.client_id)
        .await
        .unwrap()
        .expect("the client is known");
    assert_eq!(access.grant, g);
    assert_eq!(access.tenant, t);
    assert_eq!(access.data_key, key);
    assert_eq!(stored_hash, h);

    for unknown in [
        ClientId::generate(),
        ClientId::from_wire(""),
        ClientId::from_wire("' OR 1=1 --"),
    ] {
        assert!(stores.grants.credentials(&unknown).await.unwrap().is_none());
    }
}

pub async fn check_grant_access_is_scoped_by_tenant(stores: &Stores) {
    let (t, key) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let (other_g, _) = grant(stores, &other, "SE").await;

    let access = stores
        .grants
        .grant_access(&t.id, &g.id)
        .await
        .unwrap()
        .expect("the grant is found under its tenant");
    assert_eq!(access.grant, g);
    assert_eq!(access.tenant, t);
    assert_eq!(access.data_key, key);

    // A token naming a grant under the wrong tenant finds nothing.
    assert!(stores
        .grants
        .grant_access(&other.id, &g.id)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .grants
        .grant_access(&t.id, &other_g.id)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .grants
        .grant_access(&TenantId::generate(), &g.id)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .grants
        .grant_access(&t.id, &GrantId::generate())
        .await
        .unwrap()
        .is_none());
}

pub async fn check_a_grant_update_replaces_scopes_or_countries_only(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let (g, h) = grant(stores, &t, "SE").await;

    let narrowed_scopes = scopes("kyc:read");
    let after = stores
        .grants
        .update_grant(&g.tenant_id, &g.id, Some(&narrowed_scopes), None)
        .await
        .unwrap();
    let expected = Grant {
        scopes: narrowed_scopes.clone(),
        ..g.clone()
    };
    assert_eq!(after, expected);

    let widened = countries("SE,LT");
    let after = stores
        .grants
        .update_grant(&g.tenant_id, &g.id, None, Some(&widened))
        .await
        .unwrap();
    let expected = Grant {
        countries: widened.clone(),
        ..expected
    };
    assert_eq!(after, expected);

    let (both_scopes, both_countries) = (scopes("kyb:read events:read"), countries("LT"));
    let after = stores
        .grants
        .update_grant(
            &g.tenant_id,
            &g.id,
            Some(&both_scopes),
            Some(&both_countries),
        )
        .await
        .unwrap();
    let expected = Grant {
        scopes: both_scopes,
        countries: both_countries,
        ..expected
    };
    assert_eq!(after, expected);
    assert_eq!(
        stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(),
        expected
    );

    // The credentials are untouched by an update.
    let (access, stored_hash) = stores
        .grants
        .credentials(&g.client_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(access.grant, expected);
    assert_eq!(stored_hash, h);
}

pub async fn check_a_grant_update_outside_the_tenant_countries_is_refused(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let (new_scopes, outside) = (scopes("events:read"), countries("SE,LT"));
    assert_eq!(
        stores
            .grants
            .update_grant(&g.tenant_id, &g.id, Some(&new_scopes), Some(&outside))
            .await,
        Err(StoreError::GrantsOutsideCountries(vec![g.id]))
    );
    assert_eq!(
        stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(),
        g,
        "nothing changed"
    );
    assert_eq!(
        stores
            .grants
            .update_grant(&t.id, &GrantId::generate(), Some(&new_scopes), None)
            .await,
        Err(StoreError::NotFound)
    );
}

pub async fn check_revoking_twice_keeps_the_first_revocation(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let first = t0() + Duration::hours(2) + Duration::microseconds(7);
    let revoked = stores
        .grants
        .revoke_grant(&g.tenant_id, &g.id, first)
        .await
        .unwrap();
    let expected = Grant {
        revoked_at: Some(first),
        ..g.clone()
    };
    assert_eq!(revoked, expected);
    let again = stores
        .grants
        .revoke_grant(&g.tenant_id, &g.id, first + Duration::hours(5))
        .await
        .unwrap();
    assert_eq!(again.revoked_at, Some(first));
    assert_eq!(
        stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(),
        expected
    );
    assert_eq!(
        stores
            .grants
            .revoke_grant(&t.id, &GrantId::generate(), first)
            .await,
        Err(StoreError::NotFound)
    );
}

pub async fn check_rotation_bumps_the_generation_and_replaces_the_hash(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, old) = grant(stores, &t, "SE").await;
    let new = hash();
    let rotated = stores
        .grants
        .rotate_secret(&g.tenant_id, &g.id, &new)
        .await
        .unwrap();
    assert_eq!(
        rotated,
        Grant {
            credential_generation: 2,
            ..g.clone()
        }
    );
    let (access, stored) = stores
        .grants
        .credentials(&g.client_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(access.grant.credential_generation, 2);
    assert_eq!(stored, new);
    assert_ne!(stored, old);

    let newer = hash();
    let again = stores
        .grants
        .rotate_secret(&g.tenant_id, &g.id, &newer)
        .await
        .unwrap();
    assert_eq!(again.credential_generation, 3);
    assert_eq!(
        stores
            .grants
            .grant_access(&t.id, &g.id)
            .await
            .unwrap()
            .unwrap()
            .grant
            .credential_generation,
        3
    );
    assert_eq!(
        stores
            .grants
            .rotate_secret(&t.id, &GrantId::generate(), &newer)
            .await,
        Err(StoreError::NotFound)
    );
}

pub async fn check_a_tenants_grants_are_listed_newest_first_and_no_others(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    assert!(stores.grants.grants(&t.id).await.unwrap().is_empty());
    let mut made = Vec::new();
    for minutes in 0..3 {
        let mut g = new_grant(&t, "kyb:read", "SE");
        g.created_at = t0() + Duration::minutes(minutes);
        stores.grants.insert_grant(&g, &hash()).await.unwrap();
        made.push(g);
    }
    grant(stores, &other, "SE").await;
    stores
        .grants
        .revoke_grant(&t.id, &made[0].id, t0() + Duration::hours(1))
        .await
        .unwrap();
    let listed = stores.grants.grants(&t.id).await.unwrap();
    let ids: Vec<GrantId> = listed.iter().map(|g| g.id).collect();
    assert_eq!(ids, vec![made[2].id, made[1].id, made[0].id]);
    assert!(
        listed[2].revoked_at.is_some(),
        "revoked grants are listed too"
    );
    assert_eq!(listed[0], made[2]);
}
