//! Storage conformance: every "MUST" of the storage ports (each capability's `ports` module
//! in `domain`) and the invariants the use cases rely on, written once against the port
//! traits.
//!
//! Each rule is an `async fn check_*(stores: &Stores)` that sees only the ports, plus, where a
//! rule is about what was written (audit rows, row counts), a [`Backing`] that looks beneath
//! them. Each adapter runs every check from its own module of tests (`mod postgres`, `mod
//! sqlite` below): its constructor builds its `Stores` and a `Backing`, and it invokes the
//! list of checks of each port (`tenants_checks!`, ...; one list per check file), so a check
//! is written once and runs against both stores.
//!
//! The checks live in one file per port (`tenants`, `grants`, `audit`, `subjects`,
//! `companies`, `paid`, `persons`, `events`, `subscriptions`, `sanctions`, `screening`,
//! `idempotency`, `webhooks`, `portal`, `oauth`, `assistant`); this
//! file holds what they share: the ports under test, the view beneath them, and the fixtures.
//!
//! The storage layer never sees a plaintext identifier: the checks fabricate
//! `ProtectedIdentifier`s from random bytes.

use blackbox::db::TestDatabase;
use blackbox::store::SqliteFile;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use domain::access::audit::{
    AccessRecord, AuditFilter, Outcome, RequestContext, SecurityReason, SecurityRecord,
};
use domain::access::grant::{Grant, SecretHash};
use domain::access::ports::{AuditSink, GrantStore, TenantStore};
use domain::access::scope::ScopeSet;
use domain::access::tenant::{Budget, Permit, PermitStatus, Tenant, TenantStatus, WrappedDataKey};
use domain::companies::ports::{CompanyStore, PaidStore};
use domain::countries::country::{Country, CountrySet};
use domain::error::ErrorCode;
use domain::error::StoreError;
use domain::evidence::Evidence;
use domain::ids::{CallRef, ClientId, GrantId, IdentifierRef, RequestId, SubjectId, TenantId};
use domain::monitoring::ports::{EventStore, SubscriptionStore};
use domain::operation::{Operation, Surface};
use domain::persons::ports::PersonStore;
use domain::subjects::identifier::IdentifierType;
use domain::subjects::identifier::SubjectKind;
use domain::subjects::ports::SubjectStore;
use domain::subjects::subject::{BlindIndex, FirstSighting, FreshSubject, ProtectedIdentifier};
use serde_json::{json, Value};
use std::sync::Arc;

/// The storage adapter under test: its ports, and what lies beneath them.
pub struct Stores {
    pub tenants: Arc<dyn TenantStore>,
    pub grants: Arc<dyn GrantStore>,
    pub audit: Arc<dyn AuditSink>,
    pub audit_log: Arc<dyn domain::access::ports::AuditLog>,
    pub subjects: Arc<dyn SubjectStore>,
    pub companies: Arc<dyn CompanyStore>,
    pub paid: Arc<dyn PaidStore>,
    pub persons: Arc<dyn PersonStore>,
    pub events: Arc<dyn EventStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub sanctions: Arc<dyn domain::screening::ports::SanctionsListStore>,
    pub screening: Arc<dyn domain::screening::ports::ScreeningStore>,
    pub probe: Arc<dyn domain::health::ports::StoreProbe>,
    pub idempotency: Arc<dyn domain::idempotency::ports::IdempotencyStore>,
    pub webhooks: Arc<dyn domain::webhooks::ports::WebhookStore>,
    pub portal: Arc<dyn domain::portal::ports::PortalStore>,
    pub oauth: Arc<dyn domain::oauth::ports::OAuthStore>,
    pub conversations: Arc<dyn domain::assistant::ports::ConversationStore>,
    pub backing: Backing,
}

