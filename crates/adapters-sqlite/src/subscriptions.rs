//! `SubscriptionStore` on SQLite. Every change is written with its lifecycle event in one
//! write transaction; one unended subscription per subject and kind is the partial unique
//! index `subscriptions_one_unended`. The scheduler's claim is one write transaction too:
//! with the store's one write lock held, replicas sharing the file claim disjoint runs.

use crate::convert::{corrupt, list, micros, parse_id, time, TxError};
use crate::events::append_within;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::companies::paid::PaidData;
use domain::companies::profile::CompanyProfile;
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::ids::{SubjectId, SubscriptionId, TenantId};
use domain::monitoring::event::NewEvent;
use domain::monitoring::ports::SubscriptionStore;
use domain::monitoring::subscription::{
    ClaimedRun, KnownNames, KnownProfile, LegalBasis, MonitoringBaseline, RunOutcome, Subscription,
    SubscriptionFilter, SubscriptionKind, SubscriptionStatus, SuspensionReason,
};
use storage_codec::companies::{profile_from_json, profile_to_json};
use storage_codec::paid::{paid_from_json, paid_to_json};

/// A subscription's subject as read: its canonical id (one merge hop followed).
const CANONICAL: &str = "COALESCE((SELECT m.merged_into FROM subjects m \
     WHERE m.tenant_id = s.tenant_id AND m.subject_id = s.subject_id), s.subject_id)";

/// The columns of a subscription row, with its canonical subject and that subject's aliases
/// (a JSON array, in id order).
fn columns() -> String {
    format!(
        "s.tenant_id, s.subscription_id, {CANONICAL} AS subject_id, s.kind, s.legal_basis, \
         s.legal_basis_ref, s.status, s.check_days, s.full_refresh_days, s.country, \
         s.created_at, s.suspended_at, s.suspension_reason, s.ended_at, s.purge_after, \
         s.next_run_at, s.claimed_until, s.last_checked_at, s.last_full_refresh_at, \
         (SELECT json_group_array(subject_id) FROM (SELECT a.subject_id FROM subjects a \
           WHERE a.tenant_id = s.tenant_id AND a.merged_into = {CANONICAL} \
           ORDER BY a.subject_id)) AS aliases"
    )
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
    #[diesel(sql_type = Text)]
    subject_id: String,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    legal_basis: String,
    #[diesel(sql_type = Nullable<Text>)]
    legal_basis_ref: Option<String>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Integer)]
    check_days: i32,
    #[diesel(sql_type = Integer)]
    full_refresh_days: i32,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    suspended_at: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    suspension_reason: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    ended_at: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    purge_after: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    next_run_at: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    claimed_until: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_checked_at: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_full_refresh_at: Option<i64>,
    #[diesel(sql_type = Text)]
    aliases: String,
}

fn at(t: Option<i64>) -> Result<Option<DateTime<Utc>>, StoreError> {
    t.map(time).transpose()
}

impl Row {
    fn subscription(&self) -> Result<Subscription, StoreError> {
        let days = |d: i32| u32::try_from(d).map_err(|_| corrupt("cadence"));
        let aliases: Vec<String> =
            serde_json::from_str(&self.aliases).map_err(|_| corrupt("aliases"))?;
        Ok(Subscription {
            id: parse_id(&self.subscription_id, "subscription id")?,
            subject_id: parse_id(&self.subject_id, "subject id")?,
            kind: SubscriptionKind::parse(&self.kind)
                .ok_or_else(|| corrupt("subscription kind"))?,
            legal_basis: LegalBasis::parse(&self.legal_basis)
                .ok_or_else(|| corrupt("legal basis"))?,
            legal_basis_ref: self.legal_basis_ref.clone(),
            status: SubscriptionStatus::parse(&self.status)
                .ok_or_else(|| corrupt("subscription status"))?,
            check_days: days(self.check_days)?,
            full_refresh_days: days(self.full_refresh_days)?,
            country: Country::from_code(&self.country).ok_or_else(|| corrupt("country"))?,
            created_at: time(self.created_at)?,
            suspended_at: at(self.suspended_at)?,
            suspension_reason: self
                .suspension_reason
                .as_deref()
                .map(|s| SuspensionReason::parse(s).ok_or_else(|| corrupt("suspension reason")))
                .transpose()?,
            ended_at: at(self.ended_at)?,
            purge_after: at(self.purge_after)?,
            next_run_at: at(self.next_run_at)?,
            aliases: aliases
                .iter()
                .map(|a| parse_id(a, "subject id"))
                .collect::<Result<_, _>>()?,
        })
    }

