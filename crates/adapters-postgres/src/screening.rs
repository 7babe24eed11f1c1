//! `ScreeningStore` on PostgreSQL: the service's policy versions, tenants' override versions
//! and whitelists, and the append-only checks.
//!
//! - One active policy version and one active override version per tenant are partial unique
//!   indexes; publishing a policy locks the table against other writers, and every move of a
//!   tenant's override versions locks the tenant's row, so concurrent activations queue and
//!   each retires the one before it.
//! - A check's row is never updated or deleted: a trigger refuses both. Its candidates are one
//!   `jsonb` document in the shapes below (private to storage); scores are kept there as the
//!   shortest decimal text that reads back to the same `f64` (a JSON number would go through
//!   serde_json's float parsing, which is not correctly rounded without a workspace feature).
//! - Thresholds and weights are `double precision` columns, read back bit for bit.
//! - Every tenant-owned query names the tenant.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::events::append_within;
use crate::schema::{
    events, screening_checks, screening_override_versions, screening_policy_versions,
    screening_whitelist_entries, subscriptions, tenants,
};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::max;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
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

type PolicyRow = (
    String,
    i32,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    String,
    DateTime<Utc>,
    bool,
    bool,
    i32,
);

macro_rules! policy_columns {
    () => {
        (
            screening_policy_versions::policy_version_id,
            screening_policy_versions::version,
            screening_policy_versions::review,
            screening_policy_versions::hit,
            screening_policy_versions::birth_date_exact,
            screening_policy_versions::birth_date_partial,
            screening_policy_versions::birth_date_mismatch,
            screening_policy_versions::nationality_match,
            screening_policy_versions::nationality_mismatch,
            screening_policy_versions::country_match,
            screening_policy_versions::weak_alias,
            screening_policy_versions::created_by,
            screening_policy_versions::created_at,
            screening_policy_versions::active,
            screening_policy_versions::peps_screened,
            screening_policy_versions::pep_after_office_months,
        )
    };
}

type OverrideRow = (
    String,
    String,
    i32,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    String,
    Option<String>,
    String,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
    Option<bool>,
    Option<i32>,
);

macro_rules! override_columns {
    () => {
        (
            screening_override_versions::tenant_id,
            screening_override_versions::override_version_id,
            screening_override_versions::version,
            screening_override_versions::review,
            screening_override_versions::hit,
            screening_override_versions::birth_date_exact,
            screening_override_versions::birth_date_partial,
            screening_override_versions::birth_date_mismatch,
            screening_override_versions::nationality_match,
            screening_override_versions::nationality_mismatch,
            screening_override_versions::country_match,
            screening_override_versions::weak_alias,
            screening_override_versions::proposed_by,
            screening_override_versions::approved_by,
            screening_override_versions::status,
            screening_override_versions::effective_from,
            screening_override_versions::created_at,
            screening_override_versions::peps_screened,
            screening_override_versions::pep_after_office_months,
        )
    };
}

type WhitelistRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    String,
    String,
    String,
    String,
    Option<String>,
    DateTime<Utc>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
);

macro_rules! whitelist_columns {
    () => {
        (
            screening_whitelist_entries::tenant_id,
            screening_whitelist_entries::whitelist_entry_id,
            screening_whitelist_entries::subject_id,
            screening_whitelist_entries::input_hash,
            screening_whitelist_entries::source,
            screening_whitelist_entries::source_entry_id,
            screening_whitelist_entries::reason,
            screening_whitelist_entries::created_by,
            screening_whitelist_entries::approved_by,
            screening_whitelist_entries::created_at,
            screening_whitelist_entries::expires_at,
            screening_whitelist_entries::revoked_at,
        )
    };
}

type CheckRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
    Vec<u8>,
    bool,
    bool,
    Option<String>,
    bool,
    String,
    String,
    Option<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    String,
    DateTime<Utc>,
    serde_json::Value,
    Vec<String>,
);

/// A check's subject as read: its canonical id now (a merge since the check followed one
/// hop; the row itself is append-only and keeps the id it was made under), and the ids
/// merged into it.
const CHECK_SUBJECT: &str = "COALESCE((SELECT m.merged_into FROM subjects m \
     WHERE m.tenant_id = screening_checks.tenant_id \
       AND m.subject_id = screening_checks.subject_id), screening_checks.subject_id)";
