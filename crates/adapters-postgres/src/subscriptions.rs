//! `SubscriptionStore` on PostgreSQL. Every change is written with its lifecycle event in one
//! transaction; one unended subscription per subject and kind is the partial unique index
//! `subscriptions_one_unended`, so of concurrent creates one wins.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::events::append_within;
use crate::schema::{monitoring_baselines, subscriptions};
use crate::statements::ClaimDue;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bool, Int4, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::companies::paid::PaidData;
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::ids::{SubscriptionId, TenantId};
use domain::monitoring::event::NewEvent;
use domain::monitoring::ports::SubscriptionStore;
use domain::monitoring::subscription::{
    ClaimedRun, KnownNames, KnownProfile, LegalBasis, MonitoringBaseline, RunOutcome, Subscription,
    SubscriptionFilter, SubscriptionKind, SubscriptionStatus, SuspensionReason,
};
use storage_codec::companies::{profile_from_json, profile_to_json};
use storage_codec::paid::{paid_from_json, paid_to_json};

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
    #[diesel(sql_type = Timestamptz)]
    fetched_at: DateTime<Utc>,
}

#[derive(QueryableByName)]
struct KnownPartRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
    #[diesel(sql_type = Text)]
    part: String,
    #[diesel(sql_type = diesel::sql_types::Jsonb)]
    reading: serde_json::Value,
}

type Row = (
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    i32,
    i32,
    String,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Vec<String>,
);

/// A subscription's subject as read: its canonical id (one merge hop followed; a merge moves
/// subscriptions, so this is the stored id but for rows written before that), and the ids
/// merged into it.
const CANONICAL_SUBJECT: &str = "COALESCE((SELECT m.merged_into FROM subjects m \
     WHERE m.tenant_id = subscriptions.tenant_id AND m.subject_id = subscriptions.subject_id), \
     subscriptions.subject_id)";
const SUBJECT_ALIASES: &str = "ARRAY(SELECT a.subject_id FROM subjects a \
     WHERE a.tenant_id = subscriptions.tenant_id AND a.merged_into = COALESCE(( \
       SELECT m.merged_into FROM subjects m \
       WHERE m.tenant_id = subscriptions.tenant_id AND m.subject_id = subscriptions.subject_id), \
       subscriptions.subject_id) \
     ORDER BY a.subject_id)";

macro_rules! columns {
    () => {
        (
            subscriptions::subscription_id,
            diesel::dsl::sql::<Text>(CANONICAL_SUBJECT),
            subscriptions::kind,
            subscriptions::legal_basis,
            subscriptions::legal_basis_ref,
            subscriptions::status,
            subscriptions::check_days,
            subscriptions::full_refresh_days,
            subscriptions::country,
            subscriptions::created_at,
            subscriptions::suspended_at,
            subscriptions::suspension_reason,
            subscriptions::ended_at,
            subscriptions::purge_after,
            subscriptions::next_run_at,
            diesel::dsl::sql::<Array<Text>>(SUBJECT_ALIASES),
        )
    };
}

/// `subscriptions.subject_id` is one of the ids of `$subject` (its canonical id or an alias,
/// whichever of them `$subject` is), both `&str`. (A macro: the expression's type is spelt
/// by the compiler.)
macro_rules! of_subject {
    ($tenant:expr, $subject:expr) => {
        diesel::dsl::sql::<Bool>(
            "subscriptions.subject_id IN (SELECT g.subject_id FROM subjects g, \
               (SELECT COALESCE(c.merged_into, c.subject_id) AS id FROM subjects c \
                WHERE c.tenant_id = ",
        )
        .bind::<Text, _>($tenant.to_owned())
        .sql(" AND c.subject_id = ")
        .bind::<Text, _>($subject.to_owned())
        .sql(") x WHERE g.tenant_id = ")
        .bind::<Text, _>($tenant.to_owned())
        .sql(" AND (g.subject_id = x.id OR g.merged_into = x.id))")
    };
}

