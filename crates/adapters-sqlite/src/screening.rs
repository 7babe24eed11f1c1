//! `ScreeningStore` on SQLite: the service's policy versions, each tenant's override versions
//! and whitelist, and the append-only screening checks (held so beneath the port by
//! triggers). Numbering and moving versions run in write transactions, one at a time.

use crate::convert::{corrupt, list, micros, parse_id, parse_list, time, TxError};
use crate::events::append_within;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Double, Integer, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::countries::country::{Country, CountrySet};
use domain::error::StoreError;
use domain::ids::{
    GrantId, OverrideVersionId, PolicyVersionId, ScreeningCheckId, SubjectId, SubscriptionId,
    TenantId, WhitelistEntryId,
};
use domain::monitoring::event::NewEvent;
use domain::monitoring::subscription::SubscriptionStatus;
use domain::screening::check::{InputKind, SealedCheckInput, StoredCheck};
use domain::screening::matcher::score::Weights;
use domain::screening::policy::{
    Band, OverrideConfig, OverrideStatus, OverrideVersion, PepPolicy, PolicyConfig, PolicyVersion,
    WeightOverrides,
};
use domain::screening::ports::{ScreeningContext, ScreeningStore};
use domain::screening::sanctions::ListSource;
use domain::screening::whitelist::WhitelistEntry;
use storage_codec::screening::StoredCandidate;

// --- rows ---

const POLICY_COLUMNS: &str = "policy_version_id, version, review, hit, birth_date_exact, \
     birth_date_partial, birth_date_mismatch, nationality_match, nationality_mismatch, \
     country_match, weak_alias, created_by, created_at, active, peps_screened, \
     pep_after_office_months";

#[derive(QueryableByName)]
struct PolicyRow {
    #[diesel(sql_type = Text)]
    policy_version_id: String,
    #[diesel(sql_type = Integer)]
    version: i32,
    #[diesel(sql_type = Double)]
    review: f64,
    #[diesel(sql_type = Double)]
    hit: f64,
    #[diesel(sql_type = Double)]
    birth_date_exact: f64,
    #[diesel(sql_type = Double)]
    birth_date_partial: f64,
    #[diesel(sql_type = Double)]
    birth_date_mismatch: f64,
    #[diesel(sql_type = Double)]
    nationality_match: f64,
    #[diesel(sql_type = Double)]
    nationality_mismatch: f64,
    #[diesel(sql_type = Double)]
    country_match: f64,
    #[diesel(sql_type = Double)]
    weak_alias: f64,
    #[diesel(sql_type = Text)]
    created_by: String,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Integer)]
    active: i32,
    #[diesel(sql_type = Integer)]
    peps_screened: i32,
    #[diesel(sql_type = Integer)]
    pep_after_office_months: i32,
}

const OVERRIDE_COLUMNS: &str = "tenant_id, override_version_id, version, review, hit, \
     birth_date_exact, birth_date_partial, birth_date_mismatch, nationality_match, \
     nationality_mismatch, country_match, weak_alias, proposed_by, approved_by, status, \
     effective_from, created_at, peps_screened, pep_after_office_months";

#[derive(QueryableByName)]
struct OverrideRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    override_version_id: String,
    #[diesel(sql_type = Integer)]
    version: i32,
    #[diesel(sql_type = Nullable<Double>)]
    review: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    hit: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    birth_date_exact: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    birth_date_partial: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    birth_date_mismatch: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    nationality_match: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    nationality_mismatch: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    country_match: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    weak_alias: Option<f64>,
    #[diesel(sql_type = Text)]
    proposed_by: String,
    #[diesel(sql_type = Nullable<Text>)]
    approved_by: Option<String>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    effective_from: Option<i64>,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Nullable<Integer>)]
    peps_screened: Option<i32>,
    #[diesel(sql_type = Nullable<Integer>)]
    pep_after_office_months: Option<i32>,
}

const WHITELIST_COLUMNS: &str = "tenant_id, whitelist_entry_id, subject_id, input_hash, source, \
     source_entry_id, reason, created_by, approved_by, created_at, expires_at, revoked_at";