const CHECK_SUBJECT_ALIASES: &str = "ARRAY(SELECT a.subject_id FROM subjects a \
     WHERE a.tenant_id = screening_checks.tenant_id AND a.merged_into = COALESCE(( \
       SELECT m.merged_into FROM subjects m WHERE m.tenant_id = screening_checks.tenant_id \
         AND m.subject_id = screening_checks.subject_id), screening_checks.subject_id) \
     ORDER BY a.subject_id)";

macro_rules! check_columns {
    () => {
        (
            screening_checks::tenant_id,
            screening_checks::check_id,
            screening_checks::grant_id,
            diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::Text>>(CHECK_SUBJECT),
            screening_checks::visibility,
            screening_checks::input_kind,
            screening_checks::sealed_input,
            screening_checks::has_identifier,
            screening_checks::person_fields_masked,
            screening_checks::input_hash,
            screening_checks::input_verified,
            screening_checks::band,
            screening_checks::policy_version_id,
            screening_checks::tenant_override_version_id,
            screening_checks::source_version_ids,
            screening_checks::degraded_sources,
            screening_checks::truncated_datasets,
            screening_checks::matcher_version,
            screening_checks::checked_at,
            screening_checks::candidates,
            diesel::dsl::sql::<diesel::sql_types::Array<diesel::sql_types::Text>>(
                CHECK_SUBJECT_ALIASES,
            ),
        )
    };
}

fn months(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt("after-office months"))
}

fn version_number(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt("version number"))
}

fn policy_of(r: PolicyRow) -> Result<PolicyVersion, StoreError> {
    Ok(PolicyVersion {
        id: parse_id(&r.0, "policy version id")?,
        version: version_number(r.1)?,
        config: PolicyConfig {
            review: r.2,
            hit: r.3,
            weights: Weights {
                birth_date_exact: r.4,
                birth_date_partial: r.5,
                birth_date_mismatch: r.6,
                nationality_match: r.7,
                nationality_mismatch: r.8,
                country_match: r.9,
                weak_alias: r.10,
            },
            peps: PepPolicy {
                screened: r.14,
                after_office_months: months(r.15)?,
            },
        },
        created_by: r.11,
        created_at: r.12,
        active: r.13,
    })
}

fn override_of(r: OverrideRow) -> Result<OverrideVersion, StoreError> {
    let thresholds = match (r.3, r.4) {
        (Some(review), Some(hit)) => Some((review, hit)),
        (None, None) => None,
        _ => return Err(corrupt("override thresholds")),
    };
    Ok(OverrideVersion {
        tenant_id: parse_id(&r.0, "tenant id")?,
        id: parse_id(&r.1, "override version id")?,
        version: version_number(r.2)?,
        config: OverrideConfig {
            thresholds,
            weights: WeightOverrides {
                birth_date_exact: r.5,
                birth_date_partial: r.6,
                birth_date_mismatch: r.7,
                nationality_match: r.8,
                nationality_mismatch: r.9,
                country_match: r.10,
                weak_alias: r.11,
            },
            peps_screened: r.17,
            pep_after_office_months: r.18.map(months).transpose()?,
        },
        proposed_by: r.12,
        approved_by: r.13,
        status: OverrideStatus::parse(&r.14).ok_or_else(|| corrupt("override status"))?,
        effective_from: r.15,
        created_at: r.16,
    })
}

fn whitelist_of(r: WhitelistRow) -> Result<WhitelistEntry, StoreError> {
    Ok(WhitelistEntry {
        tenant_id: parse_id(&r.0, "tenant id")?,
        id: parse_id(&r.1, "whitelist entry id")?,
        subject_id: r
            .2
            .as_deref()
            .map(|s| parse_id(s, "subject id"))
            .transpose()?,
        input_hash: r.3,
        source: ListSource::parse(&r.4).ok_or_else(|| corrupt("list source"))?,
        source_entry_id: r.5,
        reason: r.6,
        created_by: r.7,
        approved_by: r.8,
        created_at: r.9,
        expires_at: r.10,
        revoked_at: r.11,
    })
}

