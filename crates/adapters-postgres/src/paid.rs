//! `PaidStore` on PostgreSQL: the per-tenant cache of paid objects (officers, beneficial
//! owners, engagements) and the daily paid-call budget's counters.

use crate::convert::{backend, corrupt, parse_id};
use crate::schema::{paid_call_budget, paid_objects};
use crate::statements::{CachedPaidObject, RawJsonb, SpendBudget};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Jsonb, Nullable, Text, Timestamptz};
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use domain::companies::budget::{BudgetUsage, Spend, Spender};
use domain::companies::paid::{CachedPaid, PaidKey, PaidObject};
use domain::companies::ports::PaidStore;
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{SubjectId, TenantId};
use domain::subjects::subject::SubjectHandle;
use storage_codec::paid::StoredPaid;

#[async_trait]
impl PaidStore for Database {
    async fn cached_paid(
        &self,
        tenant: &TenantId,
        key: &PaidKey,
    ) -> Result<Option<CachedPaid>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let row: Option<CachedPaidRow> = CachedPaidObject {
            tenant_id: &tenant_id,
            kind: key.kind.as_str(),
            country: key.country.code(),
            key: &key.key,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(|row| row.into_domain(key)).transpose()
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
        let mut conn = self.conn().await?;
        let data = serde_json::to_value(StoredPaid::from_domain(&object.data))
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        diesel::insert_into(paid_objects::table)
            .values((
                paid_objects::tenant_id.eq(tenant.to_string()),
                paid_objects::kind.eq(key.kind.as_str()),
                paid_objects::country.eq(key.country.code()),
                paid_objects::key.eq(&key.key),
                paid_objects::subject_id.eq(subject.to_string()),
                paid_objects::data.eq(&data),
                paid_objects::call_ref.eq(object.evidence.call_ref.to_string()),
                paid_objects::fetched_at.eq(object.fetched_at),
            ))
            .on_conflict((
                paid_objects::tenant_id,
                paid_objects::kind,
                paid_objects::country,
                paid_objects::key,
            ))
            .do_update()
            .set((
                paid_objects::subject_id.eq(excluded(paid_objects::subject_id)),
                paid_objects::data.eq(excluded(paid_objects::data)),
                paid_objects::call_ref.eq(excluded(paid_objects::call_ref)),
                paid_objects::fetched_at.eq(excluded(paid_objects::fetched_at)),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn spend_budget(&self, tenant: &TenantId, spend: &Spend) -> Result<bool, StoreError> {
        if spend.units <= 0 {
            return Ok(true);
        }
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let spent: Option<SpentRow> = match spend.spender {
            Spender::OnDemand => {
                SpendBudget::<false> {
                    tenant_id: &tenant_id,
                    day: spend.day,
                    units: spend.units,
                    cap: spend.cap,
                }
                .get_result(&mut conn)
                .await
            }
            Spender::Scheduled => {
                SpendBudget::<true> {
                    tenant_id: &tenant_id,
                    day: spend.day,
                    units: spend.units,
                    cap: spend.cap,
                }
                .get_result(&mut conn)
                .await
            }
        }
        .optional()
        .map_err(backend)?;
        Ok(spent.is_some())
    }

    async fn budget_usage(
        &self,
        tenant: &TenantId,
        day: NaiveDate,
    ) -> Result<BudgetUsage, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(i64, i64)> = paid_call_budget::table
            .find((tenant.to_string(), day))
            .select((
                paid_call_budget::used_on_demand,
                paid_call_budget::used_scheduled,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        Ok(row
            .map(|(on_demand, scheduled)| BudgetUsage {
                on_demand,
                scheduled,
            })
            .unwrap_or_default())
    }

    async fn budget_usage_between(
        &self,
        tenant: &TenantId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, BudgetUsage)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(NaiveDate, i64, i64)> = paid_call_budget::table
            .filter(paid_call_budget::tenant_id.eq(tenant.to_string()))
            .filter(paid_call_budget::day.between(first, last))
            .order(paid_call_budget::day)
            .select((
                paid_call_budget::day,
                paid_call_budget::used_on_demand,
                paid_call_budget::used_scheduled,
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        Ok(rows
            .into_iter()
            .map(|(day, on_demand, scheduled)| {
                (
                    day,
                    BudgetUsage {
                        on_demand,
                        scheduled,
                    },
                )
            })
            .collect())
    }
}

#[derive(QueryableByName)]
struct SpentRow {
    #[diesel(sql_type = Int8)]
    #[allow(dead_code)]
    used: i64,
}

/// One row of the cached read: the object, the evidence of its call, its subject.
#[derive(QueryableByName)]
struct CachedPaidRow {
    #[diesel(sql_type = Jsonb)]
    data: RawJsonb,
    #[diesel(sql_type = Timestamptz)]
    fetched_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    call_ref: String,
    #[diesel(sql_type = Text)]
    source: String,
    #[diesel(sql_type = Timestamptz)]
    source_timestamp: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    upstream_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    digest: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    schema_version: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    retrieved_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    canonical_id: String,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
}

impl CachedPaidRow {
    fn into_domain(self, key: &PaidKey) -> Result<CachedPaid, StoreError> {
        let stored: StoredPaid =
            serde_json::from_slice(&self.data.0).map_err(|_| corrupt("cached paid object"))?;
        let data = stored.into_domain()?;
        if data.kind() != key.kind {
            return Err(corrupt("paid object kind"));
        }
        Ok(CachedPaid {
            object: PaidObject {
                country: key.country,
                data,
                evidence: Evidence {
                    call_ref: parse_id(&self.call_ref, "call ref")?,
                    source: EvidenceSource::parse(&self.source)
                        .ok_or_else(|| corrupt("evidence source"))?,
                    source_timestamp: self.source_timestamp,
                    upstream_ref: self.upstream_ref,
                    digest: self.digest,
                    schema_version: self.schema_version,
                    retrieved_at: self.retrieved_at,
                },
                fetched_at: self.fetched_at,
            },
            subject: SubjectHandle {
                subject_id: parse_id(&self.canonical_id, "subject id")?,
                aliases: self
                    .aliases
                    .iter()
                    .map(|a| parse_id(a, "subject id"))
                    .collect::<Result<_, _>>()?,
            },
        })
    }
}