/// Beneath the ports: how a check sees what an adapter wrote. Each view answers in one
/// adapter-neutral shape (JSON objects with the port's field names, times as UTC
/// `YYYY-MM-DDTHH:MM:SS.ffffff`).
pub enum Backing {
    Postgres(TestDatabase),
    Sqlite(SqliteFile),
}

impl Backing {
    /// The tenant audit rows of one request.
    async fn audit_rows(&self, request: RequestId) -> Vec<Value> {
        match self {
            Backing::Postgres(db) => {
                db.rows(&format!(
                    "SELECT tenant_id, audit_id, grant_id, request_id, {}, surface, action, method, \
                     route, tool, status, outcome, error_code, detail, portal_user_id, \
                     conversation_id FROM audit_log WHERE request_id = '{request}'",
                    utc_text("occurred_at")
                ))
                .await
            }
            Backing::Sqlite(file) => file.rows(
                "audit_log",
                &[
                    "tenant_id", "audit_id", "grant_id", "request_id", "occurred_at", "surface",
                    "action", "method", "route", "tool", "status", "outcome", "error_code",
                    "detail", "portal_user_id", "conversation_id",
                ],
                &["occurred_at"],
                &format!("request_id = '{request}'"),
            ),
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
            Backing::Sqlite(file) => file.rows(
                "access_log",
                &[
                    "tenant_id", "grant_id", "access_id", "request_id", "occurred_at", "surface",
                    "method", "route", "tool", "status", "outcome", "error_code",
                ],
                &["occurred_at"],
                &format!("request_id = '{request}'"),
            ),
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
            Backing::Sqlite(file) => file.rows(
                "security_log",
                &[
                    "event_id", "request_id", "occurred_at", "method", "route", "status", "reason",
                    "client_id", "peer",
                ],
                &["occurred_at"],
                &format!("request_id = '{request}'"),
            ),
        }
    }

    /// How many rows of `table` meet `condition` (SQL both stores read alike).
    async fn count(&self, table: &str, condition: &str) -> i64 {
        match self {
            Backing::Postgres(db) => db.count(table, condition).await,
            Backing::Sqlite(file) => file.count(table, condition),
        }
    }

    /// One text column of the rows of `table` meeting `condition`, as `{column: value}`.
    async fn column(&self, table: &str, column: &str, condition: &str) -> Vec<Value> {
        match self {
            Backing::Postgres(db) => {
                db.rows(&format!("SELECT {column} FROM {table} WHERE {condition}"))
                    .await
            }
            Backing::Sqlite(file) => file.rows(table, &[column], &[], condition),
        }
    }

