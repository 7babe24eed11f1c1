//! `AdminService`: the operator's rules for tenants, permits, budgets and grants.

use crate::access::admin::{AdminService, NewGrant, NewTenant};
use crate::access::grant::{ClientSecret, Grant, SecretHash};
use crate::access::ports::{MockCredentialHasher, MockGrantStore, MockTenantStore};
use crate::access::tenant::{Budget, PermitStatus, Tenant, TenantStatus};
use crate::companies::ports::MockPaidStore;
use crate::countries::country::Country;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::fixtures::{clock, countries, data_key, grant, now, scopes, tenant};
use crate::ids::GrantId;
use crate::monitoring::ports::MockSubscriptionStore;
use crate::persons::ports::MockPersonStore;
use crate::subjects::ports::MockIdentifierVault;
use chrono::{Duration, NaiveDate};
use std::sync::Arc;

/// The mocks of one test; `service()` consumes them.
#[derive(Default)]
struct Ports {
    tenants: MockTenantStore,
    grants: MockGrantStore,
    hasher: MockCredentialHasher,
    vault: MockIdentifierVault,
    paid: MockPaidStore,
    persons: MockPersonStore,
    subscriptions: MockSubscriptionStore,
}

impl Ports {
    fn service(self) -> AdminService {
        AdminService {
            calendar: Default::default(),
            tenants: Arc::new(self.tenants),
            grants: Arc::new(self.grants),
            hasher: Arc::new(self.hasher),
            vault: Arc::new(self.vault),
            paid: Arc::new(self.paid),
            persons: Arc::new(self.persons),
            subscriptions: Arc::new(self.subscriptions),
            meter: Arc::new(crate::meter::NoMeter),
            clock: clock(),
        }
    }

    /// The tenant store answers `tenant(id)` with `t`.
    fn knows_tenant(&mut self, t: &Tenant) {
        let t = t.clone();
        let id = t.id;
        self.tenants
            .expect_tenant()
            .withf(move |asked| *asked == id)
            .returning(move |_| Ok(t.clone()));
    }

    /// The hasher generates one secret and hashes it.
    fn hashes_one_secret(&mut self) {
        self.hasher
            .expect_generate_secret()
            .times(1)
            .returning(|| ClientSecret::new("cs_fresh".into()));
        self.hasher
            .expect_hash_secret()
            .withf(|s| s.expose() == "cs_fresh")
            .times(1)
            .returning(|_| Ok(SecretHash("$argon2id$fresh".into())));
    }

    /// The credential directory names the grant's tenant.
    fn locates_grant(&mut self, g: &Grant) {
        let (id, tenant) = (g.id, g.tenant_id);
        self.grants
            .expect_grant_tenant()
            .withf(move |asked| *asked == id)
            .returning(move |_| Ok(Some(tenant)));
    }

    fn writes_no_grant(&mut self) {
        self.grants.expect_insert_grant().times(0);
        self.grants.expect_update_grant().times(0);
        self.hasher.expect_generate_secret().never();
        self.hasher.expect_hash_secret().never();
    }
}

/// The failure of a result whose success type has no `Debug` (an issued secret).
fn refused<T>(result: Result<T, Failure>) -> Failure {
    match result {
        Ok(_) => panic!("expected a failure"),
        Err(failure) => failure,
    }
}

fn new_tenant(provisioned: Option<&str>, activate: bool) -> NewTenant {
    NewTenant {
        name: "  Acme AB ".into(),
        own_country: Country::Se,
        provisioned: provisioned.map(countries),
        activate,
    }
}

fn new_grant(t: &Tenant, country_list: &str) -> NewGrant {
    NewGrant {
        test: false,
        tenant_id: t.id,
        scopes: scopes("kyb:read"),
        countries: countries(country_list),
        expires_at: None,
        owner: crate::access::grant::GrantOwner::Operator,
    }
}

// --- tenants ---