#[derive(QueryableByName)]
struct WhitelistRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    whitelist_entry_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    subject_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    input_hash: Option<String>,
    #[diesel(sql_type = Text)]
    source: String,
    #[diesel(sql_type = Text)]
    source_entry_id: String,
    #[diesel(sql_type = Text)]
    reason: String,
    #[diesel(sql_type = Text)]
    created_by: String,
    #[diesel(sql_type = Nullable<Text>)]
    approved_by: Option<String>,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    revoked_at: Option<i64>,
}

/// A check's subject as read: its canonical id now (the row itself is append-only and keeps
/// the id it was made under), and the ids merged into it (a JSON array, in id order).
fn check_columns() -> String {
    const CANONICAL: &str = "COALESCE((SELECT m.merged_into FROM subjects m \
         WHERE m.tenant_id = c.tenant_id AND m.subject_id = c.subject_id), c.subject_id)";
    format!(
        "c.tenant_id, c.check_id, c.grant_id, {CANONICAL} AS subject_id, c.visibility, \
         c.input_kind, c.sealed_input, c.has_identifier, c.person_fields_masked, c.input_hash, \
         c.input_verified, c.band, c.policy_version_id, c.tenant_override_version_id, \
         c.source_version_ids, c.degraded_sources, c.truncated_datasets, c.matcher_version, \
         c.checked_at, c.candidates, \
         CASE WHEN c.subject_id IS NULL THEN '[]' ELSE (SELECT json_group_array(subject_id) \
           FROM (SELECT a.subject_id FROM subjects a WHERE a.tenant_id = c.tenant_id \
             AND a.merged_into = {CANONICAL} ORDER BY a.subject_id)) END AS aliases"
    )
}

#[derive(QueryableByName)]
struct CheckRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    check_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    grant_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    subject_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    visibility: Option<String>,
    #[diesel(sql_type = Text)]
    input_kind: String,
    #[diesel(sql_type = Binary)]
    sealed_input: Vec<u8>,
    #[diesel(sql_type = Integer)]
    has_identifier: i32,
    #[diesel(sql_type = Integer)]
    person_fields_masked: i32,
    #[diesel(sql_type = Nullable<Text>)]
    input_hash: Option<String>,
    #[diesel(sql_type = Integer)]
    input_verified: i32,
    #[diesel(sql_type = Text)]
    band: String,
    #[diesel(sql_type = Text)]
    policy_version_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    tenant_override_version_id: Option<String>,
    #[diesel(sql_type = Text)]
    source_version_ids: String,
    #[diesel(sql_type = Text)]
    degraded_sources: String,
    #[diesel(sql_type = Text)]
    truncated_datasets: String,
    #[diesel(sql_type = Text)]
    matcher_version: String,
    #[diesel(sql_type = BigInt)]
    checked_at: i64,
    #[diesel(sql_type = Text)]
    candidates: String,
    #[diesel(sql_type = Text)]
    aliases: String,
}

fn months(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt("after-office months"))
}

fn version_number(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt("version number"))
}

impl PolicyRow {
    fn policy(self) -> Result<PolicyVersion, StoreError> {
        Ok(PolicyVersion {
            id: parse_id(&self.policy_version_id, "policy version id")?,
            version: version_number(self.version)?,
            config: PolicyConfig {
                review: self.review,
                hit: self.hit,
                weights: Weights {
                    birth_date_exact: self.birth_date_exact,
                    birth_date_partial: self.birth_date_partial,
                    birth_date_mismatch: self.birth_date_mismatch,
                    nationality_match: self.nationality_match,
                    nationality_mismatch: self.nationality_mismatch,
                    country_match: self.country_match,
                    weak_alias: self.weak_alias,
                },
                peps: PepPolicy {
                    screened: self.peps_screened == 1,
                    after_office_months: months(self.pep_after_office_months)?,
                },
            },
            created_by: self.created_by,
            created_at: time(self.created_at)?,
            active: self.active == 1,
        })
    }
}