    /// How many subjects the tenant has (merged or not).
    async fn subject_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("subjects", &format!("tenant_id = '{tenant}'"))
                    .await
            }
            Backing::Sqlite(file) => file.count("subjects", &format!("tenant_id = '{tenant}'")),
        }
    }

    /// How many identifiers the tenant has stored.
    async fn identifier_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("subject_identifiers", &format!("tenant_id = '{tenant}'"))
                    .await
            }
            Backing::Sqlite(file) => {
                file.count("subject_identifiers", &format!("tenant_id = '{tenant}'"))
            }
        }
    }

    /// How many upstream call records the tenant has.
    async fn call_record_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("call_records", &format!("tenant_id = '{tenant}'"))
                    .await
            }
            Backing::Sqlite(file) => file.count("call_records", &format!("tenant_id = '{tenant}'")),
        }
    }

    /// How many permits were ever recorded for the tenant.
    async fn permit_count(&self, tenant: TenantId) -> i64 {
        match self {
            Backing::Postgres(db) => {
                db.count("permits", &format!("tenant_id = '{tenant}'"))
                    .await
            }
            Backing::Sqlite(file) => file.count("permits", &format!("tenant_id = '{tenant}'")),
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
        retention_days: 45,
        created_at: t0(),
        mode: domain::access::tenant::TenantMode::Live,
        test_tenant: None,
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
        owner: domain::access::grant::GrantOwner::Operator,
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

mod assistant;
mod audit;
mod companies;
pub(crate) mod events;
mod grants;
mod health;
mod idempotency;
mod oauth;
mod paid;
mod persons;
mod portal;
mod sanctions;
mod schema_parity;
mod screening;
mod subjects;
mod subscriptions;
mod tenants;
mod webhooks;

// --- the adapters ---

/// One test per check for an adapter: `conformance_tests!(constructor; test => check, ...)`.
macro_rules! conformance_tests {
    ($stores:path; $($(#[$attr:meta])* $test:ident => $check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            $(#[$attr])*
            async fn $test() {
                let stores = $stores().await;
                $check(&stores).await;
            }
        )*
    };
}

/// The checks of `tenants.rs`, one test each, for the adapter `$stores` builds.
macro_rules! tenants_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            tenant_round_trips_every_field => check_tenant_round_trips_every_field,
            a_tenant_inserted_with_a_permit_keeps_it => check_a_tenant_inserted_with_a_permit_keeps_it,
            unknown_tenant_is_not_found => check_unknown_tenant_is_not_found,
            tenant_status_changes => check_tenant_status_changes,
            the_newest_permit_is_current_and_reinstating_adds_a_row => check_the_newest_permit_is_current_and_reinstating_adds_a_row,
            a_permit_recorded_in_the_same_instant_still_becomes_current => check_a_permit_recorded_in_the_same_instant_still_becomes_current,
            the_budget_is_set => check_the_budget_is_set,
            retention_is_set_and_the_key_read_with_the_tenant => check_retention_is_set_and_the_key_read_with_the_tenant,
            a_live_tenant_has_one_test_twin => check_a_live_tenant_has_one_test_twin,
            wiping_deletes_one_tenants_data_only => check_wiping_deletes_one_tenants_data_only,
        );
    };
}

/// The checks of `grants.rs`, one test each, for the adapter `$stores` builds.
macro_rules! grants_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing => check_narrowing_under_live_grants_is_refused_naming_them_and_changes_nothing,
            a_revoked_grant_does_not_block_narrowing => check_a_revoked_grant_does_not_block_narrowing,
            narrowing_and_widening_succeed_when_the_grants_fit => check_narrowing_and_widening_succeed_when_the_grants_fit,
            a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside => check_a_grant_write_racing_a_narrowing_never_leaves_a_grant_outside,
            a_grant_round_trips_every_field => check_a_grant_round_trips_every_field,
            grants_are_found_only_under_their_own_tenant => check_grants_are_found_only_under_their_own_tenant,
            a_grant_outside_the_tenant_countries_is_refused_and_not_written => check_a_grant_outside_the_tenant_countries_is_refused_and_not_written,
            a_grant_of_an_unknown_tenant_is_not_found => check_a_grant_of_an_unknown_tenant_is_not_found,
            credentials_find_grant_tenant_key_and_hash => check_credentials_find_grant_tenant_key_and_hash,
            grant_access_is_scoped_by_tenant => check_grant_access_is_scoped_by_tenant,
            a_grant_update_replaces_scopes_or_countries_only => check_a_grant_update_replaces_scopes_or_countries_only,
            a_grant_update_outside_the_tenant_countries_is_refused => check_a_grant_update_outside_the_tenant_countries_is_refused,
            revoking_twice_keeps_the_first_revocation => check_revoking_twice_keeps_the_first_revocation,
            rotation_bumps_the_generation_and_replaces_the_hash => check_rotation_bumps_the_generation_and_replaces_the_hash,
            a_tenants_grants_are_listed_newest_first_and_no_others => check_a_tenants_grants_are_listed_newest_first_and_no_others,
        );
    };
}