    fn claimed(self) -> Result<ClaimedRun, StoreError> {
        Ok(ClaimedRun {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            due_at: at(self.next_run_at)?
                .ok_or_else(|| corrupt("a claimed run without a due time"))?,
            lease_until: at(self.claimed_until)?
                .ok_or_else(|| corrupt("a claimed run without its lease"))?,
            last_checked_at: at(self.last_checked_at)?,
            last_full_refresh_at: at(self.last_full_refresh_at)?,
            subscription: self.subscription()?,
        })
    }
}

fn cadence(d: u32) -> Result<i32, StoreError> {
    i32::try_from(d).map_err(|_| StoreError::Backend("cadence out of range".into()))
}

/// One subscription row by id.
fn row(conn: &mut SqliteConnection, tenant_id: &str, id: &str) -> Result<Option<Row>, TxError> {
    Ok(diesel::sql_query(format!(
        "SELECT {} FROM subscriptions s WHERE s.tenant_id = ? AND s.subscription_id = ?",
        columns()
    ))
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(id)
    .get_result(conn)
    .optional()?)
}

/// The subscriptions of one subject (under any of its ids) matching `more` (SQL over `s`).
fn of_subject(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    subject: &str,
    more: &str,
) -> Result<Vec<Row>, TxError> {
    Ok(diesel::sql_query(format!(
        "SELECT {} FROM subscriptions s WHERE s.tenant_id = ?1 AND s.subject_id IN {} \
           AND {more} ORDER BY s.created_at, s.subscription_id",
        columns(),
        // `?2` is any of the subject's ids: its canonical id or an alias.
        crate::subject_ids::ids_of_subject("?1", "?2")
    ))
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(subject)
    .load(conn)?)
}

/// The canonical id of a subject, a merge chain followed (inside the caller's write
/// transaction, so no merge can commit meanwhile).
fn canonical(conn: &mut SqliteConnection, tenant: &str, subject: &str) -> Result<String, TxError> {
    let mut current = subject.to_owned();
    for _ in 0..8 {
        let next = crate::subjects::canonical_of(conn, tenant, &current)?;
        if next == current {
            return Ok(current);
        }
        current = next;
    }
    Err(StoreError::Backend("subject merge chain does not end".into()).into())
}

fn unique_violation(e: &DieselError) -> bool {
    matches!(
        e,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)
    )
}

