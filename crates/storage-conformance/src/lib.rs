#![doc = include_str!("../README.md")]

use async_trait::async_trait;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use domain::access::audit::{
    AccessRecord, AuditFilter, Outcome, RequestContext, SecurityReason, SecurityRecord,
};
use domain::access::grant::{Grant, SecretHash};
use domain::access::scope::ScopeSet;
use domain::access::tenant::{Budget, Permit, PermitStatus, Tenant, TenantStatus, WrappedDataKey};
use domain::countries::country::{Country, CountrySet};
use domain::error::ErrorCode;
use domain::error::StoreError;
use domain::evidence::Evidence;
use domain::ids::{CallRef, ClientId, GrantId, IdentifierRef, RequestId, SubjectId, TenantId};
use domain::operation::{Operation, Surface};
use domain::storage::StoragePorts;
use domain::subjects::identifier::IdentifierType;
use domain::subjects::identifier::SubjectKind;
use domain::subjects::subject::{BlindIndex, FirstSighting, FreshSubject, ProtectedIdentifier};
use serde_json::{json, Value};

/// The store under test: its ports (every port of `domain::storage`, each a handle on the
/// one store), and what lies beneath them. The checks read the ports as fields of `Stores`.
pub struct Stores {
    pub ports: StoragePorts,
    pub backing: Box<dyn Backing>,
}

impl Stores {
    /// The ports of `store`, over `backing`.
    pub fn of<S: domain::storage::Storage>(store: S, backing: impl Backing) -> Stores {
        install_schemes();
        Stores {
            ports: StoragePorts::of(store),
            backing: Box::new(backing),
        }
    }
}

impl std::ops::Deref for Stores {
    type Target = StoragePorts;
    fn deref(&self) -> &StoragePorts {
        &self.ports
    }
}

/// Which SQL a store's backing speaks, for the few checks that write beneath the ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Sqlite,
}

/// Beneath the ports: how a check sees what a store wrote, implemented by each store's own
/// tests. Rows come back in one store-neutral shape: JSON objects with the port's field names,
/// times as UTC `YYYY-MM-DDTHH:MM:SS.ffffff`. Conditions are test-written SQL both stores
/// read alike.
#[async_trait]
pub trait Backing: Send + Sync + 'static {
    fn dialect(&self) -> Dialect;

    /// The rows of `table` meeting `condition`, each a JSON object of `columns`; the columns
    /// named in `times` rendered as UTC text with microseconds.
    async fn rows(
        &self,
        table: &str,
        columns: &[&str],
        times: &[&str],
        condition: &str,
    ) -> Vec<Value>;

    /// How many rows of `table` meet `condition`.
    async fn count(&self, table: &str, condition: &str) -> i64;

    /// Runs a statement beneath the ports: the rows it changed, or the store's refusal.
    async fn try_execute(&self, statement: &str) -> Result<usize, String>;

    /// The tenant audit rows of one request.
    async fn audit_rows(&self, request: RequestId) -> Vec<Value> {
        self.rows(
            "audit_log",
            &[
                "tenant_id",
                "audit_id",
                "grant_id",
                "request_id",
                "occurred_at",
                "surface",
                "action",
                "method",
                "route",
                "tool",
                "status",
                "outcome",
                "error_code",
                "detail",
                "portal_user_id",
                "conversation_id",
            ],
            &["occurred_at"],
            &format!("request_id = '{request}'"),
        )
        .await
    }

    /// The grant access rows of one request.
    async fn access_rows(&self, request: RequestId) -> Vec<Value> {
        self.rows(
            "access_log",
            &[
                "tenant_id",
                "grant_id",
                "access_id",
                "request_id",
                "occurred_at",
                "surface",
                "method",
                "route",
                "tool",
                "status",
                "outcome",
                "error_code",
            ],
            &["occurred_at"],
            &format!("request_id = '{request}'"),
        )
        .await
    }

    /// The security-log rows of one request.
    async fn security_rows(&self, request: RequestId) -> Vec<Value> {
        self.rows(
            "security_log",
            &[
                "event_id",
                "request_id",
                "occurred_at",
                "method",
                "route",
                "status",
                "reason",
                "client_id",
                "peer",
            ],
            &["occurred_at"],
            &format!("request_id = '{request}'"),
        )
        .await
    }

    /// One text column of the rows of `table` meeting `condition`, as `{column: value}`.
    async fn column(&self, table: &str, column: &str, condition: &str) -> Vec<Value> {
        self.rows(table, &[column], &[], condition).await
    }

    /// How many subjects the tenant has (merged or not).
    async fn subject_count(&self, tenant: TenantId) -> i64 {
        self.count("subjects", &format!("tenant_id = '{tenant}'"))
            .await
    }

    /// How many identifiers the tenant has stored.
    async fn identifier_count(&self, tenant: TenantId) -> i64 {
        self.count("subject_identifiers", &format!("tenant_id = '{tenant}'"))
            .await
    }

    /// How many upstream call records the tenant has.
    async fn call_record_count(&self, tenant: TenantId) -> i64 {
        self.count("call_records", &format!("tenant_id = '{tenant}'"))
            .await
    }

    /// How many permits were ever recorded for the tenant.
    async fn permit_count(&self, tenant: TenantId) -> i64 {
        self.count("permits", &format!("tenant_id = '{tenant}'"))
            .await
    }
}

