//! `PaidStore` on SQLite: the per-tenant cache of paid objects (officers, beneficial owners,
//! engagements) and the daily paid-call budget's counters. A spend is one write transaction:
//! the check against the cap and the count are one step no other write can come between.

use crate::companies::evidence_of;
use crate::convert::{corrupt, day, micros, time};
use crate::subjects::handle_of;
use crate::Database;
use async_trait::async_trait;
use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use domain::companies::budget::{BudgetUsage, Spend, Spender};
use domain::companies::paid::{CachedPaid, PaidKey, PaidObject};
use domain::companies::ports::PaidStore;
use domain::error::StoreError;
use domain::ids::{SubjectId, TenantId};
use storage_codec::paid::StoredPaid;

#[derive(QueryableByName)]
struct CachedRow {
    #[diesel(sql_type = Text)]
    subject_id: String,
    #[diesel(sql_type = Text)]
    data: String,
    #[diesel(sql_type = Text)]
    call_ref: String,
    #[diesel(sql_type = BigInt)]
    fetched_at: i64,
}

#[derive(QueryableByName)]
struct Usage {
    #[diesel(sql_type = BigInt)]
    used_on_demand: i64,
    #[diesel(sql_type = BigInt)]
    used_scheduled: i64,
}

#[derive(QueryableByName)]
struct DayUsage {
    #[diesel(sql_type = Text)]
    day: String,
    #[diesel(sql_type = BigInt)]
    used_on_demand: i64,
    #[diesel(sql_type = BigInt)]
    used_scheduled: i64,
}

#[async_trait]
impl PaidStore for Database {
    async fn cached_paid(
        &self,
        tenant: &TenantId,
        key: &PaidKey,
    ) -> Result<Option<CachedPaid>, StoreError> {
        let (tenant_id, key) = (tenant.to_string(), key.clone());
        self.read(move |conn| {
            let row: Option<CachedRow> = diesel::sql_query(
                "SELECT subject_id, data, call_ref, fetched_at FROM paid_objects \
                 WHERE tenant_id = ? AND kind = ? AND country = ? AND key = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(key.kind.as_str())
            .bind::<Text, _>(key.country.code())
            .bind::<Text, _>(&key.key)
            .get_result(conn)
            .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let stored: StoredPaid =
                serde_json::from_str(&row.data).map_err(|_| corrupt("paid object"))?;
            Ok(Some(CachedPaid {
                object: PaidObject {
                    country: key.country,
                    data: stored.into_domain()?,
                    evidence: evidence_of(conn, &tenant_id, &row.call_ref)?,
                    fetched_at: time(row.fetched_at)?,
                },
                subject: handle_of(conn, &tenant_id, &row.subject_id)?,
            }))
        })
        .await
    }

    async fn save_paid(
        &self,
        tenant: &TenantId,
        key: &PaidKey,
        subject: &SubjectId,
        object: &PaidObject,
    ) -> Result<(), StoreError> {
        if object.data.kind() != key.kind {
            return Err(StoreError::Backend(
                "a paid object saved under another kind's key".into(),
            ));
        }
        let data = serde_json::to_string(&StoredPaid::from_domain(&object.data))
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        let (tenant_id, key, subject_id) = (tenant.to_string(), key.clone(), subject.to_string());
        let (call_ref, fetched_at) = (object.evidence.call_ref.to_string(), object.fetched_at);
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO paid_objects (tenant_id, kind, country, key, subject_id, data, \
                   call_ref, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (tenant_id, kind, country, key) DO UPDATE SET \
                   subject_id = excluded.subject_id, data = excluded.data, \
                   call_ref = excluded.call_ref, fetched_at = excluded.fetched_at",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(key.kind.as_str())
            .bind::<Text, _>(key.country.code())
            .bind::<Text, _>(&key.key)
            .bind::<Text, _>(&subject_id)
            .bind::<Text, _>(&data)
            .bind::<Text, _>(&call_ref)
            .bind::<BigInt, _>(micros(fetched_at))
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn spend_budget(&self, tenant: &TenantId, spend: &Spend) -> Result<bool, StoreError> {
        if spend.units <= 0 {
            return Ok(true);
        }
        let (tenant_id, spend) = (tenant.to_string(), spend.clone());
        // The part's column is chosen by the spender, never by a value.
        let column = match spend.spender {
            Spender::OnDemand => "used_on_demand",
            Spender::Scheduled => "used_scheduled",
        };
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO paid_call_budget (tenant_id, day) VALUES (?, ?) ON CONFLICT DO NOTHING",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(spend.day))
            .execute(conn)?;
            let made = diesel::sql_query(format!(
                "UPDATE paid_call_budget SET {column} = {column} + ?1 \
                 WHERE tenant_id = ?2 AND day = ?3 AND {column} + ?1 <= ?4"
            ))
            .bind::<BigInt, _>(spend.units)
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(spend.day))
            .bind::<BigInt, _>(spend.cap)
            .execute(conn)?;
            Ok(made == 1)
        })
        .await
    }

    async fn budget_usage(
        &self,
        tenant: &TenantId,
        on: NaiveDate,
    ) -> Result<BudgetUsage, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            let row: Option<Usage> = diesel::sql_query(
                "SELECT used_on_demand, used_scheduled FROM paid_call_budget \
                 WHERE tenant_id = ? AND day = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(on))
            .get_result(conn)
            .optional()?;
            Ok(row
                .map(|u| BudgetUsage {
                    on_demand: u.used_on_demand,
                    scheduled: u.used_scheduled,
                })
                .unwrap_or_default())
        })
        .await
    }

    async fn budget_usage_between(
        &self,
        tenant: &TenantId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BudgetUsage)>, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            let rows: Vec<DayUsage> = diesel::sql_query(
                "SELECT day, used_on_demand, used_scheduled FROM paid_call_budget \
                 WHERE tenant_id = ? AND day BETWEEN ? AND ? ORDER BY day",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(first))
            .bind::<Text, _>(day(last))
            .load(conn)?;
            rows.into_iter()
                .map(|r| {
                    Ok((
                        crate::convert::parse_day(&r.day)?,
                        BudgetUsage {
                            on_demand: r.used_on_demand,
                            scheduled: r.used_scheduled,
                        },
                    ))
                })
                .collect()
        })
        .await
    }
}