fn check_of(r: CheckRow) -> Result<StoredCheck, StoreError> {
    let candidates: Vec<StoredCandidate> =
        serde_json::from_value(r.19).map_err(|_| corrupt("check candidates"))?;
    Ok(StoredCheck {
        tenant_id: parse_id(&r.0, "tenant id")?,
        id: parse_id(&r.1, "screening check id")?,
        // No grant: the service's own check (ongoing screening).
        grant_id: r
            .2
            .as_deref()
            .map_or(Ok(GrantId::MONITORING), |g| parse_id(g, "grant id"))?,
        subject_id: r
            .3
            .as_deref()
            .map(|s| parse_id(s, "subject id"))
            .transpose()?,
        aliases: r
            .20
            .iter()
            .map(|a| parse_id(a, "subject id"))
            .collect::<Result<_, _>>()?,
        visibility: r
            .4
            .as_deref()
            .map(|c| Country::from_code(c).ok_or_else(|| corrupt("country")))
            .transpose()?,
        input_kind: InputKind::parse(&r.5).ok_or_else(|| corrupt("input kind"))?,
        sealed_input: SealedCheckInput(r.6),
        has_identifier: r.7,
        person_fields_masked: r.8,
        input_hash: r.9,
        input_verified: r.10,
        band: Band::parse(&r.11).ok_or_else(|| corrupt("band"))?,
        policy_version_id: parse_id(&r.12, "policy version id")?,
        tenant_override_version_id: r
            .13
            .as_deref()
            .map(|s| parse_id(s, "override version id"))
            .transpose()?,
        source_version_ids: r
            .14
            .iter()
            .map(|s| parse_id(s, "source version id"))
            .collect::<Result<_, _>>()?,
        degraded_sources: r.15,
        truncated_datasets: r.16,
        matcher_version: r.17,
        checked_at: r.18,
        candidates: candidates
            .into_iter()
            .map(StoredCandidate::into_domain)
            .collect::<Result<_, _>>()?,
    })
}

// --- the candidates document (private to storage) ---

/// Locks the tenant's row for the rest of the transaction (not against foreign-key checks),
/// so one tenant's override versions are numbered and moved one transaction at a time.
/// `false` when there is no such tenant.
async fn lock_tenant(
    conn: &mut diesel_async::AsyncPgConnection,
    tenant_id: &str,
) -> Result<bool, TxError> {
    let found: Option<String> = tenants::table
        .find(tenant_id)
        .select(tenants::tenant_id)
        .for_no_key_update()
        .first(conn)
        .await
        .optional()?;
    Ok(found.is_some())
}

/// The check's candidates as stored.
fn candidates_json(check: &StoredCheck) -> Result<serde_json::Value, StoreError> {
    let candidates: Vec<StoredCandidate> = check
        .candidates
        .iter()
        .map(StoredCandidate::from_domain)
        .collect();
    serde_json::to_value(candidates).map_err(|e| StoreError::Backend(e.to_string()))
}