/// The identifier schemes the checks read (Sweden's and Lithuania's), installed as the binary
/// installs them.
pub fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
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

/// An upstream call of `operation` to `source` at `at`, usable, under a fresh reference.
fn call(
    source: domain::evidence::EvidenceSource,
    operation: &str,
    at: DateTime<Utc>,
) -> domain::companies::profile::UpstreamCall {
    domain::companies::profile::UpstreamCall {
        source,
        operation: operation.to_owned(),
        status: Some(200),
        digest: Some(format!("sha256:{}", hex(&random_bytes(32)))),
        upstream_ref: Some(CallRef::generate().to_string()),
        source_timestamp: at - Duration::seconds(2),
        retrieved_at: at,
        schema_version: Some("vdm-v1".to_owned()),
        usable: true,
        cost: 0,
        elapsed: std::time::Duration::from_millis(40),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A Swedish company subject of the tenant (its identifier fresh random bytes).
async fn company_subject(stores: &Stores, t: &Tenant) -> SubjectId {
    stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &identifier(adapters_se::identifiers::ORGNR),
            None,
            &company(t0()),
        )
        .await
        .expect("resolve")
        .subject_id
}

fn sorted(mut ids: Vec<GrantId>) -> Vec<GrantId> {
    ids.sort();
    ids
}

pub mod assistant;
pub mod audit;
pub mod companies;
pub mod events;
pub mod grants;
pub mod health;
pub mod idempotency;
pub mod oauth;
pub mod paid;
pub mod persons;
pub mod portal;
pub mod sanctions;
pub mod screening;
pub mod subjects;
pub mod subscriptions;
pub mod tenants;
pub mod webhooks;

// --- the check lists ---

/// One test per check of one check file, for the store a constructor builds:
/// `conformance_tests!(constructor, file; test => check, ...)`.
#[doc(hidden)]
#[macro_export]
macro_rules! conformance_tests {
    ($stores:path, $module:ident; $($(#[$attr:meta])* $test:ident => $check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            $(#[$attr])*
            async fn $test() {
                let stores = $stores().await;
                $crate::$module::$check(&stores).await;
            }
        )*
    };
}

/// The checks of `tenants.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! tenants_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, tenants;
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
#[doc(hidden)]
#[macro_export]
macro_rules! grants_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, grants;
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
#[doc(hidden)]
#[macro_export]
macro_rules! audit_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, audit;
            an_access_record_writes_one_audit_row_and_one_access_row => check_an_access_record_writes_one_audit_row_and_one_access_row,
            a_security_record_writes_one_security_row => check_a_security_record_writes_one_security_row,
            a_portal_record_writes_one_audit_row_naming_the_portal_user => check_a_portal_record_writes_one_audit_row_naming_the_portal_user,
            the_audit_log_reads_back_one_tenants_rows_newest_first_filtered_and_paged => check_the_audit_log_reads_back_one_tenants_rows_newest_first_filtered_and_paged,
        );
    };
}