/// The checks of `audit.rs`, one test each, for the adapter `$stores` builds.
macro_rules! audit_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            an_access_record_writes_one_audit_row_and_one_access_row => check_an_access_record_writes_one_audit_row_and_one_access_row,
            a_security_record_writes_one_security_row => check_a_security_record_writes_one_security_row,
            a_portal_record_writes_one_audit_row_naming_the_portal_user => check_a_portal_record_writes_one_audit_row_naming_the_portal_user,
            the_audit_log_reads_back_one_tenants_rows_newest_first_filtered_and_paged => check_the_audit_log_reads_back_one_tenants_rows_newest_first_filtered_and_paged,
        );
    };
}

/// The checks of `subjects.rs`, one test each, for the adapter `$stores` builds.
macro_rules! subjects_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            resolve_creates_on_first_sight_and_finds_on_the_second => check_resolve_creates_on_first_sight_and_finds_on_the_second,
            concurrent_first_sightings_make_one_subject => check_concurrent_first_sightings_make_one_subject,
            one_blind_index_at_two_tenants_is_two_unrelated_subjects => check_one_blind_index_at_two_tenants_is_two_unrelated_subjects,
            a_customer_ref_attaches_and_reattaching_it_is_fine => check_a_customer_ref_attaches_and_reattaching_it_is_fine,
            a_ref_of_another_subject_conflicts_and_creates_nothing => check_a_ref_of_another_subject_conflicts_and_creates_nothing,
            resolves_racing_for_one_new_ref_attach_it_once => check_resolves_racing_for_one_new_ref_attach_it_once,
            customer_refs_are_per_tenant => check_customer_refs_are_per_tenant,
            a_subject_reads_back_with_identifiers_refs_and_evidence => check_a_subject_reads_back_with_identifiers_refs_and_evidence,
            another_tenants_subject_is_not_found => check_another_tenants_subject_is_not_found,
            a_merge_moves_subscriptions_and_ends_the_planned_ones => check_a_merge_moves_subscriptions_and_ends_the_planned_ones,
            a_merge_that_would_leave_two_unended_subscriptions_writes_nothing => check_a_merge_that_would_leave_two_unended_subscriptions_writes_nothing,
            cached_data_paid_objects_and_documents_follow_a_merge => check_cached_data_paid_objects_and_documents_follow_a_merge,
        );
    };
}

/// The checks of `companies.rs`, one test each, for the adapter `$stores` builds.
macro_rules! companies_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            recorded_calls_come_back_as_their_evidence => check_recorded_calls_come_back_as_their_evidence,
            a_saved_profile_reads_back_whole_with_its_subject => check_a_saved_profile_reads_back_whole_with_its_subject,
            a_profile_without_tax_reads_back_without_it => check_a_profile_without_tax_reads_back_without_it,
            saving_again_replaces_the_profile_and_its_evidence => check_saving_again_replaces_the_profile_and_its_evidence,
            the_company_cache_and_documents_are_per_tenant => check_the_company_cache_and_documents_are_per_tenant,
            a_subject_first_seen_by_a_registry_read_is_evidenced_by_that_call => check_a_subject_first_seen_by_a_registry_read_is_evidenced_by_that_call,
            forgetting_a_company_drops_the_tenants_copies_only => check_forgetting_a_company_drops_the_tenants_copies_only,
        );
    };
}

/// The checks of `paid.rs`, one test each, for the adapter `$stores` builds.
macro_rules! paid_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            concurrent_spends_never_pass_the_cap => check_concurrent_spends_never_pass_the_cap,
            parts_days_and_tenants_are_counted_apart => check_parts_days_and_tenants_are_counted_apart,
            a_range_of_days_reads_the_spending_days_in_one_read => check_a_range_of_days_reads_the_spending_days_in_one_read,
            a_paid_object_round_trips_per_tenant => check_a_paid_object_round_trips_per_tenant,
        );
    };
}

/// The checks of `persons.rs`, one test each, for the adapter `$stores` builds.
macro_rules! persons_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            concurrent_person_lookups_never_pass_the_ceiling => check_concurrent_person_lookups_never_pass_the_ceiling,
            person_lookups_are_counted_apart => check_person_lookups_are_counted_apart,
            a_sealed_person_round_trips_per_tenant => check_a_sealed_person_round_trips_per_tenant,
        );
    };
}

