//! Storage conformance: every "MUST" of the storage ports (`domain::ports`) and the invariants
//! the use cases rely on, written once against the port traits.
//!
//! Each rule is an `async fn check_*(stores: &Stores)` that sees only the ports, plus, where a
//! rule is about what was written (audit rows, row counts), a [`Backing`] that looks beneath
//! them. Each adapter runs every check from its own module of tests (`mod postgres` below): a
//! second adapter adds a `Backing` variant, a constructor and one `conformance_tests!` list.
//!
//! The storage layer never sees a plaintext identifier: the checks fabricate
//! `ProtectedIdentifier`s from random bytes.

use blackbox::db::TestDatabase;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use domain::audit::{AccessRecord, Outcome, RequestContext, SecurityReason, SecurityRecord};
use domain::country::{Country, CountrySet};
use domain::error::ErrorCode;
use domain::evidence::Evidence;
use domain::grant::{Grant, SecretHash};
use domain::identifier::IdentifierType;
use domain::identifier::SubjectKind;
use domain::ids::{CallRef, ClientId, GrantId, IdentifierRef, RequestId, SubjectId, TenantId};
use domain::operation::{Operation, Surface};
use domain::ports::{AuditSink, GrantStore, StoreError, SubjectStore, TenantStore};
use domain::scope::ScopeSet;
use domain::subject::{BlindIndex, FirstSighting, FreshSubject, ProtectedIdentifier};
use domain::tenant::{Budget, Permit, PermitStatus, Tenant, TenantStatus, WrappedDataKey};
use serde_json::{json, Value};
use std::sync::Arc;

/// The storage adapter under test: its ports, and what lies beneath them.
pub struct Stores {
    pub tenants: Arc<dyn TenantStore>,
    pub grants: Arc<dyn GrantStore>,
    pub audit: Arc<dyn AuditSink>,
    pub subjects: Arc<dyn SubjectStore>,
    pub backing: Backing,
}

/// Beneath the ports: how a check sees what an adapter wrote. Each view answers in one
/// adapter-neutral shape (JSON objects with the port's field names, times as UTC
/// `YYYY-MM-DDTHH:MM:SS.ffffff`).
pub enum Backing {
    Postgres(TestDatabase),
}

impl Backing {
    /// The tenant audit rows of one request.
    async fn audit_rows(&self, request: RequestId) -> Vec<Value> {
        match self {
            Backing::Postgres(db) => {
                db.rows(&format!(
                    "SELECT tenant_id, audit_id, grant_id, request_id, {}, surface, action, method, \
                     route, tool, status, outcome, error_code, detail \
                     FROM audit_log WHERE request_id = '{request}'",
                    utc_text("occurred_at")
                ))
                .await
            }
        }
    }

    /// The grant access rows of one request.
    async fn access_rows(&self, request: RequestId) -> Vec<Value> {
        match self {
            Backing::Postgres(db) => {
                db.rows(&format!(
                    "SELECT tenant_id, grant_id, access_id, request_id, {}, surface, method, route, \
                     tool, status, outcome, error_code \
                     FROM access_log WHERE request_id = '{request}'",
                    utc_text("occurred_at")
                ))
                .await
            }
        }
    }

    /// The security-log rows of one request.
    async fn security_rows(&self, request: RequestId) -> Vec<Value> {
        match self {
            Backing::Postgres(db) => {
                db.rows(&format!(
                    "SELECT event_id, request_id, {}, method, route, status, reason, client_id, peer \
                     FROM security_log WHERE request_id = '{request}'",
                    utc_text("occurred_at")
                ))
                .await
            }
        }
    }

    /// How many subjects the tenant has (merged or not).
    async fn subject_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("subjects", &format!("tenant_id = '{tenant}'"))
                    .await
            }
        }
    }

    /// How many identifiers the tenant has stored.
    async fn identifier_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("subject_identifiers", &format!("tenant_id = '{tenant}'"))
                    .await
            }
        }
    }

    /// How many permits were ever recorded for the tenant.
    async fn permit_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("permits", &format!("tenant_id = '{tenant}'"))
                    .await
            }
        }
    }
}

/// SQL rendering a timestamptz column as UTC text with microseconds, named as the column.
fn utc_text(column: &str) -> String {
    format!("to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') AS {column}")
}