/// Appends a check on `conn` (inside the caller's transaction, when it holds one).
async fn insert_check_on(
    conn: &mut AsyncPgConnection,
    check: &StoredCheck,
    candidates: serde_json::Value,
) -> Result<(), diesel::result::Error> {
    let ids = |v: &[domain::ids::SourceVersionId]| -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    };
    diesel::insert_into(screening_checks::table)
        .values((
            screening_checks::tenant_id.eq(check.tenant_id.to_string()),
            screening_checks::check_id.eq(check.id.to_string()),
            screening_checks::grant_id
                .eq((check.grant_id != GrantId::MONITORING).then(|| check.grant_id.to_string())),
            screening_checks::subject_id.eq(check.subject_id.map(|s| s.to_string())),
            screening_checks::visibility.eq(check.visibility.map(|c| c.code())),
            screening_checks::input_kind.eq(check.input_kind.as_str()),
            screening_checks::sealed_input.eq(&check.sealed_input.0),
            screening_checks::has_identifier.eq(check.has_identifier),
            screening_checks::person_fields_masked.eq(check.person_fields_masked),
            screening_checks::input_hash.eq(&check.input_hash),
            screening_checks::input_verified.eq(check.input_verified),
            screening_checks::band.eq(check.band.as_str()),
            screening_checks::policy_version_id.eq(check.policy_version_id.to_string()),
            screening_checks::tenant_override_version_id
                .eq(check.tenant_override_version_id.map(|o| o.to_string())),
            screening_checks::source_version_ids.eq(ids(&check.source_version_ids)),
            screening_checks::degraded_sources.eq(&check.degraded_sources),
            screening_checks::truncated_datasets.eq(&check.truncated_datasets),
            screening_checks::matcher_version.eq(&check.matcher_version),
            screening_checks::checked_at.eq(check.checked_at),
            screening_checks::candidates.eq(candidates),
        ))
        .execute(conn)
        .await?;
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
        let mut conn = self.conn().await?;
        // One statement: the tenant's row joined to the active policy, its active override
        // and its whitelist entries in effect (one row per entry, or one row without any).
        let rows: Vec<(Option<PolicyRow>, Option<OverrideRow>, Option<WhitelistRow>)> =
            tenants::table
                .left_join(
                    screening_policy_versions::table.on(screening_policy_versions::active.eq(true)),
                )
                .left_join(
                    screening_override_versions::table.on(screening_override_versions::tenant_id
                        .eq(tenants::tenant_id)
                        .and(
                            screening_override_versions::status.eq(OverrideStatus::Active.as_str()),
                        )),
                )
                .left_join(
                    screening_whitelist_entries::table.on(screening_whitelist_entries::tenant_id
                        .eq(tenants::tenant_id)
                        .and(screening_whitelist_entries::approved_by.is_not_null())
                        .and(
                            screening_whitelist_entries::revoked_at
                                .is_null()
                                .or(screening_whitelist_entries::revoked_at.gt(at)),
                        )
                        .and(screening_whitelist_entries::expires_at.gt(at))),
                )
                .filter(tenants::tenant_id.eq(&tenant_id))
                .select((
                    policy_columns!().nullable(),
                    override_columns!().nullable(),
                    whitelist_columns!().nullable(),
                ))
                .order((
                    screening_whitelist_entries::created_at.desc(),
                    screening_whitelist_entries::whitelist_entry_id.desc(),
                ))
                .load(&mut conn)
                .await
                .map_err(backend)?;
        let mut context = ScreeningContext::default();
        for (i, (policy, override_version, entry)) in rows.into_iter().enumerate() {
            if i == 0 {
                context.policy = policy.map(policy_of).transpose()?;
                context.override_version = override_version.map(override_of).transpose()?;
            }
            if let Some(entry) = entry {
                context.whitelist.push(whitelist_of(entry)?);
            }
        }
        Ok(context)
    }

    async fn insert_check(&self, check: &StoredCheck) -> Result<(), StoreError> {
        let candidates = candidates_json(check)?;
        let mut conn = self.conn().await?;
        insert_check_on(&mut conn, check, candidates)
            .await
            .map_err(backend)
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
        let mut conn = self.conn().await?;
        let written = conn
            .transaction(async |conn| -> Result<Option<Vec<i64>>, TxError> {
                // The subscription's row lock orders this against an end or a suspension.
                let status: Option<String> = subscriptions::table
                    .find((&tenant_id, &id))
                    .select(subscriptions::status)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                if status.as_deref() != Some(SubscriptionStatus::Active.as_str()) {
                    return Ok(None);
                }
                let logged: Option<i64> = match events.first() {
                    Some(first) => events::table
                        .filter(events::tenant_id.eq(&tenant_id))
                        .filter(events::idempotency_key.eq(&first.idempotency_key))
                        .select(events::seq)
                        .first(conn)
                        .await
                        .optional()?,
                    None => None,
                };
                if logged.is_none() {
                    insert_check_on(conn, check, candidates).await?;
                }
                Ok(Some(append_within(conn, &tenant_id, events).await?))
            })
            .await?;
        Ok(written)
    }

    async fn check(
        &self,
        tenant: &TenantId,
        id: &ScreeningCheckId,
    ) -> Result<Option<StoredCheck>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<CheckRow> = screening_checks::table
            .find((tenant.to_string(), id.to_string()))
            .select(check_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(check_of).transpose()
    }

    async fn checks(
        &self,
        tenant: &TenantId,
        subject: Option<SubjectId>,
        countries: &CountrySet,
        limit: u32,
    ) -> Result<Vec<StoredCheck>, StoreError> {
        let codes: Vec<&str> = countries.iter().map(|c| c.code()).collect();
        let mut query = screening_checks::table
            .filter(screening_checks::tenant_id.eq(tenant.to_string()))
            .filter(
                screening_checks::visibility
                    .is_null()
                    .or(screening_checks::visibility.eq_any(codes)),
            )
            .select(check_columns!())
            .order((
                screening_checks::checked_at.desc(),
                screening_checks::check_id.desc(),
            ))
            .limit(i64::from(limit))
            .into_boxed();
        if let Some(subject) = subject {
            // The checks made under any id of the subject: its canonical id and every alias
            // (whichever of them was asked).
            let tenant_id = tenant.to_string();
            query = query.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "screening_checks.subject_id IN (SELECT g.subject_id FROM subjects g, \
                       (SELECT COALESCE(c.merged_into, c.subject_id) AS id FROM subjects c \
                        WHERE c.tenant_id = ",
                )
                .bind::<diesel::sql_types::Text, _>(tenant_id.clone())
                .sql(" AND c.subject_id = ")
                .bind::<diesel::sql_types::Text, _>(subject.to_string())
                .sql(") x WHERE g.tenant_id = ")
                .bind::<diesel::sql_types::Text, _>(tenant_id)
                .sql(" AND (g.subject_id = x.id OR g.merged_into = x.id))"),
            );
        }
        let mut conn = self.conn().await?;
        let rows: Vec<CheckRow> = query.load(&mut conn).await.map_err(backend)?;
        rows.into_iter().map(check_of).collect()
    }

    async fn publish_policy(
        &self,
        id: PolicyVersionId,
        config: &PolicyConfig,
        created_by: &str,
        at: DateTime<Utc>,
    ) -> Result<PolicyVersion, StoreError> {
        let w = &config.weights;
        let mut conn = self.conn().await?;
        let published = conn
            .transaction(async |conn| -> Result<PolicyVersion, TxError> {
                // Publishers queue here (readers do not): numbering and the switch of the
                // active version happen one publish at a time.
                diesel::sql_query(
                    "LOCK TABLE screening_policy_versions IN SHARE ROW EXCLUSIVE MODE",
                )
                .execute(conn)
                .await?;
                let newest: Option<i32> = screening_policy_versions::table
                    .select(max(screening_policy_versions::version))
                    .first(conn)
                    .await?;
                let version = newest.unwrap_or(0).checked_add(1).ok_or_else(|| {
                    TxError(StoreError::Backend("policy version out of range".into()))
                })?;
                diesel::update(
                    screening_policy_versions::table
                        .filter(screening_policy_versions::active.eq(true)),
                )
                .set(screening_policy_versions::active.eq(false))
                .execute(conn)
                .await?;
                let row: PolicyRow = diesel::insert_into(screening_policy_versions::table)
                    .values((
                        screening_policy_versions::policy_version_id.eq(id.to_string()),
                        screening_policy_versions::version.eq(version),
                        screening_policy_versions::review.eq(config.review),
                        screening_policy_versions::hit.eq(config.hit),
                        screening_policy_versions::birth_date_exact.eq(w.birth_date_exact),
                        screening_policy_versions::birth_date_partial.eq(w.birth_date_partial),
                        screening_policy_versions::birth_date_mismatch.eq(w.birth_date_mismatch),
                        screening_policy_versions::nationality_match.eq(w.nationality_match),
                        screening_policy_versions::nationality_mismatch.eq(w.nationality_mismatch),
                        screening_policy_versions::country_match.eq(w.country_match),
                        screening_policy_versions::weak_alias.eq(w.weak_alias),
                        screening_policy_versions::created_by.eq(created_by),
                        screening_policy_versions::created_at.eq(at),
                        screening_policy_versions::active.eq(true),
                        screening_policy_versions::peps_screened.eq(config.peps.screened),
                        screening_policy_versions::pep_after_office_months
                            .eq(i32::try_from(config.peps.after_office_months).unwrap_or(i32::MAX)),
                    ))
                    .returning(policy_columns!())
                    .get_result(conn)
                    .await?;
                Ok(policy_of(row)?)
            })
            .await?;
        Ok(published)
    }

    async fn retire_policy(
        &self,
        id: &PolicyVersionId,
    ) -> Result<Option<PolicyVersion>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<PolicyRow> =
            diesel::update(screening_policy_versions::table.find(id.to_string()))
                .set(screening_policy_versions::active.eq(false))
                .returning(policy_columns!())
                .get_result(&mut conn)
                .await
                .optional()
                .map_err(backend)?;
        row.map(policy_of).transpose()
    }

    async fn policies(&self) -> Result<Vec<PolicyVersion>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<PolicyRow> = screening_policy_versions::table
            .select(policy_columns!())
            .order(screening_policy_versions::version.desc())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(policy_of).collect()
    }

    async fn propose_override(
        &self,
        tenant: &TenantId,
        id: OverrideVersionId,
        config: &OverrideConfig,
        proposed_by: &str,
        at: DateTime<Utc>,
    ) -> Result<OverrideVersion, StoreError> {
        let tenant_id = tenant.to_string();
        let (review, hit) = config.thresholds.unzip();
        let w = &config.weights;
        let mut conn = self.conn().await?;
        let proposed = conn
            .transaction(async |conn| -> Result<OverrideVersion, TxError> {
                if !lock_tenant(conn, &tenant_id).await? {
                    return Err(TxError(StoreError::NotFound));
                }
                let newest: Option<i32> = screening_override_versions::table
                    .filter(screening_override_versions::tenant_id.eq(&tenant_id))
                    .select(max(screening_override_versions::version))
                    .first(conn)
                    .await?;
                let version = newest.unwrap_or(0).checked_add(1).ok_or_else(|| {
                    TxError(StoreError::Backend("override version out of range".into()))
                })?;
                let row: OverrideRow = diesel::insert_into(screening_override_versions::table)
                    .values((
                        screening_override_versions::tenant_id.eq(&tenant_id),
                        screening_override_versions::override_version_id.eq(id.to_string()),
                        screening_override_versions::version.eq(version),
                        screening_override_versions::review.eq(review),
                        screening_override_versions::hit.eq(hit),
                        screening_override_versions::birth_date_exact.eq(w.birth_date_exact),
                        screening_override_versions::birth_date_partial.eq(w.birth_date_partial),
                        screening_override_versions::birth_date_mismatch.eq(w.birth_date_mismatch),
                        screening_override_versions::nationality_match.eq(w.nationality_match),
                        screening_override_versions::nationality_mismatch
                            .eq(w.nationality_mismatch),
                        screening_override_versions::country_match.eq(w.country_match),
                        screening_override_versions::weak_alias.eq(w.weak_alias),
                        screening_override_versions::proposed_by.eq(proposed_by),
                        screening_override_versions::approved_by.eq(None::<String>),
                        screening_override_versions::status.eq(OverrideStatus::Draft.as_str()),
                        screening_override_versions::effective_from.eq(None::<DateTime<Utc>>),
                        screening_override_versions::created_at.eq(at),
                        screening_override_versions::peps_screened.eq(config.peps_screened),
                        screening_override_versions::pep_after_office_months.eq(config
                            .pep_after_office_months
                            .map(|m| i32::try_from(m).unwrap_or(i32::MAX))),
                    ))
                    .returning(override_columns!())
                    .get_result(conn)
                    .await?;
                Ok(override_of(row)?)
            })
            .await?;
        Ok(proposed)
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
        let tenant_id = tenant.to_string();
        let id = id.to_string();
        let mut conn = self.conn().await?;
        let moved = conn
            .transaction(async |conn| -> Result<Option<OverrideVersion>, TxError> {
                // One move per tenant at a time: a second activation waits here, then sees
                // the first one's version active and retires it.
                if !lock_tenant(conn, &tenant_id).await? {
                    return Ok(None);
                }
                let current: Option<OverrideRow> = screening_override_versions::table
                    .find((&tenant_id, &id))
                    .select(override_columns!())
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some(current) = current else {
                    return Ok(None);
                };
                if current.14 != from.as_str() {
                    return Ok(None);
                }
                if to == OverrideStatus::Active {
                    diesel::update(
                        screening_override_versions::table
                            .filter(screening_override_versions::tenant_id.eq(&tenant_id))
                            .filter(
                                screening_override_versions::status
                                    .eq(OverrideStatus::Active.as_str()),
                            )
                            .filter(screening_override_versions::override_version_id.ne(&id)),
                    )
                    .set(screening_override_versions::status.eq(OverrideStatus::Retired.as_str()))
                    .execute(conn)
                    .await?;
                }
                let approved_by = approved_by.map(str::to_owned).or(current.13);
                let effective_from = if to == OverrideStatus::Active {
                    Some(at)
                } else {
                    current.15
                };
                let row: OverrideRow =
                    diesel::update(screening_override_versions::table.find((&tenant_id, &id)))
                        .set((
                            screening_override_versions::status.eq(to.as_str()),
                            screening_override_versions::approved_by.eq(approved_by),
                            screening_override_versions::effective_from.eq(effective_from),
                        ))
                        .returning(override_columns!())
                        .get_result(conn)
                        .await?;
                Ok(Some(override_of(row)?))
            })
            .await?;
        Ok(moved)
    }

    async fn override_version(
        &self,
        tenant: &TenantId,
        id: &OverrideVersionId,
    ) -> Result<Option<OverrideVersion>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<OverrideRow> = screening_override_versions::table
            .find((tenant.to_string(), id.to_string()))
            .select(override_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(override_of).transpose()
    }

    async fn overrides(&self, tenant: &TenantId) -> Result<Vec<OverrideVersion>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<OverrideRow> = screening_override_versions::table
            .filter(screening_override_versions::tenant_id.eq(tenant.to_string()))
            .select(override_columns!())
            .order(screening_override_versions::version.desc())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(override_of).collect()
    }

    async fn add_whitelist_entry(&self, entry: &WhitelistEntry) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(screening_whitelist_entries::table)
            .values((
                screening_whitelist_entries::tenant_id.eq(entry.tenant_id.to_string()),
                screening_whitelist_entries::whitelist_entry_id.eq(entry.id.to_string()),
                screening_whitelist_entries::subject_id.eq(entry.subject_id.map(|s| s.to_string())),
                screening_whitelist_entries::input_hash.eq(&entry.input_hash),
                screening_whitelist_entries::source.eq(entry.source.as_str()),
                screening_whitelist_entries::source_entry_id.eq(&entry.source_entry_id),
                screening_whitelist_entries::reason.eq(&entry.reason),
                screening_whitelist_entries::created_by.eq(&entry.created_by),
                screening_whitelist_entries::approved_by.eq(&entry.approved_by),
                screening_whitelist_entries::created_at.eq(entry.created_at),
                screening_whitelist_entries::expires_at.eq(entry.expires_at),
                screening_whitelist_entries::revoked_at.eq(entry.revoked_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn approve_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
        approver: &str,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let mut conn = self.conn().await?;
        // Four eyes in the statement itself: only a waiting entry made by someone else.
        let row: Option<WhitelistRow> = diesel::update(
            screening_whitelist_entries::table
                .find((tenant.to_string(), id.to_string()))
                .filter(screening_whitelist_entries::approved_by.is_null())
                .filter(screening_whitelist_entries::revoked_at.is_null())
                .filter(screening_whitelist_entries::created_by.ne(approver)),
        )
        .set(screening_whitelist_entries::approved_by.eq(approver))
        .returning(whitelist_columns!())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(whitelist_of).transpose()
    }

    async fn revoke_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
        at: DateTime<Utc>,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<WhitelistRow> = diesel::update(
            screening_whitelist_entries::table
                .find((tenant.to_string(), id.to_string()))
                .filter(screening_whitelist_entries::revoked_at.is_null()),
        )
        .set(screening_whitelist_entries::revoked_at.eq(at))
        .returning(whitelist_columns!())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(whitelist_of).transpose()
    }

    async fn whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &WhitelistEntryId,
    ) -> Result<Option<WhitelistEntry>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<WhitelistRow> = screening_whitelist_entries::table
            .find((tenant.to_string(), id.to_string()))
            .select(whitelist_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(whitelist_of).transpose()
    }

    async fn whitelist(&self, tenant: &TenantId) -> Result<Vec<WhitelistEntry>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<WhitelistRow> = screening_whitelist_entries::table
            .filter(screening_whitelist_entries::tenant_id.eq(tenant.to_string()))
            .select(whitelist_columns!())
            .order((
                screening_whitelist_entries::created_at.desc(),
                screening_whitelist_entries::whitelist_entry_id.desc(),
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(whitelist_of).collect()
    }
}