/// The checks of `idempotency.rs`, one test each, for the adapter `$stores` builds.
macro_rules! idempotency_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            a_free_key_is_claimed_once_under_concurrency => check_a_free_key_is_claimed_once_under_concurrency,
            an_answered_key_replays_and_refuses_another_request => check_an_answered_key_replays_and_refuses_another_request,
            leases_and_expiry_free_a_key => check_leases_and_expiry_free_a_key,
            tenants_never_share_a_key => check_tenants_never_share_a_key,
            the_purge_forgets_only_expired_keys => check_the_purge_forgets_only_expired_keys,
        );
    };
}

/// The checks of `events.rs`, one test each, for the adapter `$stores` builds.
macro_rules! events_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            concurrent_appends_leave_no_gap_and_no_duplicate => check_concurrent_appends_leave_no_gap_and_no_duplicate,
            keys_are_logged_once_and_a_failed_append_leaves_no_hole => check_keys_are_logged_once_and_a_failed_append_leaves_no_hole,
            pages_follow_the_cursor_and_the_filters => check_pages_follow_the_cursor_and_the_filters,
            events_name_the_subjects_first_customer_reference => check_events_name_the_subjects_first_customer_reference,
        );
    };
}

/// The checks of `subscriptions.rs`, one test each, for the adapter `$stores` builds.
macro_rules! subscriptions_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            one_unended_subscription_per_subject_and_kind => check_one_unended_subscription_per_subject_and_kind,
            the_queue_is_shared_safely_by_replicas => check_the_queue_is_shared_safely_by_replicas,
            a_reading_and_its_events_are_written_together_and_only_while_active => check_a_reading_and_its_events_are_written_together_and_only_while_active,
            a_purge_comes_after_the_retention_and_once => check_a_purge_comes_after_the_retention_and_once,
            a_reading_of_a_run_taken_over_writes_nothing => check_a_reading_of_a_run_taken_over_writes_nothing,
            the_backlog_counts_the_runs_due_and_unclaimed => check_the_backlog_counts_the_runs_due_and_unclaimed,
            active_subscriptions_are_paged_across_tenants_in_order => check_active_subscriptions_are_paged_across_tenants_in_order,
            a_pages_known_names_are_read_at_once => check_a_pages_known_names_are_read_at_once,
        );
    };
}

/// The checks of `health.rs`, one test each, for the adapter `$stores` builds.
macro_rules! health_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            the_first_keys_are_the_stores_and_only_a_signing_rotation_moves_them => check_the_first_keys_are_the_stores_and_only_a_signing_rotation_moves_them,
        );
    };
}

/// The checks of `sanctions.rs`, one test each, for the adapter `$stores` builds.
macro_rules! sanctions_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            a_list_version_round_trips_and_the_same_file_is_one_version => check_a_list_version_round_trips_and_the_same_file_is_one_version,
            a_failed_import_leaves_the_active_version_and_marks_the_list_degraded => check_a_failed_import_leaves_the_active_version_and_marks_the_list_degraded,
            a_change_of_the_active_version_is_recorded_and_worked_once => check_a_change_of_the_active_version_is_recorded_and_worked_once,
        );
    };
}

/// The checks of `portal.rs`, one test each, for the adapter `$stores` builds.
macro_rules! oauth_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            a_registration_is_answered_again_bounded_and_lapses_unused => check_a_registration_is_answered_again_bounded_and_lapses_unused,
            a_metadata_documents_client_is_replaced_when_read_again => check_a_metadata_documents_client_is_replaced_when_read_again,
            a_pending_request_is_decided_once => check_a_pending_request_is_decided_once,
            a_connection_supersedes_the_persons_earlier_one_of_the_client => check_a_connection_supersedes_the_persons_earlier_one_of_the_client,
            a_code_is_used_once_and_a_refresh_family_advances_by_compare_and_set => check_a_code_is_used_once_and_a_refresh_family_advances_by_compare_and_set,
        );
    };
}