/// The same rendering of a time on this side.
fn utc(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
}

// --- fixtures ---

/// A fixed instant with a non-zero microsecond part (storage keeps microseconds).
fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 15).unwrap() + Duration::microseconds(123_457)
}

fn countries(list: &str) -> CountrySet {
    CountrySet::parse_list(list).unwrap()
}

fn scopes(list: &str) -> ScopeSet {
    ScopeSet::parse_list(list).unwrap()
}

/// `n` random bytes.
fn random_bytes(n: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(n + 10);
    while bytes.len() < n {
        // The low 80 bits of a ULID are random.
        bytes.extend_from_slice(&ulid::Ulid::generate().0.to_le_bytes()[..10]);
    }
    bytes.truncate(n);
    bytes
}

fn data_key() -> WrappedDataKey {
    WrappedDataKey(random_bytes(60))
}

/// A pending Swedish tenant provisioned for `provisioned`, with a non-default budget.
fn new_tenant(provisioned: &str) -> Tenant {
    Tenant {
        id: TenantId::generate(),
        name: "Acme Ünïcode AB".into(),
        own_country: Country::Se,
        provisioned: countries(provisioned),
        status: TenantStatus::Pending,
        permit: None,
        budget: Budget {
            daily_paid_calls: 1234,
            monitoring_share: 0.25,
            person_lookup_ceiling: 77,
        },
        created_at: t0(),
    }
}

/// Inserts a tenant provisioned for `provisioned` and returns it with its data key.
async fn tenant(stores: &Stores, provisioned: &str) -> (Tenant, WrappedDataKey) {
    let t = new_tenant(provisioned);
    let key = data_key();
    stores
        .tenants
        .insert_tenant(&t, &key)
        .await
        .expect("insert_tenant");
    (t, key)
}

fn new_grant(t: &Tenant, scope_list: &str, country_list: &str) -> Grant {
    Grant {
        id: GrantId::generate(),
        tenant_id: t.id,
        client_id: ClientId::generate(),
        scopes: scopes(scope_list),
        countries: countries(country_list),
        expires_at: Some(t0() + Duration::days(90)),
        revoked_at: None,
        credential_generation: 1,
        created_at: t0() + Duration::microseconds(1),
    }
}

fn hash() -> SecretHash {
    SecretHash(format!(
        "$argon2id$v=19$m=19456,t=2,p=1${}",
        ulid::Ulid::generate()
    ))
}

/// Inserts a grant of `t` and returns it with its secret hash.
async fn grant(stores: &Stores, t: &Tenant, country_list: &str) -> (Grant, SecretHash) {
    let g = new_grant(t, "kyb:read kyc:read", country_list);
    let h = hash();
    stores
        .grants
        .insert_grant(&g, &h)
        .await
        .expect("insert_grant");
    (g, h)
}

/// A fabricated protected identifier: random blind index and ciphertext.
fn identifier(id_type: IdentifierType) -> ProtectedIdentifier {
    ProtectedIdentifier {
        id_type,
        country: id_type.country(),
        blind_index: BlindIndex(random_bytes(32)),
        sealed: random_bytes(48),
    }
}

fn fresh(kind: SubjectKind, at: DateTime<Utc>) -> FreshSubject {
    FreshSubject {
        subject_id: SubjectId::generate(),
        identifier_ref: IdentifierRef::generate(),
        kind,
        sighting: FirstSighting::ConsumerIdentity {
            call_ref: CallRef::generate(),
            route: "/v1/subjects/resolve",
        },
        at,
    }
}

fn company(at: DateTime<Utc>) -> FreshSubject {
    fresh(SubjectKind::Company, at)
}

fn sorted(mut ids: Vec<GrantId>) -> Vec<GrantId> {
    ids.sort();
    ids
}

// --- tenants ---