impl OverrideRow {
    fn version(self) -> Result<OverrideVersion, StoreError> {
        let thresholds = match (self.review, self.hit) {
            (Some(review), Some(hit)) => Some((review, hit)),
            (None, None) => None,
            _ => return Err(corrupt("override thresholds")),
        };
        Ok(OverrideVersion {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            id: parse_id(&self.override_version_id, "override version id")?,
            version: version_number(self.version)?,
            config: OverrideConfig {
                thresholds,
                weights: WeightOverrides {
                    birth_date_exact: self.birth_date_exact,
                    birth_date_partial: self.birth_date_partial,
                    birth_date_mismatch: self.birth_date_mismatch,
                    nationality_match: self.nationality_match,
                    nationality_mismatch: self.nationality_mismatch,
                    country_match: self.country_match,
                    weak_alias: self.weak_alias,
                },
                peps_screened: self.peps_screened.map(|s| s == 1),
                pep_after_office_months: self.pep_after_office_months.map(months).transpose()?,
            },
            proposed_by: self.proposed_by,
            approved_by: self.approved_by,
            status: OverrideStatus::parse(&self.status)
                .ok_or_else(|| corrupt("override status"))?,
            effective_from: self.effective_from.map(time).transpose()?,
            created_at: time(self.created_at)?,
        })
    }
}

impl WhitelistRow {
    fn entry(self) -> Result<WhitelistEntry, StoreError> {
        Ok(WhitelistEntry {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            id: parse_id(&self.whitelist_entry_id, "whitelist entry id")?,
            subject_id: self
                .subject_id
                .as_deref()
                .map(|s| parse_id(s, "subject id"))
                .transpose()?,
            input_hash: self.input_hash,
            source: ListSource::parse(&self.source).ok_or_else(|| corrupt("list source"))?,
            source_entry_id: self.source_entry_id,
            reason: self.reason,
            created_by: self.created_by,
            approved_by: self.approved_by,
            created_at: time(self.created_at)?,
            expires_at: time(self.expires_at)?,
            revoked_at: self.revoked_at.map(time).transpose()?,
        })
    }
}

impl CheckRow {
    fn check(self) -> Result<StoredCheck, StoreError> {
        let candidates: Vec<StoredCandidate> =
            serde_json::from_str(&self.candidates).map_err(|_| corrupt("check candidates"))?;
        let aliases = parse_list(&self.aliases, "aliases")?;
        Ok(StoredCheck {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            id: parse_id(&self.check_id, "screening check id")?,
            // No grant: the service's own check (ongoing screening).
            grant_id: self
                .grant_id
                .as_deref()
                .map_or(Ok(GrantId::MONITORING), |g| parse_id(g, "grant id"))?,
            subject_id: self
                .subject_id
                .as_deref()
                .map(|s| parse_id(s, "subject id"))
                .transpose()?,
            aliases: aliases
                .iter()
                .map(|a| parse_id(a, "subject id"))
                .collect::<Result<_, _>>()?,
            visibility: self
                .visibility
                .as_deref()
                .map(|c| Country::from_code(c).ok_or_else(|| corrupt("country")))
                .transpose()?,
            input_kind: InputKind::parse(&self.input_kind).ok_or_else(|| corrupt("input kind"))?,
            sealed_input: SealedCheckInput(self.sealed_input),
            has_identifier: self.has_identifier == 1,
            person_fields_masked: self.person_fields_masked == 1,
            input_hash: self.input_hash,
            input_verified: self.input_verified == 1,
            band: Band::parse(&self.band).ok_or_else(|| corrupt("band"))?,
            policy_version_id: parse_id(&self.policy_version_id, "policy version id")?,
            tenant_override_version_id: self
                .tenant_override_version_id
                .as_deref()
                .map(|s| parse_id(s, "override version id"))
                .transpose()?,
            source_version_ids: parse_list(&self.source_version_ids, "source versions")?
                .iter()
                .map(|s| parse_id(s, "source version id"))
                .collect::<Result<_, _>>()?,
            degraded_sources: parse_list(&self.degraded_sources, "degraded sources")?,
            truncated_datasets: parse_list(&self.truncated_datasets, "truncated datasets")?,
            matcher_version: self.matcher_version,
            checked_at: time(self.checked_at)?,
            candidates: candidates
                .into_iter()
                .map(StoredCandidate::into_domain)
                .collect::<Result<_, _>>()?,
        })
    }
}