/// The checks of `assistant.rs`, one test each, for the adapter `$stores` builds.
macro_rules! assistant_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            a_conversation_is_its_tenants_and_users_alone => check_a_conversation_is_its_tenants_and_users_alone,
            turns_append_in_order_and_a_taken_place_is_a_conflict_that_writes_nothing => check_turns_append_in_order_and_a_taken_place_is_a_conflict_that_writes_nothing,
            a_conversation_is_deleted_by_its_user_with_its_turns => check_a_conversation_is_deleted_by_its_user_with_its_turns,
            the_purge_removes_only_conversations_last_used_before_the_cutoff => check_the_purge_removes_only_conversations_last_used_before_the_cutoff,
            concurrent_model_calls_never_pass_the_daily_allowance => check_concurrent_model_calls_never_pass_the_daily_allowance,
            a_tool_calls_audit_row_names_the_user_and_the_conversation => check_a_tool_calls_audit_row_names_the_user_and_the_conversation,
        );
    };
}

macro_rules! portal_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            portal_users_are_one_per_address_within_a_tenant => check_portal_users_are_one_per_address_within_a_tenant,
            a_link_is_redeemed_once_by_the_browser_that_asked => check_a_link_is_redeemed_once_by_the_browser_that_asked,
            a_session_ends_at_its_lifetime_when_idle_or_at_sign_out => check_a_session_ends_at_its_lifetime_when_idle_or_at_sign_out,
            disabling_a_user_ends_their_sessions_once => check_disabling_a_user_ends_their_sessions_once,
        );
    };
}

/// The checks of `webhooks.rs`, one test each, for the adapter `$stores` builds.
macro_rules! webhooks_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            an_endpoint_starts_where_asked_and_is_its_grants_alone => check_an_endpoint_starts_where_asked_and_is_its_grants_alone,
            the_dispatch_queue_is_shared_safely => check_the_dispatch_queue_is_shared_safely,
            an_attempt_moves_the_cursor_with_it_under_its_claim => check_an_attempt_moves_the_cursor_with_it_under_its_claim,
        );
    };
}

/// The checks of `screening.rs`, one test each, for the adapter `$stores` builds.
macro_rules! screening_checks {
    ($stores:path) => {
        conformance_tests!($stores;
            policy_versions_are_numbered_and_one_is_active => check_policy_versions_are_numbered_and_one_is_active,
            override_versions_move_by_compare_and_set => check_override_versions_move_by_compare_and_set,
            concurrent_activations_leave_one_active => check_concurrent_activations_leave_one_active,
            whitelist_entries_need_four_eyes_and_count_only_in_effect => check_whitelist_entries_need_four_eyes_and_count_only_in_effect,
            a_check_reads_back_exactly_and_lists_newest_first => check_a_check_reads_back_exactly_and_lists_newest_first,
            another_tenant_sees_nothing_of_a_tenants_screening => check_another_tenant_sees_nothing_of_a_tenants_screening,
            checks_are_append_only_beneath_the_port => check_checks_are_append_only_beneath_the_port,
            checks_made_before_a_merge_are_found_under_either_id => check_checks_made_before_a_merge_are_found_under_either_id,
            a_rescreening_check_is_written_with_its_event_once_and_only_while_active => check_a_rescreening_check_is_written_with_its_event_once_and_only_while_active,
        );
    };
}

mod postgres {
    use super::assistant::*;
    use super::audit::*;
    use super::companies::*;
    use super::events::*;
    use super::grants::*;
    use super::health::*;
    use super::idempotency::*;
    use super::oauth::*;
    use super::paid::*;
    use super::persons::*;
    use super::portal::*;
    use super::sanctions::*;
    use super::screening::*;
    use super::subjects::*;
    use super::subscriptions::*;
    use super::tenants::*;
    use super::webhooks::*;
    use super::{Backing, Stores};
    use blackbox::db::TestDatabase;