fn from_row(r: Row) -> Result<Subscription, StoreError> {
    let days = |d: i32| u32::try_from(d).map_err(|_| corrupt("cadence"));
    Ok(Subscription {
        id: parse_id(&r.0, "subscription id")?,
        subject_id: parse_id(&r.1, "subject id")?,
        kind: SubscriptionKind::parse(&r.2).ok_or_else(|| corrupt("subscription kind"))?,
        legal_basis: LegalBasis::parse(&r.3).ok_or_else(|| corrupt("legal basis"))?,
        legal_basis_ref: r.4,
        status: SubscriptionStatus::parse(&r.5).ok_or_else(|| corrupt("subscription status"))?,
        check_days: days(r.6)?,
        full_refresh_days: days(r.7)?,
        country: Country::from_code(&r.8).ok_or_else(|| corrupt("country"))?,
        created_at: r.9,
        suspended_at: r.10,
        suspension_reason: r
            .11
            .as_deref()
            .map(|s| SuspensionReason::parse(s).ok_or_else(|| corrupt("suspension reason")))
            .transpose()?,
        ended_at: r.12,
        purge_after: r.13,
        next_run_at: r.14,
        aliases: r
            .15
            .iter()
            .map(|a| parse_id(a, "subject id"))
            .collect::<Result<_, _>>()?,
    })
}

fn cadence(d: u32) -> Result<i32, StoreError> {
    i32::try_from(d).map_err(|_| StoreError::Backend("cadence out of range".into()))
}

#[async_trait]
impl SubscriptionStore for Database {
    async fn create_subscription(
        &self,
        tenant: &TenantId,
        s: &Subscription,
        event: &NewEvent,
    ) -> Result<Subscription, StoreError> {
        let tenant_id = tenant.to_string();
        let id = s.id.to_string();
        let (check_days, full_refresh_days) =
            (cadence(s.check_days)?, cadence(s.full_refresh_days)?);
        let mut conn = self.conn().await?;
        let stored = conn
            .transaction(async |conn| -> Result<Subscription, TxError> {
                let subject_id =
                    crate::subjects::lock_canonical(conn, &tenant_id, &s.subject_id.to_string())
                        .await?;
                // Rows written before merges moved subscriptions may name an alias: the
                // index alone would not see them.
                let unended: Option<String> = subscriptions::table
                    .filter(subscriptions::tenant_id.eq(&tenant_id))
                    .filter(of_subject!(tenant_id, subject_id))
                    .filter(subscriptions::kind.eq(s.kind.as_str()))
                    .filter(subscriptions::status.ne("ended"))
                    .select(subscriptions::subscription_id)
                    .first(conn)
                    .await
                    .optional()?;
                if unended.is_some() {
                    return Err(TxError(StoreError::SubscriptionExists));
                }
                let inserted = diesel::insert_into(subscriptions::table)
                    .values((
                        subscriptions::tenant_id.eq(&tenant_id),
                        subscriptions::subscription_id.eq(&id),
                        subscriptions::subject_id.eq(&subject_id),
                        subscriptions::kind.eq(s.kind.as_str()),
                        subscriptions::legal_basis.eq(s.legal_basis.as_str()),
                        subscriptions::legal_basis_ref.eq(s.legal_basis_ref.as_deref()),
                        subscriptions::status.eq(s.status.as_str()),
                        subscriptions::check_days.eq(check_days),
                        subscriptions::full_refresh_days.eq(full_refresh_days),
                        subscriptions::country.eq(s.country.code()),
                        subscriptions::created_at.eq(s.created_at),
                        subscriptions::suspended_at.eq(s.suspended_at),
                        subscriptions::suspension_reason
                            .eq(s.suspension_reason.map(|r| r.as_str())),
                        subscriptions::ended_at.eq(s.ended_at),
                        subscriptions::purge_after.eq(s.purge_after),
                        subscriptions::next_run_at.eq(s.next_run_at),
                    ))
                    .execute(conn)
                    .await;
                crate::convert::one_unended_per_subject(inserted)?;
                let mut event = event.clone();
                event.subject_id = Some(parse_id(&subject_id, "subject id")?);
                append_within(conn, &tenant_id, std::slice::from_ref(&event)).await?;
                let row: Row = subscriptions::table
                    .find((&tenant_id, &id))
                    .select(columns!())
                    .first(conn)
                    .await?;
                Ok(from_row(row)?)
            })
            .await?;
        Ok(stored)
    }