/// The checks of `subjects.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! subjects_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, subjects;
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
#[doc(hidden)]
#[macro_export]
macro_rules! companies_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, companies;
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
#[doc(hidden)]
#[macro_export]
macro_rules! paid_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, paid;
            concurrent_spends_never_pass_the_cap => check_concurrent_spends_never_pass_the_cap,
            parts_days_and_tenants_are_counted_apart => check_parts_days_and_tenants_are_counted_apart,
            a_range_of_days_reads_the_spending_days_in_one_read => check_a_range_of_days_reads_the_spending_days_in_one_read,
            a_paid_object_round_trips_per_tenant => check_a_paid_object_round_trips_per_tenant,
        );
    };
}

/// The checks of `persons.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! persons_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, persons;
            concurrent_person_lookups_never_pass_the_ceiling => check_concurrent_person_lookups_never_pass_the_ceiling,
            person_lookups_are_counted_apart => check_person_lookups_are_counted_apart,
            a_sealed_person_round_trips_per_tenant => check_a_sealed_person_round_trips_per_tenant,
        );
    };
}

/// The checks of `idempotency.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! idempotency_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, idempotency;
            a_free_key_is_claimed_once_under_concurrency => check_a_free_key_is_claimed_once_under_concurrency,
            an_answered_key_replays_and_refuses_another_request => check_an_answered_key_replays_and_refuses_another_request,
            leases_and_expiry_free_a_key => check_leases_and_expiry_free_a_key,
            tenants_never_share_a_key => check_tenants_never_share_a_key,
            the_purge_forgets_only_expired_keys => check_the_purge_forgets_only_expired_keys,
        );
    };
}

/// The checks of `events.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! events_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, events;
            concurrent_appends_leave_no_gap_and_no_duplicate => check_concurrent_appends_leave_no_gap_and_no_duplicate,
            keys_are_logged_once_and_a_failed_append_leaves_no_hole => check_keys_are_logged_once_and_a_failed_append_leaves_no_hole,
            pages_follow_the_cursor_and_the_filters => check_pages_follow_the_cursor_and_the_filters,
            events_name_the_subjects_first_customer_reference => check_events_name_the_subjects_first_customer_reference,
        );
    };
}

/// The checks of `subscriptions.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! subscriptions_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, subscriptions;
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
#[doc(hidden)]
#[macro_export]
macro_rules! health_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, health;
            the_first_keys_are_the_stores_and_only_a_signing_rotation_moves_them => check_the_first_keys_are_the_stores_and_only_a_signing_rotation_moves_them,
        );
    };
}

/// The checks of `sanctions.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! sanctions_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, sanctions;
            a_list_version_round_trips_and_the_same_file_is_one_version => check_a_list_version_round_trips_and_the_same_file_is_one_version,
            a_failed_import_leaves_the_active_version_and_marks_the_list_degraded => check_a_failed_import_leaves_the_active_version_and_marks_the_list_degraded,
            a_change_of_the_active_version_is_recorded_and_worked_once => check_a_change_of_the_active_version_is_recorded_and_worked_once,
        );
    };
}

/// The checks of `portal.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! oauth_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, oauth;
            a_registration_is_answered_again_bounded_and_lapses_unused => check_a_registration_is_answered_again_bounded_and_lapses_unused,
            a_metadata_documents_client_is_replaced_when_read_again => check_a_metadata_documents_client_is_replaced_when_read_again,
            a_pending_request_is_decided_once => check_a_pending_request_is_decided_once,
            a_connection_supersedes_the_persons_earlier_one_of_the_client => check_a_connection_supersedes_the_persons_earlier_one_of_the_client,
            a_code_is_used_once_and_a_refresh_family_advances_by_compare_and_set => check_a_code_is_used_once_and_a_refresh_family_advances_by_compare_and_set,
        );
    };
}