    use std::sync::Arc;

    /// The PostgreSQL adapter on a fresh migrated database.
    async fn stores() -> Stores {
        // The checks read country codes and identifier types: the binary's schemes.
        idreg::countries::install_schemes();
        let db = TestDatabase::create().await;
        let database = Arc::new(
            adapters_postgres::Database::connect(&db.url, 4)
                .expect("connecting to the test database"),
        );
        Stores {
            tenants: database.clone(),
            grants: database.clone(),
            audit: database.clone(),
            audit_log: database.clone(),
            subjects: database.clone(),
            companies: database.clone(),
            paid: database.clone(),
            persons: database.clone(),
            events: database.clone(),
            subscriptions: database.clone(),
            sanctions: database.clone(),
            screening: database.clone(),
            probe: database.clone(),
            idempotency: database.clone(),
            webhooks: database.clone(),
            portal: database.clone(),
            oauth: database.clone(),
            conversations: database,
            backing: Backing::Postgres(db),
        }
    }

    tenants_checks!(stores);
    grants_checks!(stores);
    audit_checks!(stores);
    subjects_checks!(stores);
    companies_checks!(stores);
    paid_checks!(stores);
    persons_checks!(stores);
    events_checks!(stores);
    subscriptions_checks!(stores);
    health_checks!(stores);
    sanctions_checks!(stores);
    screening_checks!(stores);
    idempotency_checks!(stores);
    webhooks_checks!(stores);
    portal_checks!(stores);
    oauth_checks!(stores);
    assistant_checks!(stores);
}

/// The embedded store: every check, the very checks PostgreSQL passes.
mod sqlite {
    use super::assistant::*;
    use super::audit::*;
    use super::companies::*;
    use super::events::*;
    use super::grants::*;
    use super::health::*;
    use super::idempotency::*;
    use super::oauth::*;
    use super::paid::*;
    use super::persons::*;
    use super::portal::*;
    use super::sanctions::*;
    use super::screening::*;
    use super::subjects::*;
    use super::subscriptions::*;
    use super::tenants::*;
    use super::webhooks::*;
    use super::{Backing, SqliteFile, Stores};

    use std::sync::Arc;

    /// The SQLite adapter on a fresh file.
    async fn stores() -> Stores {
        // The checks read country codes and identifier types: the binary's schemes.
        idreg::countries::install_schemes();
        let file = SqliteFile::new();
        let database =
            Arc::new(adapters_sqlite::Database::open(&file.path, 4).expect("opening the store"));
        Stores {
            tenants: database.clone(),
            grants: database.clone(),
            audit: database.clone(),
            audit_log: database.clone(),
            subjects: database.clone(),
            companies: database.clone(),
            paid: database.clone(),
            persons: database.clone(),
            events: database.clone(),
            subscriptions: database.clone(),
            sanctions: database.clone(),
            screening: database.clone(),
            probe: database.clone(),
            idempotency: database.clone(),
            webhooks: database.clone(),
            portal: database.clone(),
            oauth: database.clone(),
            conversations: database,
            backing: Backing::Sqlite(file),
        }
    }

    tenants_checks!(stores);
    grants_checks!(stores);
    audit_checks!(stores);
    subjects_checks!(stores);
    events_checks!(stores);
    subscriptions_checks!(stores);
    health_checks!(stores);
    companies_checks!(stores);
    paid_checks!(stores);
    persons_checks!(stores);
    sanctions_checks!(stores);
    screening_checks!(stores);
    idempotency_checks!(stores);
    webhooks_checks!(stores);
    portal_checks!(stores);
    oauth_checks!(stores);
    assistant_checks!(stores);
}