#[tokio::test]
async fn a_tenant_created_without_a_provision_list_is_provisioned_for_its_own_country() {
    let mut ports = Ports::default();
    ports
        .vault
        .expect_new_data_key()
        .times(1)
        .returning(|_| Ok(data_key()));
    ports
        .tenants
        .expect_insert_tenant()
        .withf(|t, key| {
            t.provisioned == countries("SE")
                && t.own_country == Country::Se
                && t.name == "Acme AB"
                && t.status == TenantStatus::Pending
                && t.permit.is_none()
                && t.budget == Budget::default()
                && t.created_at == now()
                && *key == data_key()
        })
        .times(1)
        .returning(|_, _| Ok(()));
    let created = ports
        .service()
        .create_tenant(new_tenant(None, false))
        .await
        .expect("created");
    assert_eq!(created.provisioned, countries("SE"));
    assert_eq!(created.status, TenantStatus::Pending);
}

#[tokio::test]
async fn a_tenant_created_with_activate_is_active_and_keeps_its_provision_list() {
    let mut ports = Ports::default();
    ports
        .vault
        .expect_new_data_key()
        .returning(|_| Ok(data_key()));
    ports
        .tenants
        .expect_insert_tenant()
        .withf(|t, _| t.provisioned == countries("SE,LT") && t.status == TenantStatus::Active)
        .times(1)
        .returning(|_, _| Ok(()));
    let created = ports
        .service()
        .create_tenant(new_tenant(Some("SE,LT"), true))
        .await
        .expect("created");
    assert_eq!(created.status, TenantStatus::Active);
}

#[tokio::test]
async fn a_provision_list_without_the_own_country_is_provisioned_countries_invalid() {
    let mut ports = Ports::default();
    ports.vault.expect_new_data_key().never();
    ports.tenants.expect_insert_tenant().never();
    let failure = ports
        .service()
        .create_tenant(new_tenant(Some("LT"), true))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::ProvisionedCountriesInvalid);
    assert!(failure.message.contains("SE"), "{}", failure.message);
}

#[tokio::test]
async fn a_blank_tenant_name_is_a_bad_request_naming_the_field() {
    let mut ports = Ports::default();
    ports.tenants.expect_insert_tenant().never();
    let mut blank = new_tenant(None, false);
    blank.name = "   ".into();
    let failure = ports.service().create_tenant(blank).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
    assert!(failure.message.contains("`name`"), "{}", failure.message);
}

#[tokio::test]
async fn the_own_country_cannot_be_dropped_from_the_provision_list() {
    let t = tenant("SE,LT");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.tenants.expect_set_provisioned_countries().never();
    let failure = ports
        .service()
        .set_tenant_countries(&t.id.to_string(), countries("LT"))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::ProvisionedCountriesInvalid);
}