fn policy(conn: &mut SqliteConnection, id: &str) -> Result<Option<PolicyRow>, TxError> {
    Ok(diesel::sql_query(format!(
        "SELECT {POLICY_COLUMNS} FROM screening_policy_versions WHERE policy_version_id = ?"
    ))
    .bind::<Text, _>(id)
    .get_result(conn)
    .optional()?)
}

fn override_row(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<Option<OverrideRow>, TxError> {
    Ok(diesel::sql_query(format!(
        "SELECT {OVERRIDE_COLUMNS} FROM screening_override_versions \
         WHERE tenant_id = ? AND override_version_id = ?"
    ))
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(id)
    .get_result(conn)
    .optional()?)
}

fn whitelist_row(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<Option<WhitelistRow>, TxError> {
    Ok(diesel::sql_query(format!(
        "SELECT {WHITELIST_COLUMNS} FROM screening_whitelist_entries \
         WHERE tenant_id = ? AND whitelist_entry_id = ?"
    ))
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(id)
    .get_result(conn)
    .optional()?)
}

fn tenant_exists(conn: &mut SqliteConnection, tenant_id: &str) -> Result<bool, TxError> {
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let n: N = diesel::sql_query("SELECT COUNT(*) AS n FROM tenants WHERE tenant_id = ?")
        .bind::<Text, _>(tenant_id)
        .get_result(conn)?;
    Ok(n.n == 1)
}

#[derive(QueryableByName)]
struct Newest {
    #[diesel(sql_type = Nullable<Integer>)]
    newest: Option<i32>,
}

/// The check's candidates as stored.
fn candidates_json(check: &StoredCheck) -> Result<String, StoreError> {
    let candidates: Vec<StoredCandidate> = check
        .candidates
        .iter()
        .map(StoredCandidate::from_domain)
        .collect();
    serde_json::to_string(&candidates).map_err(|e| StoreError::Backend(e.to_string()))
}

/// Appends a check inside the caller's transaction.
fn insert_check_within(
    conn: &mut SqliteConnection,
    check: &StoredCheck,
    candidates: &str,
) -> Result<(), TxError> {
    let ids: Vec<String> = check
        .source_version_ids
        .iter()
        .map(ToString::to_string)
        .collect();
    diesel::sql_query(
        "INSERT INTO screening_checks (tenant_id, check_id, grant_id, subject_id, \
           visibility, input_kind, sealed_input, has_identifier, person_fields_masked, \
           input_hash, input_verified, band, policy_version_id, \
           tenant_override_version_id, source_version_ids, degraded_sources, \
           truncated_datasets, matcher_version, checked_at, candidates) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind::<Text, _>(check.tenant_id.to_string())
    .bind::<Text, _>(check.id.to_string())
    .bind::<Nullable<Text>, _>(
        (check.grant_id != GrantId::MONITORING).then(|| check.grant_id.to_string()),
    )
    .bind::<Nullable<Text>, _>(check.subject_id.map(|s| s.to_string()))
    .bind::<Nullable<Text>, _>(check.visibility.map(|c| c.code()))
    .bind::<Text, _>(check.input_kind.as_str())
    .bind::<Binary, _>(&check.sealed_input.0)
    .bind::<Integer, _>(i32::from(check.has_identifier))
    .bind::<Integer, _>(i32::from(check.person_fields_masked))
    .bind::<Nullable<Text>, _>(check.input_hash.as_deref())
    .bind::<Integer, _>(i32::from(check.input_verified))
    .bind::<Text, _>(check.band.as_str())
    .bind::<Text, _>(check.policy_version_id.to_string())
    .bind::<Nullable<Text>, _>(check.tenant_override_version_id.map(|o| o.to_string()))
    .bind::<Text, _>(list(ids.iter().map(String::as_str)))
    .bind::<Text, _>(list(check.degraded_sources.iter().map(String::as_str)))
    .bind::<Text, _>(list(check.truncated_datasets.iter().map(String::as_str)))
    .bind::<Text, _>(&check.matcher_version)
    .bind::<BigInt, _>(micros(check.checked_at))
    .bind::<Text, _>(&candidates)
    .execute(conn)?;
    Ok(())
}

#[async_trait]
impl ScreeningStore for Database {
    async fn screening_context(
        &self,
        tenant: &TenantId,
        at: DateTime<Utc>,
    ) -> Result<ScreeningContext, StoreError> {
        let tenant_id = tenant.to_string();
        // One snapshot: the active policy, the tenant's active override and its whitelist
        // entries in effect.
        self.read(move |conn| {
            let policy: Option<PolicyRow> = diesel::sql_query(format!(
                "SELECT {POLICY_COLUMNS} FROM screening_policy_versions WHERE active = 1"
            ))
            .get_result(conn)
            .optional()?;
            let override_version: Option<OverrideRow> = diesel::sql_query(format!(
                "SELECT {OVERRIDE_COLUMNS} FROM screening_override_versions \
                 WHERE tenant_id = ? AND status = 'active'"
            ))
            .bind::<Text, _>(&tenant_id)
            .get_result(conn)
            .optional()?;
            let whitelist: Vec<WhitelistRow> = diesel::sql_query(format!(
                "SELECT {WHITELIST_COLUMNS} FROM screening_whitelist_entries \
                 WHERE tenant_id = ?1 AND approved_by IS NOT NULL \
                   AND (revoked_at IS NULL OR revoked_at > ?2) AND expires_at > ?2 \
                 ORDER BY created_at DESC, whitelist_entry_id DESC"
            ))
            .bind::<Text, _>(&tenant_id)
            .bind::<BigInt, _>(micros(at))
            .load(conn)?;
            Ok(ScreeningContext {
                policy: policy.map(PolicyRow::policy).transpose()?,
                override_version: override_version.map(OverrideRow::version).transpose()?,
                whitelist: whitelist
                    .into_iter()
                    .map(WhitelistRow::entry)
                    .collect::<Result<_, _>>()?,
            })
        })
        .await
    }

    async fn insert_check(&self, check: &StoredCheck) -> Result<(), StoreError> {
        let candidates = candidates_json(check)?;
        let check = check.clone();
        self.write(move |conn| insert_check_within(conn, &check, &candidates))
            .await
    }

    async fn record_screening_change(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
        check: &StoredCheck,
        events: &[NewEvent],
    ) -> Result<Option<Vec<i64>>, StoreError> {
        let candidates = candidates_json(check)?;
        let (tenant_id, id) = (tenant.to_string(), subscription.to_string());
        let (check, events) = (check.clone(), events.to_vec());
        self.write(move |conn| {
            #[derive(QueryableByName)]
            struct Status {
                #[diesel(sql_type = Text)]
                status: String,
            }
            #[derive(QueryableByName)]
            struct Seq {
                #[diesel(sql_type = BigInt)]
                #[allow(dead_code)]
                seq: i64,
            }
            // Inside the write transaction nothing can end or suspend the subscription.
            let status: Option<Status> = diesel::sql_query(
                "SELECT status FROM subscriptions WHERE tenant_id = ? AND subscription_id = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .get_result(conn)
            .optional()?;
            if status.is_none_or(|s| s.status != SubscriptionStatus::Active.as_str()) {
                return Ok(None);
            }
            let logged: Option<Seq> = match events.first() {
                Some(first) => diesel::sql_query(
                    "SELECT seq FROM events WHERE tenant_id = ? AND idempotency_key = ?",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&first.idempotency_key)
                .get_result(conn)
                .optional()?,
                None => None,
            };
            if logged.is_none() {
                insert_check_within(conn, &check, &candidates)?;
            }
            Ok(Some(append_within(conn, &tenant_id, &events)?))
        })
        .await
    }

    async fn check(
        &self,
        tenant: &TenantId,
        id: &ScreeningCheckId,
    ) -> Result<Option<StoredCheck>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| {
            let row: Option<CheckRow> = diesel::sql_query(format!(
                "SELECT {} FROM screening_checks c WHERE c.tenant_id = ? AND c.check_id = ?",
                check_columns()
            ))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .get_result(conn)
            .optional()?;
            Ok(row.map(CheckRow::check).transpose()?)
        })
        .await
    }

    async fn checks(
        &self,
        tenant: &TenantId,
        subject: Option<SubjectId>,
        countries: &CountrySet,
        limit: u32,
    ) -> Result<Vec<StoredCheck>, StoreError> {
        let tenant_id = tenant.to_string();
        let codes = list(countries.iter().map(|c| c.code()));
        let subject = subject.map(|s| s.to_string());
        self.read(move |conn| {
            // The checks made under any id of the subject (when one is asked): its canonical
            // id and every alias, whichever of them was asked.
            let rows: Vec<CheckRow> = diesel::sql_query(format!(
                "SELECT {} FROM screening_checks c WHERE c.tenant_id = ?1 \
                   AND (c.visibility IS NULL OR c.visibility IN (SELECT value FROM json_each(?2))) \
                   AND (?3 IS NULL OR c.subject_id IN {}) \
                 ORDER BY c.checked_at DESC, c.check_id DESC LIMIT ?4",
                check_columns(),
                crate::subject_ids::ids_of_subject("?1", "?3")
            ))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&codes)
            .bind::<Nullable<Text>, _>(subject.as_deref())
            .bind::<BigInt, _>(i64::from(limit))
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(CheckRow::check)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn publish_policy(
        &self,
        id: PolicyVersionId,
        config: &PolicyConfig,
        created_by: &str,
        at: DateTime<Utc>,
    ) -> Result<PolicyVersion, StoreError> {
        let (config, created_by) = (config.clone(), created_by.to_owned());
        // Publishers run one at a time (the write lock): numbering and the switch of the
        // active version happen together.
        self.write(move |conn| {
            let newest: Newest =
                diesel::sql_query("SELECT MAX(version) AS newest FROM screening_policy_versions")
                    .get_result(conn)?;
            let version = newest
                .newest
                .unwrap_or(0)
                .checked_add(1)
                .ok_or_else(|| StoreError::Backend("policy version out of range".into()))?;
            diesel::sql_query("UPDATE screening_policy_versions SET active = 0 WHERE active = 1")
                .execute(conn)?;
            let w = &config.weights;
            diesel::sql_query(format!(
                "INSERT INTO screening_policy_versions ({POLICY_COLUMNS}) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)"
            ))
            .bind::<Text, _>(id.to_string())
            .bind::<Integer, _>(version)
            .bind::<Double, _>(config.review)
            .bind::<Double, _>(config.hit)
            .bind::<Double, _>(w.birth_date_exact)
            .bind::<Double, _>(w.birth_date_partial)
            .bind::<Double, _>(w.birth_date_mismatch)
            .bind::<Double, _>(w.nationality_match)
            .bind::<Double, _>(w.nationality_mismatch)
            .bind::<Double, _>(w.country_match)
            .bind::<Double, _>(w.weak_alias)
            .bind::<Text, _>(&created_by)
            .bind::<BigInt, _>(micros(at))
            .bind::<Integer, _>(i32::from(config.peps.screened))
            .bind::<Integer, _>(i32::try_from(config.peps.after_office_months).unwrap_or(i32::MAX))
            .execute(conn)?;
            let row = policy(conn, &id.to_string())?.ok_or(StoreError::NotFound)?;
            Ok(row.policy()?)
        })
        .await
    }

    async fn retire_policy(
        &self,
        id: &PolicyVersionId,
    ) -> Result<Option<PolicyVersion>, StoreError> {
        let id = id.to_string();
        self.write(move |conn| {
            diesel::sql_query(
                "UPDATE screening_policy_versions SET active = 0 WHERE policy_version_id = ?",
            )
            .bind::<Text, _>(&id)
            .execute(conn)?;
            Ok(policy(conn, &id)?.map(PolicyRow::policy).transpose()?)
        })
        .await
    }

    async fn policies(&self) -> Result<Vec<PolicyVersion>, StoreError> {
        self.read(|conn| {
            let rows: Vec<PolicyRow> = diesel::sql_query(format!(
                "SELECT {POLICY_COLUMNS} FROM screening_policy_versions ORDER BY version DESC"
            ))
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(PolicyRow::policy)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn propose_override(
        &self,
        tenant: &TenantId,
        id: OverrideVersionId,
        config: &OverrideConfig,
        proposed_by: &str,
        at: DateTime<Utc>,
    ) -> Result<OverrideVersion, StoreError> {
        let (tenant_id, config, proposed_by) =
            (tenant.to_string(), config.clone(), proposed_by.to_owned());
        // One write at a time: a tenant's override versions are numbered one by one.
        self.write(move |conn| {
            if !tenant_exists(conn, &tenant_id)? {
                return Err(StoreError::NotFound.into());
            }
            let newest: Newest = diesel::sql_query(
                "SELECT MAX(version) AS newest FROM screening_override_versions \
                 WHERE tenant_id = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .get_result(conn)?;
            let version = newest
                .newest
                .unwrap_or(0)
                .checked_add(1)
                .ok_or_else(|| StoreError::Backend("override version out of range".into()))?;
            let (review, hit) = config.thresholds.unzip();
            let w = &config.weights;
            diesel::sql_query(format!(
                "INSERT INTO screening_override_versions ({OVERRIDE_COLUMNS}) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'draft', NULL, ?, ?, ?)"
            ))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(id.to_string())
            .bind::<Integer, _>(version)
            .bind::<Nullable<Double>, _>(review)
            .bind::<Nullable<Double>, _>(hit)
            .bind::<Nullable<Double>, _>(w.birth_date_exact)
            .bind::<Nullable<Double>, _>(w.birth_date_partial)
            .bind::<Nullable<Double>, _>(w.birth_date_mismatch)
            .bind::<Nullable<Double>, _>(w.nationality_match)
            .bind::<Nullable<Double>, _>(w.nationality_mismatch)
            .bind::<Nullable<Double>, _>(w.country_match)
            .bind::<Nullable<Double>, _>(w.weak_alias)
            .bind::<Text, _>(&proposed_by)
            .bind::<BigInt, _>(micros(at))
            .bind::<Nullable<Integer>, _>(config.peps_screened.map(i32::from))
            .bind::<Nullable<Integer>, _>(
                config
                    .pep_after_office_months
                    .map(|m| i32::try_from(m).unwrap_or(i32::MAX)),
            )
            .execute(conn)?;
            let row =
                override_row(conn, &tenant_id, &id.to_string())?.ok_or(StoreError::NotFound)?;
            Ok(row.version()?)
        })
        .await
    }

    async fn move_override<'a>(
        &self,
        tenant: &TenantId,
        id: &OverrideVersionId,
        from: OverrideStatus,
        to: OverrideStatus,
        approved_by: Option<&'a str>,
        at: DateTime<Utc>,
    ) -> Result<Option<OverrideVersion>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        let approved_by = approved_by.map(str::to_owned);
        // One move at a time: a second activation waits for the write lock, then sees the
        // first one's version active and retires it.
        self.write(move |conn| {
            let Some(current) = override_row(conn, &tenant_id, &id)? else {
                return Ok(None);
            };
            if current.status != from.as_str() {
                return Ok(None);
            }
            if to == OverrideStatus::Active {
                diesel::sql_query(
                    "UPDATE screening_override_versions SET status = 'retired' \
                     WHERE tenant_id = ? AND status = 'active' AND override_version_id <> ?",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&id)
                .execute(conn)?;
            }
            let approved_by = approved_by.or(current.approved_by);
            let effective_from = if to == OverrideStatus::Active {
                Some(micros(at))
            } else {
                current.effective_from
            };
            diesel::sql_query(
                "UPDATE screening_override_versions SET status = ?, approved_by = ?, \
                   effective_from = ? WHERE tenant_id = ? AND override_version_id = ?",
            )
            .bind::<Text, _>(to.as_str())
            .bind::<Nullable<Text>, _>(approved_by)
            .bind::<Nullable<BigInt>, _>(effective_from)
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            override_version_of(conn, &tenant_id, &id)
        })
        .await
    }

    async fn override_version(
        &self,
        tenant: &TenantId,
        id: &OverrideVersionId,
    ) -> Result<Option<OverrideVersion>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| override_version_of(conn, &tenant_id, &id))
            .await
    }

    async fn overrides(&self, tenant: &TenantId) -> Result<Vec<OverrideVersion>, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            let rows: Vec<OverrideRow> = diesel::sql_query(format!(
                "SELECT {OVERRIDE_COLUMNS} FROM screening_override_versions \
                 WHERE tenant_id = ? ORDER BY version DESC"
            ))
            .bind::<Text, _>(&tenant_id)
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(OverrideRow::version)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn add_whitelist_entry(&self, entry: &WhitelistEntry) -> Result<(), StoreError> {
        let entry = entry.clone();
        self.write(move |conn| {
            diesel::sql_query(format!(
                "INSERT INTO screening_whitelist_entries ({WHITELIST_COLUMNS}) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ))
            .bind::<Text, _>(entry.tenant_id.to_string())
            .bind::<Text, _>(entry.id.to_string())
            .bind::<Nullable<Text>, _>(entry.subject_id.map(|s| s.to_string()))
            .bind::<Nullable<Text>, _>(entry.input_hash.as_deref())
            .bind::<Text, _>(entry.source.as_str())
            .bind::<Text, _>(&entry.source_entry_id)
            .bind::<Text, _>(&entry.reason)
            .bind::<Text, _>(&entry.created_by)
            .bind::<Nullable<Text>, _>(entry.approved_by.as_deref())
            .bind::<BigInt, _>(micros(entry.created_at))
            .bind::<BigInt, _>(micros(entry.expires_at))
            .bind::<Nullable<BigInt>, _>(entry.revoked_at.map(micros))
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn approve_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
        approver: &str,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let (tenant_id, id, approver) = (tenant.to_string(), id.to_string(), approver.to_owned());
        self.write(move |conn| {
            // Four eyes in the statement itself: only a waiting entry made by someone else.
            let n = diesel::sql_query(
                "UPDATE screening_whitelist_entries SET approved_by = ?1 \
                 WHERE tenant_id = ?2 AND whitelist_entry_id = ?3 AND approved_by IS NULL \
                   AND revoked_at IS NULL AND created_by <> ?1",
            )
            .bind::<Text, _>(&approver)
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            if n == 0 {
                return Ok(None);
            }
            whitelist_entry_of(conn, &tenant_id, &id)
        })
        .await
    }

    async fn revoke_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
        at: DateTime<Utc>,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE screening_whitelist_entries SET revoked_at = ? \
                 WHERE tenant_id = ? AND whitelist_entry_id = ? AND revoked_at IS NULL",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            if n == 0 {
                return Ok(None);
            }
            whitelist_entry_of(conn, &tenant_id, &id)
        })
        .await
    }

    async fn whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| whitelist_entry_of(conn, &tenant_id, &id))
            .await
    }

    async fn whitelist(&self, tenant: &TenantId) -> Result<Vec<WhitelistEntry>, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            let rows: Vec<WhitelistRow> = diesel::sql_query(format!(
                "SELECT {WHITELIST_COLUMNS} FROM screening_whitelist_entries WHERE tenant_id = ? \
                 ORDER BY created_at DESC, whitelist_entry_id DESC"
            ))
            .bind::<Text, _>(&tenant_id)
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(WhitelistRow::entry)
                .collect::<Result<_, _>>()?)
        })
        .await
    }
}

/// A whitelist entry by id, as the port answers it.
fn whitelist_entry_of(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<Option<WhitelistEntry>, TxError> {
    Ok(whitelist_row(conn, tenant_id, id)?
        .map(WhitelistRow::entry)
        .transpose()?)
}

/// An override version by id, as the port answers it.
fn override_version_of(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<Option<OverrideVersion>, TxError> {
    Ok(override_row(conn, tenant_id, id)?
        .map(OverrideRow::version)
        .transpose()?)
}