    async fn unended_subscriptions(
        &self,
        tenant: &TenantId,
        subject: &domain::ids::SubjectId,
    ) -> Result<Vec<Subscription>, StoreError> {
        let tenant_id = tenant.to_string();
        let mut conn = self.conn().await?;
        let rows: Vec<Row> = subscriptions::table
            .filter(subscriptions::tenant_id.eq(&tenant_id))
            .filter(of_subject!(tenant_id, subject.to_string()))
            .filter(subscriptions::status.ne("ended"))
            .order((subscriptions::created_at, subscriptions::subscription_id))
            .select(columns!())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(from_row).collect()
    }

    async fn subscription(
        &self,
        tenant: &TenantId,
        id: &SubscriptionId,
    ) -> Result<Option<Subscription>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<Row> = subscriptions::table
            .find((tenant.to_string(), id.to_string()))
            .select(columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(from_row).transpose()
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedRun>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<ClaimRow> = ClaimDue {
            now,
            lease_until,
            limit: i64::from(limit),
        }
        .load(&mut conn)
        .await
        .map_err(backend)?;
        rows.into_iter().map(ClaimRow::into_domain).collect()
    }

    async fn complete_run(
        &self,
        run: &ClaimedRun,
        outcome: &RunOutcome,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let target = subscriptions::table
            .find((run.tenant_id.to_string(), run.subscription.id.to_string()))
            .filter(subscriptions::status.eq(SubscriptionStatus::Active.as_str()))
            .filter(subscriptions::claimed_until.eq(run.lease_until));
        // A run date this run did not set keeps its stored value.
        let (checked, full) = (outcome.checked_at, outcome.full_refresh_at);
        let changed = diesel::update(target)
            .set((
                subscriptions::next_run_at.eq(Some(outcome.next_run_at)),
                subscriptions::claimed_until.eq(None::<DateTime<Utc>>),
                subscriptions::last_checked_at.eq(diesel::dsl::sql::<Nullable<Timestamptz>>(
                    "COALESCE(",
                )
                .bind::<Nullable<Timestamptz>, _>(checked)
                .sql(", last_checked_at)")),
                subscriptions::last_full_refresh_at.eq(diesel::dsl::sql::<Nullable<Timestamptz>>(
                    "COALESCE(",
                )
                .bind::<Nullable<Timestamptz>, _>(full)
                .sql(", last_full_refresh_at)")),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(changed == 1)
    }

    async fn transition_subscription(
        &self,
        tenant: &TenantId,
        expected: SubscriptionStatus,
        updated: &Subscription,
        event: &NewEvent,
    ) -> Result<bool, StoreError> {
        let tenant_id = tenant.to_string();
        let id = updated.id.to_string();
        let mut conn = self.conn().await?;
        let moved = conn
            .transaction(async |conn| -> Result<bool, TxError> {
                let n = diesel::update(
                    subscriptions::table
                        .find((&tenant_id, &id))
                        .filter(subscriptions::status.eq(expected.as_str())),
                )
                .set((
                    subscriptions::status.eq(updated.status.as_str()),
                    subscriptions::suspended_at.eq(updated.suspended_at),
                    subscriptions::suspension_reason
                        .eq(updated.suspension_reason.map(|r| r.as_str())),
                    subscriptions::next_run_at.eq(updated.next_run_at),
                    subscriptions::claimed_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
                if n == 1 {
                    append_within(conn, &tenant_id, std::slice::from_ref(event)).await?;
                }
                Ok(n == 1)
            })
            .await?;
        Ok(moved)
    }

    async fn baseline(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
    ) -> Result<MonitoringBaseline, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(String, serde_json::Value)> = monitoring_baselines::table
            .filter(monitoring_baselines::tenant_id.eq(tenant.to_string()))
            .filter(monitoring_baselines::subscription_id.eq(subscription.to_string()))
            .select((monitoring_baselines::part, monitoring_baselines::reading))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        let mut baseline = MonitoringBaseline::default();
        for (part, reading) in rows {
            match (part.as_str(), paid_or_profile(&part, reading)?) {
                ("profile", Reading::Profile(p)) => baseline.profile = Some(*p),
                ("officers", Reading::Paid(PaidData::Officers(o))) => baseline.officers = Some(o),
                ("owners", Reading::Paid(PaidData::BeneficialOwners(o))) => {
                    baseline.owners = Some(o);
                }
                _ => return Err(corrupt("baseline part")),
            }
        }
        Ok(baseline)
    }

    async fn record_reading(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
        lease: Option<DateTime<Utc>>,
        reading: &MonitoringBaseline,
        events: &[NewEvent],
    ) -> Result<Option<Vec<i64>>, StoreError> {
        let tenant_id = tenant.to_string();
        let id = subscription.to_string();
        let mut parts: Vec<(&str, serde_json::Value, DateTime<Utc>)> = Vec::new();
        if let Some(p) = &reading.profile {
            parts.push(("profile", profile_to_json(p)?, p.fetched_at));
        }
        let taken_at = reading
            .profile
            .as_ref()
            .map_or_else(Utc::now, |p| p.fetched_at);
        if let Some(o) = &reading.officers {
            parts.push((
                "officers",
                paid_to_json(&PaidData::Officers(o.clone()))?,
                taken_at,
            ));
        }
        if let Some(o) = &reading.owners {
            parts.push((
                "owners",
                paid_to_json(&PaidData::BeneficialOwners(o.clone()))?,
                taken_at,
            ));
        }
        let mut conn = self.conn().await?;
        let written = conn
            .transaction(async |conn| -> Result<Option<Vec<i64>>, TxError> {
                // The subscription's row lock orders this against an end, a suspension or a
                // takeover: a reading of a subscription that is no longer active, or of a run
                // whose lease another replica has taken, writes nothing.
                let row: Option<(String, Option<DateTime<Utc>>)> = subscriptions::table
                    .find((&tenant_id, &id))
                    .select((subscriptions::status, subscriptions::claimed_until))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some((status, claimed_until)) = row else {
                    return Ok(None);
                };
                if status != SubscriptionStatus::Active.as_str()
                    || lease.is_some_and(|l| claimed_until != Some(l))
                {
                    return Ok(None);
                }
                for (part, value, at) in &parts {
                    diesel::insert_into(monitoring_baselines::table)
                        .values((
                            monitoring_baselines::tenant_id.eq(&tenant_id),
                            monitoring_baselines::subscription_id.eq(&id),
                            monitoring_baselines::part.eq(part),
                            monitoring_baselines::reading.eq(value),
                            monitoring_baselines::taken_at.eq(at),
                        ))
                        .on_conflict((
                            monitoring_baselines::tenant_id,
                            monitoring_baselines::subscription_id,
                            monitoring_baselines::part,
                        ))
                        .do_update()
                        .set((
                            monitoring_baselines::reading.eq(value),
                            monitoring_baselines::taken_at.eq(at),
                        ))
                        .execute(conn)
                        .await?;
                }
                Ok(Some(append_within(conn, &tenant_id, events).await?))
            })
            .await?;
        Ok(written)
    }

    async fn purge_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, SubscriptionId)>, StoreError> {
        let mut conn = self.conn().await?;
        let purged = conn
            .transaction(async |conn| -> Result<Vec<(String, String)>, TxError> {
                let due: Vec<PurgeRow> = diesel::sql_query(
                    "SELECT tenant_id, subscription_id FROM subscriptions \
                     WHERE purge_after IS NOT NULL AND purged_at IS NULL AND purge_after <= $1 \
                     ORDER BY purge_after LIMIT $2 FOR UPDATE SKIP LOCKED",
                )
                .bind::<Timestamptz, _>(now)
                .bind::<diesel::sql_types::Int8, _>(i64::from(limit))
                .load(conn)
                .await?;
                for row in &due {
                    purge_one(conn, &row.tenant_id, &row.subscription_id, now).await?;
                }
                Ok(due
                    .into_iter()
                    .map(|r| (r.tenant_id, r.subscription_id))
                    .collect())
            })
            .await?;
        purged
            .into_iter()
            .map(|(t, s)| Ok((parse_id(&t, "tenant id")?, parse_id(&s, "subscription id")?)))
            .collect()
    }

    async fn active_subscription(
        &self,
        tenant: &TenantId,
        subject: &domain::ids::SubjectId,
        kind: SubscriptionKind,
    ) -> Result<Option<Subscription>, StoreError> {
        let tenant_id = tenant.to_string();
        let mut conn = self.conn().await?;
        let row: Option<Row> = subscriptions::table
            .filter(subscriptions::tenant_id.eq(&tenant_id))
            .filter(of_subject!(tenant_id, subject.to_string()))
            .filter(subscriptions::kind.eq(kind.as_str()))
            .filter(subscriptions::status.eq(SubscriptionStatus::Active.as_str()))
            .select(columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(from_row).transpose()
    }

    async fn known_names(
        &self,
        subscriptions: &[(TenantId, SubscriptionId)],
    ) -> Result<Vec<(TenantId, SubscriptionId, KnownNames)>, StoreError> {
        if subscriptions.is_empty() {
            return Ok(Vec::new());
        }
        let tenants: Vec<String> = subscriptions.iter().map(|(t, _)| t.to_string()).collect();
        let ids: Vec<String> = subscriptions.iter().map(|(_, s)| s.to_string()).collect();
        let mut conn = self.conn().await?;
        // The page's subscriptions, by their keys; each subject's cached profiles by the
        // `company_profiles_subject` index; each baseline's parties, not its profile.
        let profiles: Vec<KnownProfileRow> = diesel::sql_query(
            "SELECT k.tenant_id, k.subscription_id, p.country, p.orgnr, \
                    p.data->>'name' AS name, p.fetched_at \
             FROM unnest($1::text[], $2::text[]) AS k (tenant_id, subscription_id) \
             JOIN subscriptions s USING (tenant_id, subscription_id) \
             JOIN company_profiles p \
               ON p.tenant_id = s.tenant_id AND p.subject_id = s.subject_id \
             ORDER BY k.tenant_id, k.subscription_id, p.country, p.orgnr",
        )
        .bind::<Array<Text>, _>(&tenants)
        .bind::<Array<Text>, _>(&ids)
        .load(&mut conn)
        .await
        .map_err(backend)?;
        let parts: Vec<KnownPartRow> = diesel::sql_query(
            "SELECT b.tenant_id, b.subscription_id, b.part, b.reading \
             FROM unnest($1::text[], $2::text[]) AS k (tenant_id, subscription_id) \
             JOIN monitoring_baselines b USING (tenant_id, subscription_id) \
             WHERE b.part IN ('officers', 'owners')",
        )
        .bind::<Array<Text>, _>(&tenants)
        .bind::<Array<Text>, _>(&ids)
        .load(&mut conn)
        .await
        .map_err(backend)?;
        let mut known: std::collections::BTreeMap<(String, String), KnownNames> =
            std::collections::BTreeMap::new();
        for r in profiles {
            let profile = KnownProfile {
                country: Country::from_code(&r.country).ok_or_else(|| corrupt("country"))?,
                orgnr: r.orgnr,
                name: r.name.ok_or_else(|| corrupt("profile name"))?,
                fetched_at: r.fetched_at,
            };
            known
                .entry((r.tenant_id, r.subscription_id))
                .or_default()
                .profiles
                .push(profile);
        }
        for r in parts {
            let names = known.entry((r.tenant_id, r.subscription_id)).or_default();
            match (r.part.as_str(), paid_from_json(r.reading)?) {
                ("officers", PaidData::Officers(o)) => names.officers = Some(o),
                ("owners", PaidData::BeneficialOwners(o)) => names.owners = Some(o),
                _ => return Err(corrupt("baseline part")),
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
            .collect()
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
        let mut conn = self.conn().await?;
        let rows: Vec<(String, Row)> = subscriptions::table
            .filter(subscriptions::status.eq(SubscriptionStatus::Active.as_str()))
            .filter(
                diesel::dsl::sql::<Bool>(
                    "(subscriptions.tenant_id, subscriptions.subscription_id) > (",
                )
                .bind::<Text, _>(tenant)
                .sql(", ")
                .bind::<Text, _>(id)
                .sql(")"),
            )
            .select((subscriptions::tenant_id, columns!()))
            .order((subscriptions::tenant_id, subscriptions::subscription_id))
            .limit(i64::from(limit))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter()
            .map(|(t, r)| Ok((parse_id(&t, "tenant id")?, from_row(r)?)))
            .collect()
    }

    async fn subscriptions(
        &self,
        tenant: &TenantId,
        filter: &SubscriptionFilter,
    ) -> Result<Vec<Subscription>, StoreError> {
        let mut conn = self.conn().await?;
        let kinds: Vec<&str> = filter.kinds.iter().map(|k| k.as_str()).collect();
        let mut query = subscriptions::table
            .filter(subscriptions::tenant_id.eq(tenant.to_string()))
            .filter(subscriptions::kind.eq_any(kinds))
            .select(columns!())
            .order((
                subscriptions::created_at.desc(),
                subscriptions::subscription_id.desc(),
            ))
            .limit(i64::from(filter.limit))
            .into_boxed();
        if let Some(status) = filter.status {
            query = query.filter(subscriptions::status.eq(status.as_str()));
        }
        let rows: Vec<Row> = query.load(&mut conn).await.map_err(backend)?;
        rows.into_iter().map(from_row).collect()
    }

    async fn end_subscription(
        &self,
        tenant: &TenantId,
        ended: &Subscription,
        event: &NewEvent,
    ) -> Result<Option<(Subscription, bool)>, StoreError> {
        let tenant_id = tenant.to_string();
        let id = ended.id.to_string();
        let mut conn = self.conn().await?;
        let outcome = conn
            .transaction(
                async |conn| -> Result<Option<(Subscription, bool)>, TxError> {
                    // Only an unended one changes; the row lock orders racing ends.
                    let changed: Option<Row> = diesel::update(
                        subscriptions::table
                            .find((&tenant_id, &id))
                            .filter(subscriptions::status.ne("ended")),
                    )
                    .set((
                        subscriptions::status.eq("ended"),
                        subscriptions::ended_at.eq(ended.ended_at),
                        subscriptions::purge_after.eq(ended.purge_after),
                        subscriptions::next_run_at.eq(None::<DateTime<Utc>>),
                    ))
                    .returning(columns!())
                    .get_result(conn)
                    .await
                    .optional()?;
                    if let Some(row) = changed {
                        append_within(conn, &tenant_id, std::slice::from_ref(event)).await?;
                        return Ok(Some((from_row(row)?, true)));
                    }
                    let current: Option<Row> = subscriptions::table
                        .find((&tenant_id, &id))
                        .select(columns!())
                        .first(conn)
                        .await
                        .optional()?;
                    Ok(current.map(from_row).transpose()?.map(|s| (s, false)))
                },
            )
            .await?;
        Ok(outcome)
    }
}

/// A claimed row: the subscription with its tenant, its lease and run dates.
#[derive(QueryableByName)]
struct ClaimRow {
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
    #[diesel(sql_type = Int4)]
    check_days: i32,
    #[diesel(sql_type = Int4)]
    full_refresh_days: i32,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    suspended_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    suspension_reason: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    ended_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    purge_after: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    next_run_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    claimed_until: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_checked_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_full_refresh_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
}

impl ClaimRow {
    fn into_domain(self) -> Result<ClaimedRun, StoreError> {
        let due_at = self
            .next_run_at
            .ok_or_else(|| corrupt("a claimed run without a due time"))?;
        let lease_until = self
            .claimed_until
            .ok_or_else(|| corrupt("a claimed run without its lease"))?;
        let subscription = from_row((
            self.subscription_id,
            self.subject_id,
            self.kind,
            self.legal_basis,
            self.legal_basis_ref,
            self.status,
            self.check_days,
            self.full_refresh_days,
            self.country,
            self.created_at,
            self.suspended_at,
            self.suspension_reason,
            self.ended_at,
            self.purge_after,
            self.next_run_at,
            self.aliases,
        ))?;
        Ok(ClaimedRun {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            subscription,
            due_at,
            lease_until,
            last_checked_at: self.last_checked_at,
            last_full_refresh_at: self.last_full_refresh_at,
        })
    }
}

/// A baseline part as read back.
enum Reading {
    Profile(Box<domain::companies::profile::CompanyProfile>),
    Paid(PaidData),
}

fn paid_or_profile(part: &str, value: serde_json::Value) -> Result<Reading, StoreError> {
    if part == "profile" {
        Ok(Reading::Profile(Box::new(profile_from_json(value)?)))
    } else {
        Ok(Reading::Paid(paid_from_json(value)?))
    }
}

#[derive(QueryableByName)]
struct PurgeRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    subscription_id: String,
}

/// Purges one ended subscription past its retention, inside the caller's transaction: its
/// events keep their envelope with `data` `{"purged": true}` (`seq` untouched, so cursors
/// hold); its baseline goes; and the tenant's cached registry data of the subject (under any
/// of its ids) goes too, unless another subscription of the subject that is not purged still
/// needs it.
async fn purge_one(
    conn: &mut diesel_async::AsyncPgConnection,
    tenant_id: &str,
    subscription_id: &str,
    now: DateTime<Utc>,
) -> Result<(), TxError> {
    diesel::sql_query(
        "UPDATE events SET data = '{\"purged\": true}'::jsonb \
         WHERE tenant_id = $1 AND subscription_id = $2",
    )
    .bind::<Text, _>(tenant_id)
    .bind::<Text, _>(subscription_id)
    .execute(conn)
    .await?;
    diesel::delete(
        monitoring_baselines::table
            .filter(monitoring_baselines::tenant_id.eq(tenant_id))
            .filter(monitoring_baselines::subscription_id.eq(subscription_id)),
    )
    .execute(conn)
    .await?;
    // The subject's ids: its canonical id and every id merged into it.
    const SUBJECT_IDS: &str = "( \
        SELECT a.subject_id FROM subjects a, subjects s \
        JOIN subscriptions sub ON sub.tenant_id = s.tenant_id AND sub.subject_id = s.subject_id \
        WHERE sub.tenant_id = $1 AND sub.subscription_id = $2 AND a.tenant_id = $1 \
          AND COALESCE(a.merged_into, a.subject_id) = COALESCE(s.merged_into, s.subject_id) \
          AND NOT EXISTS ( \
            SELECT 1 FROM subscriptions o JOIN subjects os \
              ON os.tenant_id = o.tenant_id AND os.subject_id = o.subject_id \
            WHERE o.tenant_id = $1 AND o.subscription_id <> $2 AND o.purged_at IS NULL \
              AND COALESCE(os.merged_into, os.subject_id) = COALESCE(s.merged_into, s.subject_id)))";
    for table in ["company_profiles", "paid_objects", "person_profiles"] {
        diesel::sql_query(format!(
            "DELETE FROM {table} WHERE tenant_id = $1 AND subject_id IN {SUBJECT_IDS}"
        ))
        .bind::<Text, _>(tenant_id)
        .bind::<Text, _>(subscription_id)
        .execute(conn)
        .await?;
    }
    diesel::update(subscriptions::table.find((tenant_id, subscription_id)))
        .set(subscriptions::purged_at.eq(Some(now)))
        .execute(conn)
        .await?;
    Ok(())
}