#[async_trait]
impl SubscriptionStore for Database {
    async fn create_subscription(
        &self,
        tenant: &TenantId,
        s: &Subscription,
        event: &NewEvent,
    ) -> Result<Subscription, StoreError> {
        let (tenant_id, s, event) = (tenant.to_string(), s.clone(), event.clone());
        let (check_days, full_refresh_days) =
            (cadence(s.check_days)?, cadence(s.full_refresh_days)?);
        self.write(move |conn| {
            let id = s.id.to_string();
            let subject_id = canonical(conn, &tenant_id, &s.subject_id.to_string())?;
            // Rows written before merges moved subscriptions may name an alias: the index
            // alone would not see them.
            let unended = of_subject(
                conn,
                &tenant_id,
                &subject_id,
                &format!("s.kind = '{}' AND s.status <> 'ended'", s.kind.as_str()),
            )?;
            if !unended.is_empty() {
                return Err(StoreError::SubscriptionExists.into());
            }
            let inserted = diesel::sql_query(
                "INSERT INTO subscriptions (tenant_id, subscription_id, subject_id, kind, \
                   legal_basis, legal_basis_ref, status, check_days, full_refresh_days, country, \
                   created_at, suspended_at, suspension_reason, ended_at, purge_after, next_run_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .bind::<Text, _>(&subject_id)
            .bind::<Text, _>(s.kind.as_str())
            .bind::<Text, _>(s.legal_basis.as_str())
            .bind::<Nullable<Text>, _>(s.legal_basis_ref.as_deref())
            .bind::<Text, _>(s.status.as_str())
            .bind::<Integer, _>(check_days)
            .bind::<Integer, _>(full_refresh_days)
            .bind::<Text, _>(s.country.code())
            .bind::<BigInt, _>(micros(s.created_at))
            .bind::<Nullable<BigInt>, _>(s.suspended_at.map(micros))
            .bind::<Nullable<Text>, _>(s.suspension_reason.map(|r| r.as_str()))
            .bind::<Nullable<BigInt>, _>(s.ended_at.map(micros))
            .bind::<Nullable<BigInt>, _>(s.purge_after.map(micros))
            .bind::<Nullable<BigInt>, _>(s.next_run_at.map(micros))
            .execute(conn);
            match inserted {
                Err(e) if unique_violation(&e) => {
                    return Err(StoreError::SubscriptionExists.into())
                }
                other => {
                    other?;
                }
            }
            let mut event = event;
            event.subject_id = Some(parse_id(&subject_id, "subject id")?);
            append_within(conn, &tenant_id, std::slice::from_ref(&event))?;
            let stored = row(conn, &tenant_id, &id)?.ok_or(StoreError::NotFound)?;
            Ok(stored.subscription()?)
        })
        .await
    }

    async fn unended_subscriptions(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
    ) -> Result<Vec<Subscription>, StoreError> {
        let (tenant_id, subject) = (tenant.to_string(), subject.to_string());
        self.read(move |conn| {
            let rows = of_subject(conn, &tenant_id, &subject, "s.status <> 'ended'")?;
            Ok(rows
                .iter()
                .map(Row::subscription)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn subscription(
        &self,
        tenant: &TenantId,
        id: &SubscriptionId,
    ) -> Result<Option<Subscription>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| {
            Ok(row(conn, &tenant_id, &id)?
                .map(|r| r.subscription())
                .transpose()?)
        })
        .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedRun>, StoreError> {
        self.write(move |conn| {
            let due: Vec<Key> = diesel::sql_query(
                "SELECT tenant_id, subscription_id FROM subscriptions \
                 WHERE status = 'active' AND next_run_at <= ?1 \
                   AND (claimed_until IS NULL OR claimed_until <= ?1) \
                 ORDER BY next_run_at LIMIT ?2",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(i64::from(limit))
            .load(conn)?;
            let mut claimed = Vec::with_capacity(due.len());
            for key in due {
                diesel::sql_query(
                    "UPDATE subscriptions SET claimed_until = ? \
                     WHERE tenant_id = ? AND subscription_id = ?",
                )
                .bind::<BigInt, _>(micros(lease_until))
                .bind::<Text, _>(&key.tenant_id)
                .bind::<Text, _>(&key.subscription_id)
                .execute(conn)?;
                if let Some(r) = row(conn, &key.tenant_id, &key.subscription_id)? {
                    claimed.push(r.claimed()?);
                }
            }
            Ok(claimed)
        })
        .await
    }

    async fn complete_run(
        &self,
        run: &ClaimedRun,
        outcome: &RunOutcome,
    ) -> Result<bool, StoreError> {
        let (tenant_id, id) = (run.tenant_id.to_string(), run.subscription.id.to_string());
        let (lease, outcome) = (micros(run.lease_until), outcome.clone());
        self.write(move |conn| {
            // A run date this run did not set keeps its stored value.
            let changed = diesel::sql_query(
                "UPDATE subscriptions SET next_run_at = ?, claimed_until = NULL, \
                   last_checked_at = COALESCE(?, last_checked_at), \
                   last_full_refresh_at = COALESCE(?, last_full_refresh_at) \
                 WHERE tenant_id = ? AND subscription_id = ? AND status = 'active' \
                   AND claimed_until = ?",
            )
            .bind::<BigInt, _>(micros(outcome.next_run_at))
            .bind::<Nullable<BigInt>, _>(outcome.checked_at.map(micros))
            .bind::<Nullable<BigInt>, _>(outcome.full_refresh_at.map(micros))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(lease)
            .execute(conn)?;
            Ok(changed == 1)
        })
        .await
    }

    async fn transition_subscription(
        &self,
        tenant: &TenantId,
        expected: SubscriptionStatus,
        updated: &Subscription,
        event: &NewEvent,
    ) -> Result<bool, StoreError> {
        let (tenant_id, updated, event) = (tenant.to_string(), updated.clone(), event.clone());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE subscriptions SET status = ?, suspended_at = ?, suspension_reason = ?, \
                   next_run_at = ?, claimed_until = NULL \
                 WHERE tenant_id = ? AND subscription_id = ? AND status = ?",
            )
            .bind::<Text, _>(updated.status.as_str())
            .bind::<Nullable<BigInt>, _>(updated.suspended_at.map(micros))
            .bind::<Nullable<Text>, _>(updated.suspension_reason.map(|r| r.as_str()))
            .bind::<Nullable<BigInt>, _>(updated.next_run_at.map(micros))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(updated.id.to_string())
            .bind::<Text, _>(expected.as_str())
            .execute(conn)?;
            if n == 1 {
                append_within(conn, &tenant_id, std::slice::from_ref(&event))?;
            }
            Ok(n == 1)
        })
        .await
    }

    async fn baseline(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
    ) -> Result<MonitoringBaseline, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), subscription.to_string());
        self.read(move |conn| {
            let parts: Vec<Part> = diesel::sql_query(
                "SELECT part, reading FROM monitoring_baselines \
                 WHERE tenant_id = ? AND subscription_id = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .load(conn)?;
            let mut baseline = MonitoringBaseline::default();
            for part in parts {
                let value: serde_json::Value =
                    serde_json::from_str(&part.reading).map_err(|_| corrupt("baseline"))?;
                match part.part.as_str() {
                    "profile" => baseline.profile = Some(profile_from_json(value)?),
                    "officers" => match paid_from_json(value)? {
                        PaidData::Officers(o) => baseline.officers = Some(o),
                        _ => return Err(corrupt("baseline part").into()),
                    },
                    "owners" => match paid_from_json(value)? {
                        PaidData::BeneficialOwners(o) => baseline.owners = Some(o),
                        _ => return Err(corrupt("baseline part").into()),
                    },
                    _ => return Err(corrupt("baseline part").into()),
                }
            }
            Ok(baseline)
        })
        .await
    }