/// The checks of `assistant.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! assistant_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, assistant;
            a_conversation_is_its_tenants_and_users_alone => check_a_conversation_is_its_tenants_and_users_alone,
            turns_append_in_order_and_a_taken_place_is_a_conflict_that_writes_nothing => check_turns_append_in_order_and_a_taken_place_is_a_conflict_that_writes_nothing,
            a_conversation_is_deleted_by_its_user_with_its_turns => check_a_conversation_is_deleted_by_its_user_with_its_turns,
            the_purge_removes_only_conversations_last_used_before_the_cutoff => check_the_purge_removes_only_conversations_last_used_before_the_cutoff,
            concurrent_model_calls_never_pass_the_daily_allowance => check_concurrent_model_calls_never_pass_the_daily_allowance,
            a_tool_calls_audit_row_names_the_user_and_the_conversation => check_a_tool_calls_audit_row_names_the_user_and_the_conversation,
        );
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! portal_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, portal;
            portal_users_are_one_per_address_within_a_tenant => check_portal_users_are_one_per_address_within_a_tenant,
            a_link_is_redeemed_once_by_the_browser_that_asked => check_a_link_is_redeemed_once_by_the_browser_that_asked,
            a_session_ends_at_its_lifetime_when_idle_or_at_sign_out => check_a_session_ends_at_its_lifetime_when_idle_or_at_sign_out,
            disabling_a_user_ends_their_sessions_once => check_disabling_a_user_ends_their_sessions_once,
        );
    };
}

/// The checks of `webhooks.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! webhooks_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, webhooks;
            an_endpoint_starts_where_asked_and_is_its_grants_alone => check_an_endpoint_starts_where_asked_and_is_its_grants_alone,
            the_dispatch_queue_is_shared_safely => check_the_dispatch_queue_is_shared_safely,
            an_attempt_moves_the_cursor_with_it_under_its_claim => check_an_attempt_moves_the_cursor_with_it_under_its_claim,
        );
    };
}

/// The checks of `screening.rs`, one test each, for the adapter `$stores` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! screening_checks {
    ($stores:path) => {
        $crate::conformance_tests!($stores, screening;
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

/// Which check file covers each storage port (`domain::storage::StoragePorts::NAMES`): a port
/// added there without checks fails `every_storage_port_has_checks`, which [`all_checks!`]
/// runs for each store.
pub const CHECKED_PORTS: &[(&str, &str)] = &[
    ("tenants", "tenants"),
    ("grants", "grants"),
    ("audit", "audit"),
    ("audit_log", "audit"),
    ("subjects", "subjects"),
    ("companies", "companies"),
    ("paid", "paid"),
    ("persons", "persons"),
    ("events", "events"),
    ("subscriptions", "subscriptions"),
    ("sanctions", "sanctions"),
    ("screening", "screening"),
    ("probe", "health"),
    ("idempotency", "idempotency"),
    ("webhooks", "webhooks"),
    ("portal", "portal"),
    ("oauth", "oauth"),
    ("conversations", "assistant"),
];

/// Every storage port has a check file, and every check file's port is a storage port.
pub fn assert_every_port_checked() {
    let ports: std::collections::BTreeSet<&str> = StoragePorts::NAMES.iter().copied().collect();
    let checked: std::collections::BTreeSet<&str> =
        CHECKED_PORTS.iter().map(|(port, _)| *port).collect();
    let unchecked: Vec<_> = ports.difference(&checked).collect();
    let unknown: Vec<_> = checked.difference(&ports).collect();
    assert!(
        unchecked.is_empty() && unknown.is_empty(),
        "storage ports without checks: {unchecked:?}; checks of no storage port: {unknown:?} \
         (add the port's checks and its row in CHECKED_PORTS)"
    );
}

/// Every check of every port, one `#[tokio::test]` each, on the store `$stores` (an async
/// function answering [`Stores`]) builds: a store's own tests invoke this once.
#[macro_export]
macro_rules! all_checks {
    ($stores:path) => {
        $crate::tenants_checks!($stores);
        $crate::grants_checks!($stores);
        $crate::audit_checks!($stores);
        $crate::subjects_checks!($stores);
        $crate::companies_checks!($stores);
        $crate::paid_checks!($stores);
        $crate::persons_checks!($stores);
        $crate::events_checks!($stores);
        $crate::subscriptions_checks!($stores);
        $crate::health_checks!($stores);
        $crate::sanctions_checks!($stores);
        $crate::screening_checks!($stores);
        $crate::idempotency_checks!($stores);
        $crate::webhooks_checks!($stores);
        $crate::portal_checks!($stores);
        $crate::oauth_checks!($stores);
        $crate::assistant_checks!($stores);

        #[test]
        fn every_storage_port_has_checks() {
            $crate::assert_every_port_checked();
        }
    };
}