#[tokio::test]
async fn narrowing_a_tenant_under_live_grants_is_grant_countries_invalid_naming_them() {
    let t = tenant("SE,LT");
    let (g1, g2) = (GrantId::generate(), GrantId::generate());
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    let id = t.id;
    ports
        .tenants
        .expect_set_provisioned_countries()
        .withf(move |asked, set| *asked == id && *set == countries("SE"))
        .times(1)
        .returning(move |_, _| Err(StoreError::GrantsOutsideCountries(vec![g1, g2])));
    let failure = ports
        .service()
        .set_tenant_countries(&t.id.to_string(), countries("SE"))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
    assert!(
        failure.message.contains(&g1.to_string()),
        "{}",
        failure.message
    );
    assert!(
        failure.message.contains(&g2.to_string()),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn a_malformed_tenant_id_is_not_found() {
    let mut ports = Ports::default();
    ports.tenants.expect_tenant().never();
    let failure = ports.service().tenant("not-an-id").await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn an_unknown_tenant_is_not_found() {
    let mut ports = Ports::default();
    ports
        .tenants
        .expect_set_tenant_status()
        .returning(|_, _| Err(StoreError::NotFound));
    let failure = ports
        .service()
        .activate_tenant(&crate::ids::TenantId::generate().to_string())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_permit_ending_before_it_starts_is_a_bad_request() {
    let mut ports = Ports::default();
    ports.tenants.expect_record_permit().never();
    let from = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
    let failure = ports
        .service()
        .set_permit(
            &crate::ids::TenantId::generate().to_string(),
            from,
            from - Duration::days(1),
            PermitStatus::Active,
        )
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn a_permit_is_recorded_at_the_clock_time() {
    let t = tenant("SE");
    let mut ports = Ports::default();
    let answer = t.clone();
    let from = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
    ports
        .tenants
        .expect_record_permit()
        .withf(move |_, p| {
            p.recorded_at == now() && p.valid_from == from && p.status == PermitStatus::Suspended
        })
        .times(1)
        .returning(move |_, _| Ok(answer.clone()));
    // A permit not in force: the tenant's active person subscriptions are looked up to be
    // suspended (none here).
    ports
        .subscriptions
        .expect_subscriptions()
        .withf(|_, f| {
            f.kinds == [crate::monitoring::subscription::SubscriptionKind::Person]
                && f.status == Some(crate::monitoring::subscription::SubscriptionStatus::Active)
        })
        .times(1)
        .returning(|_, _| Ok(Vec::new()));
    ports
        .service()
        .set_permit(
            &t.id.to_string(),
            from,
            from + Duration::days(365),
            PermitStatus::Suspended,
        )
        .await
        .expect("recorded");
}

#[tokio::test]
async fn a_budget_out_of_bounds_is_a_bad_request_and_not_stored() {
    for budget in [
        Budget {
            monitoring_share: 1.5,
            ..Budget::default()
        },
        Budget {
            monitoring_share: f64::NAN,
            ..Budget::default()
        },
        Budget {
            daily_paid_calls: -1,
            ..Budget::default()
        },
        Budget {
            person_lookup_ceiling: -1,
            ..Budget::default()
        },
    ] {
        let mut ports = Ports::default();
        ports.tenants.expect_set_budget().never();
        let failure = ports
            .service()
            .set_budget(&crate::ids::TenantId::generate().to_string(), budget)
            .await
            .unwrap_err();
        assert_eq!(failure.code, ErrorCode::BadRequest);
    }
}

// --- grants ---

#[tokio::test]
async fn a_grant_without_countries_is_grant_countries_invalid_and_not_written() {
    let t = tenant("SE");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.writes_no_grant();
    let failure = refused(ports.service().create_grant(new_grant(&t, "")).await);
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
}

#[tokio::test]
async fn a_grant_outside_the_tenant_countries_is_grant_countries_invalid_and_not_written() {
    let t = tenant("SE");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.writes_no_grant();
    let failure = refused(ports.service().create_grant(new_grant(&t, "SE,LT")).await);
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
    assert_eq!(failure.status(), 400);
}

#[tokio::test]
async fn a_grant_expiring_in_the_past_is_a_bad_request() {
    let t = tenant("SE");
    for expires_at in [now() - Duration::seconds(1), now()] {
        let mut ports = Ports::default();
        ports.knows_tenant(&t);
        ports.writes_no_grant();
        let mut g = new_grant(&t, "SE");
        g.expires_at = Some(expires_at);
        let failure = refused(ports.service().create_grant(g).await);
        assert_eq!(failure.code, ErrorCode::BadRequest);
        assert!(
            failure.message.contains("expires-at"),
            "{}",
            failure.message
        );
    }
}

#[tokio::test]
async fn a_grant_for_an_unknown_tenant_is_not_found() {
    let t = tenant("SE");
    let mut ports = Ports::default();
    ports
        .tenants
        .expect_tenant()
        .returning(|_| Err(StoreError::NotFound));
    ports.writes_no_grant();
    let failure = refused(ports.service().create_grant(new_grant(&t, "SE")).await);
    assert_eq!(failure.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_created_grant_is_stored_with_its_hash_and_its_secret_shown_once() {
    let t = tenant("SE,LT");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.hashes_one_secret();
    let tenant_id = t.id;
    let expires_at = now() + Duration::days(90);
    ports
        .grants
        .expect_insert_grant()
        .withf(move |g, hash| {
            g.tenant_id == tenant_id
                && g.scopes == scopes("kyb:read")
                && g.countries == countries("LT")
                && g.expires_at == Some(expires_at)
                && g.revoked_at.is_none()
                && g.credential_generation == 1
                && g.created_at == now()
                && g.client_id.is_well_formed()
                && hash.0 == "$argon2id$fresh"
        })
        .times(1)
        .returning(|_, _| Ok(()));
    let mut request = new_grant(&t, "LT");
    request.expires_at = Some(expires_at);
    let issued = ports
        .service()
        .create_grant(request)
        .await
        .expect("created");
    assert_eq!(issued.client_secret.expose(), "cs_fresh");
    assert_eq!(issued.grant.countries, countries("LT"));
}

#[tokio::test]
async fn a_grant_refused_by_the_store_for_its_countries_is_grant_countries_invalid() {
    // The tenant was narrowed between the check and the write: the store's atomic check wins.
    let t = tenant("SE,LT");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.hashes_one_secret();
    ports
        .grants
        .expect_insert_grant()
        .times(1)
        .returning(|g, _| Err(StoreError::GrantsOutsideCountries(vec![g.id])));
    let failure = refused(ports.service().create_grant(new_grant(&t, "LT")).await);
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
}

#[tokio::test]
async fn an_update_with_neither_scopes_nor_countries_is_a_bad_request() {
    let mut ports = Ports::default();
    ports.writes_no_grant();
    ports.grants.expect_grant_tenant().never();
    let failure = ports
        .service()
        .update_grant(&GrantId::generate().to_string(), None, None)
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn an_update_to_no_countries_is_grant_countries_invalid() {
    let mut ports = Ports::default();
    ports.writes_no_grant();
    let failure = ports
        .service()
        .update_grant(&GrantId::generate().to_string(), None, Some(countries("")))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
}

#[tokio::test]
async fn an_update_to_countries_outside_the_tenant_is_grant_countries_invalid() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.locates_grant(&g);
    ports.writes_no_grant();
    let failure = ports
        .service()
        .update_grant(&g.id.to_string(), None, Some(countries("SE,LT")))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
}

#[tokio::test]
async fn an_update_of_scopes_only_leaves_the_countries_alone() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut ports = Ports::default();
    ports.tenants.expect_tenant().never();
    ports.locates_grant(&g);
    let (tenant_id, id, answer) = (t.id, g.id, g.clone());
    ports
        .grants
        .expect_update_grant()
        .withf(move |tenant, asked, s, c| {
            *tenant == tenant_id
                && *asked == id
                && *s == Some(&scopes("kyb:read kyc:read"))
                && c.is_none()
        })
        .times(1)
        .returning(move |_, _, _, _| Ok(answer.clone()));
    ports
        .service()
        .update_grant(&g.id.to_string(), Some(scopes("kyb:read kyc:read")), None)
        .await
        .expect("updated");
}

#[tokio::test]
async fn an_update_refused_by_the_store_for_its_countries_names_the_grant() {
    let t = tenant("SE,LT");
    let g = grant(&t, "kyb:read", "SE");
    let mut ports = Ports::default();
    ports.knows_tenant(&t);
    ports.locates_grant(&g);
    ports
        .grants
        .expect_update_grant()
        .times(1)
        .returning(|_, id, _, _| Err(StoreError::GrantsOutsideCountries(vec![*id])));
    let failure = ports
        .service()
        .update_grant(&g.id.to_string(), None, Some(countries("LT")))
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::GrantCountriesInvalid);
    assert!(
        failure.message.contains(&g.id.to_string()),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn a_malformed_grant_id_is_not_found() {
    let mut ports = Ports::default();
    ports.grants.expect_grant_tenant().never();
    ports.grants.expect_revoke_grant().never();
    ports.grants.expect_rotate_secret().never();
    let service = ports.service();
    assert_eq!(
        service.revoke_grant("nope").await.unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        service
            .update_grant("nope", Some(scopes("kyb:read")), None)
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn a_grant_the_directory_does_not_know_is_not_found() {
    let mut ports = Ports::default();
    ports.grants.expect_grant_tenant().returning(|_| Ok(None));
    ports.grants.expect_revoke_grant().never();
    let failure = ports
        .service()
        .revoke_grant(&GrantId::generate().to_string())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_grant_is_revoked_at_the_clock_time() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut ports = Ports::default();
    ports.locates_grant(&g);
    let (tenant_id, answer) = (t.id, g.clone());
    ports
        .grants
        .expect_revoke_grant()
        .withf(move |tenant, _, at| *tenant == tenant_id && *at == now())
        .times(1)
        .returning(move |_, _, _| Ok(answer.clone()));
    ports
        .service()
        .revoke_grant(&g.id.to_string())
        .await
        .expect("revoked");
}

#[tokio::test]
async fn a_rotation_stores_the_hash_of_the_new_secret_it_shows() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut ports = Ports::default();
    ports.hashes_one_secret();
    ports.locates_grant(&g);
    let current = g.clone();
    ports
        .grants
        .expect_grant()
        .returning(move |_, _| Ok(current.clone()));
    let (id, answer) = (g.id, g.clone());
    ports
        .grants
        .expect_rotate_secret()
        .withf(move |_, asked, hash| *asked == id && hash.0 == "$argon2id$fresh")
        .times(1)
        .returning(move |_, _, _| Ok(answer.clone()));
    let rotated = ports
        .service()
        .rotate_secret(&g.id.to_string())
        .await
        .expect("rotated");
    assert_eq!(rotated.client_secret.expose(), "cs_fresh");
}

/// A test grant is made on the tenant's test twin (its own tenant, made by the store once),
/// in line with the live tenant, with credentials that say `test`.
#[tokio::test]
async fn a_test_grant_lives_on_the_test_twin_with_test_credentials() {
    use crate::access::tenant::TenantMode;
    let live = tenant("SE,LT");
    let mut ports = Ports::default();
    ports
        .hasher
        .expect_generate_secret()
        .times(1)
        .returning(|| ClientSecret::new("cs_fresh".into()));
    ports
        .hasher
        .expect_hash_secret()
        .withf(|s| s.expose() == "cs_test_fresh")
        .times(1)
        .returning(|_| Ok(SecretHash("$argon2id$fresh".into())));
    let l = live.clone();
    ports
        .tenants
        .expect_tenant()
        .returning(move |_| Ok(l.clone()));
    ports
        .vault
        .expect_new_data_key()
        .returning(|_| Ok(crate::fixtures::data_key()));
    let live_id = live.id;
    ports
        .tenants
        .expect_test_twin()
        .withf(move |asked, twin, _| {
            *asked == live_id
                && twin.mode == TenantMode::Test
                && twin.id != live_id
                && twin.name.ends_with("(test)")
        })
        .times(1)
        .returning(|_, twin, _| Ok(twin.clone()));
    // The twin is given a permit in force (it reads only synthetic persons).
    ports
        .tenants
        .expect_record_permit()
        .times(1)
        .returning(|_, permit| {
            let mut t = tenant("SE,LT");
            t.mode = TenantMode::Test;
            t.permit = Some(permit.clone());
            Ok(t)
        });
    ports
        .grants
        .expect_insert_grant()
        .withf(move |g, _| g.tenant_id != live_id && g.client_id.is_test())
        .times(1)
        .returning(|_, _| Ok(()));
    let issued = ports
        .service()
        .create_grant(NewGrant {
            tenant_id: live.id,
            scopes: crate::fixtures::scopes("kyb:read"),
            countries: crate::fixtures::countries("SE"),
            expires_at: None,
            test: true,
            owner: crate::access::grant::GrantOwner::Operator,
        })
        .await
        .expect("a test grant");
    assert!(issued.grant.client_id.as_str().starts_with("cid_test_"));
    assert!(issued.client_secret.expose().starts_with("cs_test_"));
}

/// Only a test twin's data is ever wiped: a live tenant without a twin has nothing to wipe.
#[tokio::test]
async fn wiping_needs_a_test_twin_and_never_touches_a_live_tenant() {
    let live = tenant("SE");
    let mut ports = Ports::default();
    let l = live.clone();
    ports
        .tenants
        .expect_tenant()
        .returning(move |_| Ok(l.clone()));
    ports.tenants.expect_wipe_tenant_data().never();
    let f = ports
        .service()
        .wipe_test_data(&live.id.to_string())
        .await
        .unwrap_err();
    assert_eq!(f.code, ErrorCode::NotFound);
}