    async fn record_reading(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
        lease: Option<DateTime<Utc>>,
        reading: &MonitoringBaseline,
        events: &[NewEvent],
    ) -> Result<Option<Vec<i64>>, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), subscription.to_string());
        let parts = baseline_parts(reading)?;
        let events = events.to_vec();
        self.write(move |conn| {
            // Inside the write transaction nothing can end, suspend or take over the run
            // meanwhile: a reading of a subscription no longer active, or of a run whose lease
            // another replica has taken, writes nothing.
            let Some(current) = row(conn, &tenant_id, &id)? else {
                return Ok(None);
            };
            if current.status != SubscriptionStatus::Active.as_str()
                || lease.is_some_and(|l| current.claimed_until != Some(micros(l)))
            {
                return Ok(None);
            }
            for (part, value, taken_at) in &parts {
                diesel::sql_query(
                    "INSERT INTO monitoring_baselines (tenant_id, subscription_id, part, reading, \
                       taken_at) VALUES (?1, ?2, ?3, ?4, ?5) \
                     ON CONFLICT (tenant_id, subscription_id, part) \
                     DO UPDATE SET reading = ?4, taken_at = ?5",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&id)
                .bind::<Text, _>(*part)
                .bind::<Text, _>(value)
                .bind::<BigInt, _>(*taken_at)
                .execute(conn)?;
            }
            Ok(Some(append_within(conn, &tenant_id, &events)?))
        })
        .await
    }

    async fn purge_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, SubscriptionId)>, StoreError> {
        self.write(move |conn| {
            let due: Vec<Key> = diesel::sql_query(
                "SELECT tenant_id, subscription_id FROM subscriptions \
                 WHERE purge_after IS NOT NULL AND purged_at IS NULL AND purge_after <= ? \
                 ORDER BY purge_after LIMIT ?",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(i64::from(limit))
            .load(conn)?;
            let mut purged = Vec::with_capacity(due.len());
            for key in due {
                purge_one(conn, &key.tenant_id, &key.subscription_id, now)?;
                purged.push((
                    parse_id(&key.tenant_id, "tenant id")?,
                    parse_id(&key.subscription_id, "subscription id")?,
                ));
            }
            Ok(purged)
        })
        .await
    }

    async fn active_subscription(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
        kind: SubscriptionKind,
    ) -> Result<Option<Subscription>, StoreError> {
        let (tenant_id, subject) = (tenant.to_string(), subject.to_string());
        self.read(move |conn| {
            let rows = of_subject(
                conn,
                &tenant_id,
                &subject,
                &format!("s.kind = '{}' AND s.status = 'active'", kind.as_str()),
            )?;
            Ok(rows.first().map(Row::subscription).transpose()?)
        })
        .await
    }

    async fn known_names(
        &self,
        subscriptions: &[(TenantId, SubscriptionId)],
    ) -> Result<Vec<(TenantId, SubscriptionId, KnownNames)>, StoreError> {
        if subscriptions.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<(String, String)> = subscriptions
            .iter()
            .map(|(t, s)| (t.to_string(), s.to_string()))
            .collect();
        self.read(move |conn| {
            // The page's keys as a table; each subject's cached profiles by the
            // `company_profiles_subject` index; each baseline's parties, not its profile.
            let values = vec!["(?, ?)"; keys.len()].join(", ");
            let bound = |sql: String| {
                let mut q = diesel::sql_query(sql).into_boxed::<diesel::sqlite::Sqlite>();
                for (t, s) in &keys {
                    q = q.bind::<Text, _>(t.clone()).bind::<Text, _>(s.clone());
                }
                q
            };
            let profiles: Vec<KnownProfileRow> = bound(format!(
                "WITH k (tenant_id, subscription_id) AS (VALUES {values}) \
                 SELECT k.tenant_id, k.subscription_id, p.country, p.orgnr, \
                        json_extract(p.data, '$.name') AS name, p.fetched_at \
                 FROM k JOIN subscriptions s \
                   ON s.tenant_id = k.tenant_id AND s.subscription_id = k.subscription_id \
                 JOIN company_profiles p \
                   ON p.tenant_id = s.tenant_id AND p.subject_id = s.subject_id \
                 ORDER BY k.tenant_id, k.subscription_id, p.country, p.orgnr"
            ))
            .load(conn)?;
            let parts: Vec<KnownPartRow> = bound(format!(
                "WITH k (tenant_id, subscription_id) AS (VALUES {values}) \
                 SELECT b.tenant_id, b.subscription_id, b.part, b.reading \
                 FROM k JOIN monitoring_baselines b \
                   ON b.tenant_id = k.tenant_id AND b.subscription_id = k.subscription_id \
                 WHERE b.part IN ('officers', 'owners')"
            ))
            .load(conn)?;
            let mut known: std::collections::BTreeMap<(String, String), KnownNames> =
                std::collections::BTreeMap::new();
            for r in profiles {
                let profile = KnownProfile {
                    country: Country::from_code(&r.country).ok_or_else(|| corrupt("country"))?,
                    orgnr: r.orgnr,
                    name: r.name.ok_or_else(|| corrupt("profile name"))?,
                    fetched_at: time(r.fetched_at)?,
                };
                known
                    .entry((r.tenant_id, r.subscription_id))
                    .or_default()
                    .profiles
                    .push(profile);
            }
            for r in parts {
                let value: serde_json::Value =
                    serde_json::from_str(&r.reading).map_err(|_| corrupt("baseline"))?;
                let names = known.entry((r.tenant_id, r.subscription_id)).or_default();
                match (r.part.as_str(), paid_from_json(value)?) {
                    ("officers", PaidData::Officers(o)) => names.officers = Some(o),
                    ("owners", PaidData::BeneficialOwners(o)) => names.owners = Some(o),
                    _ => return Err(corrupt("baseline part").into()),
                }
            }
            known
                .into_iter()
                .map(|((t, s), names)| {
                    Ok((
                        parse_id(&t, "tenant id")?,
                        parse_id(&s, "subscription id")?,
                        names,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()
                .map_err(Into::into)
        })
        .await
    }

    async fn active_subscriptions_after(
        &self,
        after: Option<(TenantId, SubscriptionId)>,
        limit: u32,
    ) -> Result<Vec<(TenantId, Subscription)>, StoreError> {
        let (tenant, id) = match after {
            Some((t, s)) => (t.to_string(), s.to_string()),
            None => (String::new(), String::new()),
        };
        let limit = i64::from(limit);
        self.read(move |conn| {
            let rows: Vec<Row> = diesel::sql_query(format!(
                "SELECT {} FROM subscriptions s WHERE s.status = 'active' \
                   AND (s.tenant_id, s.subscription_id) > (?, ?) \
                 ORDER BY s.tenant_id, s.subscription_id LIMIT ?",
                columns()
            ))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(limit)
            .load(conn)?;
            Ok(rows
                .iter()
                .map(|r| Ok((parse_id(&r.tenant_id, "tenant id")?, r.subscription()?)))
                .collect::<Result<_, StoreError>>()?)
        })
        .await
    }

    async fn subscriptions(
        &self,
        tenant: &TenantId,
        filter: &SubscriptionFilter,
    ) -> Result<Vec<Subscription>, StoreError> {
        let tenant_id = tenant.to_string();
        let kinds = list(filter.kinds.iter().map(|k| k.as_str()));
        let status = filter.status.map(|s| s.as_str());
        let limit = i64::from(filter.limit);
        self.read(move |conn| {
            let rows: Vec<Row> = diesel::sql_query(format!(
                "SELECT {} FROM subscriptions s WHERE s.tenant_id = ? \
                   AND s.kind IN (SELECT value FROM json_each(?)) \
                   AND (? IS NULL OR s.status = ?) \
                 ORDER BY s.created_at DESC, s.subscription_id DESC LIMIT ?",
                columns()
            ))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&kinds)
            .bind::<Nullable<Text>, _>(status)
            .bind::<Nullable<Text>, _>(status)
            .bind::<BigInt, _>(limit)
            .load(conn)?;
            Ok(rows
                .iter()
                .map(Row::subscription)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn end_subscription(
        &self,
        tenant: &TenantId,
        ended: &Subscription,
        event: &NewEvent,
    ) -> Result<Option<(Subscription, bool)>, StoreError> {
        let (tenant_id, ended, event) = (tenant.to_string(), ended.clone(), event.clone());
        self.write(move |conn| {
            let id = ended.id.to_string();
            // Only an unended one changes; the write lock orders racing ends.
            let n = diesel::sql_query(
                "UPDATE subscriptions SET status = 'ended', ended_at = ?, purge_after = ?, \
                   next_run_at = NULL \
                 WHERE tenant_id = ? AND subscription_id = ? AND status <> 'ended'",
            )
            .bind::<Nullable<BigInt>, _>(ended.ended_at.map(micros))
            .bind::<Nullable<BigInt>, _>(ended.purge_after.map(micros))
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            if n == 1 {
                append_within(conn, &tenant_id, std::slice::from_ref(&event))?;
            }
            let current = row(conn, &tenant_id, &id)?;
            Ok(current
                .map(|r| r.subscription())
                .transpose()?
                .map(|s| (s, n == 1)))
        })
        .await
    }
}

#[derive(QueryableByName)]
struct Key {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
}

#[derive(QueryableByName)]
struct Part {
    #[diesel(sql_type = Text)]
    part: String,
    #[diesel(sql_type = Text)]
    reading: String,
}

#[derive(QueryableByName)]
struct KnownProfileRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = Text)]
    orgnr: String,
    #[diesel(sql_type = Nullable<Text>)]
    name: Option<String>,
    #[diesel(sql_type = BigInt)]
    fetched_at: i64,
}

#[derive(QueryableByName)]
struct KnownPartRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
    #[diesel(sql_type = Text)]
    part: String,
    #[diesel(sql_type = Text)]
    reading: String,
}

/// A reading's parts as stored: each part's JSON text and when it was taken.
fn baseline_parts(
    reading: &MonitoringBaseline,
) -> Result<Vec<(&'static str, String, i64)>, StoreError> {
    let taken_at = reading
        .profile
        .as_ref()
        .map_or_else(Utc::now, |p: &CompanyProfile| p.fetched_at);
    let mut parts = Vec::new();
    if let Some(p) = &reading.profile {
        parts.push((
            "profile",
            profile_to_json(p)?.to_string(),
            micros(p.fetched_at),
        ));
    }
    if let Some(o) = &reading.officers {
        parts.push((
            "officers",
            paid_to_json(&PaidData::Officers(o.clone()))?.to_string(),
            micros(taken_at),
        ));
    }
    if let Some(o) = &reading.owners {
        parts.push((
            "owners",
            paid_to_json(&PaidData::BeneficialOwners(o.clone()))?.to_string(),
            micros(taken_at),
        ));
    }
    Ok(parts)
}

/// Purges one ended subscription past its retention, inside the caller's write transaction:
/// its events keep their envelope with `data` `{"purged":true}` (`seq` untouched, so cursors
/// hold); its baseline goes; and the tenant's cached registry data of the subject (under any
/// of its ids) goes too, unless another subscription of the subject that is not purged still
/// needs it.
fn purge_one(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    subscription_id: &str,
    now: DateTime<Utc>,
) -> Result<(), TxError> {
    diesel::sql_query(
        "UPDATE events SET data = '{\"purged\":true}' WHERE tenant_id = ? AND subscription_id = ?",
    )
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(subscription_id)
    .execute(conn)?;
    diesel::sql_query(
        "DELETE FROM monitoring_baselines WHERE tenant_id = ? AND subscription_id = ?",
    )
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(subscription_id)
    .execute(conn)?;
    // The subject's ids: its canonical id and every id merged into it.
    const SUBJECT_IDS: &str = "( \
        SELECT a.subject_id FROM subjects a, subjects s \
        JOIN subscriptions sub ON sub.tenant_id = s.tenant_id AND sub.subject_id = s.subject_id \
        WHERE sub.tenant_id = ?1 AND sub.subscription_id = ?2 AND a.tenant_id = ?1 \
          AND COALESCE(a.merged_into, a.subject_id) = COALESCE(s.merged_into, s.subject_id) \
          AND NOT EXISTS ( \
            SELECT 1 FROM subscriptions o JOIN subjects os \
              ON os.tenant_id = o.tenant_id AND os.subject_id = o.subject_id \
            WHERE o.tenant_id = ?1 AND o.subscription_id <> ?2 AND o.purged_at IS NULL \
              AND COALESCE(os.merged_into, os.subject_id) = COALESCE(s.merged_into, s.subject_id)))";
    for table in ["company_profiles", "paid_objects", "person_profiles"] {
        diesel::sql_query(format!(
            "DELETE FROM {table} WHERE tenant_id = ?1 AND subject_id IN {SUBJECT_IDS}"
        ))
        .bind::<Text, _>(tenant_id)
        .bind::<Text, _>(subscription_id)
        .execute(conn)?;
    }
    diesel::sql_query(
        "UPDATE subscriptions SET purged_at = ? WHERE tenant_id = ? AND subscription_id = ?",
    )
    .bind::<BigInt, _>(micros(now))
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(subscription_id)
    .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod plans {
    /// A subscription row's aliases (every row of a page re-screening reads) are sought by
    /// index, as `subject_ids`' are.
    #[test]
    fn a_subscription_rows_aliases_are_sought_never_walked() {
        let (_dir, mut conn) = crate::subject_ids::plans::migrated();
        crate::subject_ids::plans::assert_never_walks(
            &mut conn,
            &[format!(
                "SELECT {} FROM subscriptions s WHERE s.tenant_id = ?1 AND s.subscription_id = ?2",
                super::columns()
            )],
        );
    }
}