async fn check_tenant_round_trips_every_field(stores: &Stores) {
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

async fn check_a_tenant_inserted_with_a_permit_keeps_it(stores: &Stores) {
    // `Tenant` carries its current permit; inserting one must not lose it.
    let mut t = new_tenant("SE");
    t.permit = Some(permit(PermitStatus::Active, t0()));
    stores.tenants.insert_tenant(&t, &data_key()).await.unwrap();
    assert_eq!(stores.tenants.tenant(&t.id).await.unwrap(), t);
}

async fn check_unknown_tenant_is_not_found(stores: &Stores) {
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

async fn check_tenant_status_changes(stores: &Stores) {
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

async fn check_the_newest_permit_is_current_and_reinstating_adds_a_row(stores: &Stores) {
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

async fn check_a_permit_recorded_in_the_same_instant_still_becomes_current(stores: &Stores) {
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

async fn check_the_budget_is_set(stores: &Stores) {
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

// --- provisioned countries and the grants under them ---

async fn check_narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing(
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

async fn check_a_revoked_grant_does_not_block_narrowing(stores: &Stores) {
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

async fn check_narrowing_and_widening_succeed_when_the_grants_fit(stores: &Stores) {
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

async fn check_a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside(stores: &Stores) {
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

async fn check_a_grant_round_trips_every_field(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let g = new_grant(&t, "kyb:read monitoring:read events:read", "SE,LT");
    stores.grants.insert_grant(&g, &hash()).await.unwrap();
    assert_eq!(stores.grants.grant(&g.tenant_id, &g.id).await.unwrap(), g);

    let open_ended = Grant {
        expires_at: None,
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

async fn check_grants_are_found_only_under_their_own_tenant(stores: &Stores) {
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

async fn check_a_grant_outside_the_tenant_countries_is_refused_and_not_written(stores: &Stores) {
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

async fn check_a_grant_of_an_unknown_tenant_is_not_found(stores: &Stores) {
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

async fn check_credentials_find_grant_tenant_key_and_hash(stores: &Stores) {
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

async fn check_grant_access_is_scoped_by_tenant(stores: &Stores) {
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

async fn check_a_grant_update_replaces_scopes_or_countries_only(stores: &Stores) {
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

async fn check_a_grant_update_outside_the_tenant_countries_is_refused(stores: &Stores) {
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

async fn check_revoking_twice_keeps_the_first_revocation(stores: &Stores) {
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

async fn check_rotation_bumps_the_generation_and_replaces_the_hash(stores: &Stores) {
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

// --- audit ---

fn request_context(peer: Option<&str>) -> RequestContext {
    RequestContext {
        request_id: RequestId::generate(),
        received_at: t0() + Duration::microseconds(42),
        peer: peer.map(str::to_owned),
    }
}

/// Takes the generated row id out of each row, checking it is present and unique.
fn take_ids(rows: &mut [Value], field: &str) {
    let mut seen = std::collections::HashSet::new();
    for row in rows.iter_mut() {
        let id = row
            .as_object_mut()
            .unwrap()
            .remove(field)
            .unwrap_or_else(|| panic!("no {field} in {row}"));
        let id = id.as_str().unwrap_or_default().to_owned();
        assert!(!id.is_empty(), "{field} is set");
        assert!(seen.insert(id), "{field} is unique");
    }
}

async fn check_an_access_record_writes_one_audit_row_and_one_access_row(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let ctx = request_context(Some("198.51.100.4"));
    let record = AccessRecord::new(
        &ctx,
        Operation::McpToolCall,
        t.id,
        g.id,
        Surface::Mcp,
        403,
        Outcome::Refused,
    )
    .with_error(ErrorCode::TenantPending)
    .with_detail("tenant_pending")
    .with_tool("resolve_subject");
    stores
        .audit
        .record_access(std::slice::from_ref(&record))
        .await
        .unwrap();

    let mut audit = stores.backing.audit_rows(ctx.request_id).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    take_ids(&mut audit, "audit_id");
    assert_eq!(
        audit[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "mcp",
            "action": "mcp.tool_call",
            "method": "POST",
            "route": "/mcp",
            "tool": "resolve_subject",
            "status": 403,
            "outcome": "refused",
            "error_code": "tenant_pending",
            "detail": "tenant_pending",
        })
    );
    let mut access = stores.backing.access_rows(ctx.request_id).await;
    assert_eq!(access.len(), 1, "{access:?}");
    take_ids(&mut access, "access_id");
    assert_eq!(
        access[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "mcp",
            "method": "POST",
            "route": "/mcp",
            "tool": "resolve_subject",
            "status": 403,
            "outcome": "refused",
            "error_code": "tenant_pending",
        })
    );

    // An allowed request: no tool, no error, no detail.
    let ctx = request_context(None);
    let allowed = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        t.id,
        g.id,
        Surface::Rest,
        200,
        Outcome::Allowed,
    );
    stores
        .audit
        .record_access(std::slice::from_ref(&allowed))
        .await
        .unwrap();
    let mut audit = stores.backing.audit_rows(ctx.request_id).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    take_ids(&mut audit, "audit_id");
    assert_eq!(
        audit[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "rest",
            "action": "GET /v1/subjects/{id}",
            "method": "GET",
            "route": "/v1/subjects/{id}",
            "tool": null,
            "status": 200,
            "outcome": "allowed",
            "error_code": null,
            "detail": null,
        })
    );
    assert_eq!(stores.backing.access_rows(ctx.request_id).await.len(), 1);
    assert!(stores
        .backing
        .security_rows(ctx.request_id)
        .await
        .is_empty());
}

async fn check_a_security_record_writes_one_security_row(stores: &Stores) {
    let ctx = request_context(Some("203.0.113.9"));
    let client = ClientId::generate();
    let record = SecurityRecord::new(
        &ctx,
        Operation::IssueToken,
        401,
        SecurityReason::UnknownClient,
    )
    .with_client_id(&client);
    stores.audit.record_security(&record).await.unwrap();
    let mut rows = stores.backing.security_rows(ctx.request_id).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    take_ids(&mut rows, "event_id");
    assert_eq!(
        rows[0],
        json!({
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "method": "POST",
            "route": "/oauth/token",
            "status": 401,
            "reason": "unknown_client",
            "client_id": client.as_str(),
            "peer": "203.0.113.9",
        })
    );
    assert!(stores.backing.audit_rows(ctx.request_id).await.is_empty());

    let ctx = request_context(None);
    let record = SecurityRecord::new(
        &ctx,
        Operation::GetSubject,
        401,
        SecurityReason::MissingToken,
    );
    stores.audit.record_security(&record).await.unwrap();
    let mut rows = stores.backing.security_rows(ctx.request_id).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    take_ids(&mut rows, "event_id");
    assert_eq!(rows[0]["reason"], "missing_token");
    assert_eq!(rows[0]["route"], "/v1/subjects/{id}");
    assert_eq!(rows[0]["client_id"], Value::Null);
    assert_eq!(rows[0]["peer"], Value::Null);
}

// --- subjects ---

async fn check_resolve_creates_on_first_sight_and_finds_on_the_second(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let first = company(t0());
    let created = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, None, &first)
        .await
        .unwrap();
    assert!(created.created);
    assert_eq!(created.subject_id, first.subject_id);
    assert_eq!(created.identifier_ref, first.identifier_ref);
    assert!(created.aliases.is_empty());

    let second = company(t0() + Duration::minutes(1));
    let found = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, None, &second)
        .await
        .unwrap();
    assert!(!found.created);
    assert_eq!(found.subject_id, first.subject_id);
    assert_eq!(found.identifier_ref, first.identifier_ref);
    assert!(found.aliases.is_empty());
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);

    // The blind index alone finds the subject: a new ciphertext of the same identifier (a
    // fresh nonce) is the same identifier.
    let resealed = ProtectedIdentifier {
        sealed: random_bytes(48),
        ..id.clone()
    };
    let again = stores
        .subjects
        .resolve_or_create_subject(&t.id, &resealed, None, &company(t0()))
        .await
        .unwrap();
    assert_eq!((again.subject_id, again.created), (first.subject_id, false));
}

async fn check_concurrent_first_sightings_make_one_subject(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Personnummer);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (subjects, id, tenant) = (stores.subjects.clone(), id.clone(), t.id);
            let fresh = fresh(SubjectKind::Person, t0());
            tokio::spawn(async move {
                subjects
                    .resolve_or_create_subject(&tenant, &id, None, &fresh)
                    .await
            })
        })
        .collect();
    let mut resolutions = Vec::new();
    for task in tasks {
        resolutions.push(task.await.unwrap().expect("every resolve succeeds"));
    }
    let first = &resolutions[0];
    for r in &resolutions {
        assert_eq!(r.subject_id, first.subject_id);
        assert_eq!(r.identifier_ref, first.identifier_ref);
    }
    assert_eq!(resolutions.iter().filter(|r| r.created).count(), 1);
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);
}

async fn check_one_blind_index_at_two_tenants_is_two_unrelated_subjects(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let at_a = stores
        .subjects
        .resolve_or_create_subject(&a.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let at_b = stores
        .subjects
        .resolve_or_create_subject(&b.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    assert!(at_a.created && at_b.created);
    assert_ne!(at_a.subject_id, at_b.subject_id);
    assert_ne!(at_a.identifier_ref, at_b.identifier_ref);
    assert_eq!(
        stores.subjects.subject(&a.id, &at_b.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.subjects.subject(&b.id, &at_a.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(stores.backing.subject_count(a.id).await, 1);
    assert_eq!(stores.backing.subject_count(b.id).await, 1);
}

async fn check_a_customer_ref_attaches_and_reattaching_it_is_fine(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let created = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let again = stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &id,
            Some("crm-1"),
            &company(t0() + Duration::hours(1)),
        )
        .await
        .unwrap();
    assert_eq!(
        (again.subject_id, again.created),
        (created.subject_id, false)
    );
    // A second reference to the same subject is attached too.
    let later = t0() + Duration::hours(2);
    stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-2"), &company(later))
        .await
        .unwrap();
    let record = stores
        .subjects
        .subject(&t.id, &created.subject_id)
        .await
        .unwrap();
    let refs: Vec<(&str, DateTime<Utc>)> = record
        .refs
        .iter()
        .map(|r| (r.value.as_str(), r.created_at))
        .collect();
    assert_eq!(refs, [("crm-1", t0()), ("crm-2", later)]);
}

async fn check_a_ref_of_another_subject_conflicts_and_creates_nothing(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (first_id, second_id) = (
        identifier(IdentifierType::Orgnr),
        identifier(IdentifierType::Orgnr),
    );
    let first = stores
        .subjects
        .resolve_or_create_subject(&t.id, &first_id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let second = stores
        .subjects
        .resolve_or_create_subject(&t.id, &second_id, None, &company(t0()))
        .await
        .unwrap();

    // An existing subject cannot take another subject's reference.
    assert_eq!(
        stores
            .subjects
            .resolve_or_create_subject(&t.id, &second_id, Some("crm-1"), &company(t0()))
            .await,
        Err(StoreError::RefConflict)
    );

    // A new identifier naming a taken reference: refused, and no subject is created.
    let (subjects_before, identifiers_before) = (
        stores.backing.subject_count(t.id).await,
        stores.backing.identifier_count(t.id).await,
    );
    let new_id = identifier(IdentifierType::Orgnr);
    let refused_fresh = company(t0());
    assert_eq!(
        stores
            .subjects
            .resolve_or_create_subject(&t.id, &new_id, Some("crm-1"), &refused_fresh)
            .await,
        Err(StoreError::RefConflict)
    );
    assert_eq!(stores.backing.subject_count(t.id).await, subjects_before);
    assert_eq!(
        stores.backing.identifier_count(t.id).await,
        identifiers_before
    );
    assert_eq!(
        stores
            .subjects
            .subject(&t.id, &refused_fresh.subject_id)
            .await,
        Err(StoreError::NotFound)
    );
    // The identifier is still unknown: the next resolve creates it afresh.
    let later = stores
        .subjects
        .resolve_or_create_subject(&t.id, &new_id, None, &company(t0()))
        .await
        .unwrap();
    assert!(later.created);

    // The reference stayed where it was.
    let owner = stores
        .subjects
        .subject(&t.id, &first.subject_id)
        .await
        .unwrap();
    assert_eq!(owner.refs.len(), 1);
    assert_eq!(owner.refs[0].value, "crm-1");
    let other = stores
        .subjects
        .subject(&t.id, &second.subject_id)
        .await
        .unwrap();
    assert!(other.refs.is_empty());
}

async fn check_resolves_racing_for_one_new_ref_attach_it_once(stores: &Stores) {
    // Ten new identifiers claim one new reference at once: one wins, the others conflict and
    // leave nothing behind.
    let (t, _) = tenant(stores, "SE").await;
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (subjects, tenant) = (stores.subjects.clone(), t.id);
            tokio::spawn(async move {
                let id = identifier(IdentifierType::Orgnr);
                subjects
                    .resolve_or_create_subject(&tenant, &id, Some("crm-race"), &company(t0()))
                    .await
            })
        })
        .collect();
    let mut won = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(resolution) => won.push(resolution),
            Err(e) => assert_eq!(e, StoreError::RefConflict),
        }
    }
    assert_eq!(won.len(), 1, "{won:?}");
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);
    let owner = stores
        .subjects
        .subject(&t.id, &won[0].subject_id)
        .await
        .unwrap();
    assert_eq!(owner.refs.len(), 1);
}

async fn check_customer_refs_are_per_tenant(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    stores
        .subjects
        .resolve_or_create_subject(
            &a.id,
            &identifier(IdentifierType::Orgnr),
            Some("crm-1"),
            &company(t0()),
        )
        .await
        .unwrap();
    // Another tenant's identical reference names its own, different subject.
    let at_b = stores
        .subjects
        .resolve_or_create_subject(
            &b.id,
            &identifier(IdentifierType::Orgnr),
            Some("crm-1"),
            &company(t0()),
        )
        .await
        .unwrap();
    assert!(at_b.created);
}

async fn check_a_subject_reads_back_with_identifiers_refs_and_evidence(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let id = identifier(IdentifierType::ImonesKodas);
    let at = t0() + Duration::days(1);
    let fresh = company(at);
    stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-9"), &fresh)
        .await
        .unwrap();
    let record = stores
        .subjects
        .subject(&t.id, &fresh.subject_id)
        .await
        .unwrap();
    assert_eq!(record.subject_id, fresh.subject_id);
    assert_eq!(record.kind, SubjectKind::Company);
    assert_eq!(record.created_at, at);
    assert_eq!(record.identifiers.len(), 1);
    let stored = &record.identifiers[0];
    assert_eq!(stored.identifier_ref, fresh.identifier_ref);
    assert_eq!(stored.id_type, IdentifierType::ImonesKodas);
    assert_eq!(stored.country, Country::Lt);
    assert_eq!(stored.valid_from, at);
    assert_eq!(stored.valid_to, None);
    assert_eq!(record.refs.len(), 1);
    assert_eq!(
        (record.refs[0].value.as_str(), record.refs[0].created_at),
        ("crm-9", at)
    );
    assert!(record.aliases.is_empty());
    // Evidence: the consumer's own identity event, pointing at the call record.
    assert_eq!(
        record.evidence,
        Evidence::identity_event(fresh.sighting.call_ref(), at)
    );
    assert_eq!(record.evidence.source.as_str(), "customer.identity_event");

    let person = fresh_person_kind(stores, &t).await;
    assert_eq!(person, SubjectKind::Person);
}

/// Resolves a new person identifier and reads back the kind stored.
async fn fresh_person_kind(stores: &Stores, t: &Tenant) -> SubjectKind {
    let fresh = fresh(SubjectKind::Person, t0());
    stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &identifier(IdentifierType::AsmensKodas),
            None,
            &fresh,
        )
        .await
        .unwrap();
    stores
        .subjects
        .subject(&t.id, &fresh.subject_id)
        .await
        .unwrap()
        .kind
}

async fn check_another_tenants_subject_is_not_found(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let fresh = company(t0());
    stores
        .subjects
        .resolve_or_create_subject(&a.id, &identifier(IdentifierType::Orgnr), None, &fresh)
        .await
        .unwrap();
    assert!(stores
        .subjects
        .subject(&a.id, &fresh.subject_id)
        .await
        .is_ok());
    assert_eq!(
        stores.subjects.subject(&b.id, &fresh.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.subjects.subject(&a.id, &SubjectId::generate()).await,
        Err(StoreError::NotFound)
    );
}

// --- the adapters ---

/// One test per check for an adapter: `conformance_tests!(constructor; test => check, ...)`.
macro_rules! conformance_tests {
    ($stores:path; $($(#[$attr:meta])* $test:ident => $check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            $(#[$attr])*
            async fn $test() {
                let stores = $stores().await;
                super::$check(&stores).await;
            }
        )*
    };
}

mod postgres {
    use super::{Backing, Stores};
    use blackbox::db::TestDatabase;
    use std::sync::Arc;

    /// The PostgreSQL adapter on a fresh migrated database.
    async fn stores() -> Stores {
        let db = TestDatabase::create().await;
        let database = Arc::new(
            adapters_postgres::Database::connect(&db.url, 4)
                .expect("connecting to the test database"),
        );
        Stores {
            tenants: database.clone(),
            grants: database.clone(),
            audit: database.clone(),
            subjects: database,
            backing: Backing::Postgres(db),
        }
    }

    conformance_tests!(stores;
        tenant_round_trips_every_field => check_tenant_round_trips_every_field,
        a_tenant_inserted_with_a_permit_keeps_it => check_a_tenant_inserted_with_a_permit_keeps_it,
        unknown_tenant_is_not_found => check_unknown_tenant_is_not_found,
        tenant_status_changes => check_tenant_status_changes,
        the_newest_permit_is_current_and_reinstating_adds_a_row =>
            check_the_newest_permit_is_current_and_reinstating_adds_a_row,
        a_permit_recorded_in_the_same_instant_still_becomes_current =>
            check_a_permit_recorded_in_the_same_instant_still_becomes_current,
        the_budget_is_set => check_the_budget_is_set,
        narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing =>
            check_narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing,
        a_revoked_grant_does_not_block_narrowing => check_a_revoked_grant_does_not_block_narrowing,
        narrowing_and_widening_succeed_when_the_grants_fit =>
            check_narrowing_and_widening_succeed_when_the_grants_fit,
        a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside =>
            check_a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside,
        a_grant_round_trips_every_field => check_a_grant_round_trips_every_field,
        a_grant_outside_the_tenant_countries_is_refused_and_not_written =>
            check_a_grant_outside_the_tenant_countries_is_refused_and_not_written,
        grants_are_found_only_under_their_own_tenant =>
            check_grants_are_found_only_under_their_own_tenant,
        a_grant_of_an_unknown_tenant_is_not_found => check_a_grant_of_an_unknown_tenant_is_not_found,
        credentials_find_grant_tenant_key_and_hash => check_credentials_find_grant_tenant_key_and_hash,
        grant_access_is_scoped_by_tenant => check_grant_access_is_scoped_by_tenant,
        a_grant_update_replaces_scopes_or_countries_only =>
            check_a_grant_update_replaces_scopes_or_countries_only,
        a_grant_update_outside_the_tenant_countries_is_refused =>
            check_a_grant_update_outside_the_tenant_countries_is_refused,
        revoking_twice_keeps_the_first_revocation => check_revoking_twice_keeps_the_first_revocation,
        rotation_bumps_the_generation_and_replaces_the_hash =>
            check_rotation_bumps_the_generation_and_replaces_the_hash,
        an_access_record_writes_one_audit_row_and_one_access_row =>
            check_an_access_record_writes_one_audit_row_and_one_access_row,
        a_security_record_writes_one_security_row => check_a_security_record_writes_one_security_row,
        resolve_creates_on_first_sight_and_finds_on_the_second =>
            check_resolve_creates_on_first_sight_and_finds_on_the_second,
        concurrent_first_sightings_make_one_subject => check_concurrent_first_sightings_make_one_subject,
        one_blind_index_at_two_tenants_is_two_unrelated_subjects =>
            check_one_blind_index_at_two_tenants_is_two_unrelated_subjects,
        a_customer_ref_attaches_and_reattaching_it_is_fine =>
            check_a_customer_ref_attaches_and_reattaching_it_is_fine,
        a_ref_of_another_subject_conflicts_and_creates_nothing =>
            check_a_ref_of_another_subject_conflicts_and_creates_nothing,
        resolves_racing_for_one_new_ref_attach_it_once =>
            check_resolves_racing_for_one_new_ref_attach_it_once,
        customer_refs_are_per_tenant => check_customer_refs_are_per_tenant,
        a_subject_reads_back_with_identifiers_refs_and_evidence =>
            check_a_subject_reads_back_with_identifiers_refs_and_evidence,
        another_tenants_subject_is_not_found => check_another_tenants_subject_is_not_found,
    );
}
