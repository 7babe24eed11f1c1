//! `WebhookStore` on PostgreSQL. An endpoint's row is its cursor; each attempt is written
//! with what it does to the cursor in one transaction, under the row's lock, and only while
//! the claim that made it still holds (its lease, an active endpoint). The dispatcher's claim
//! skips rows another replica holds (`SKIP LOCKED`) and endpoints with nothing to send.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::events::append_within;
use crate::schema::{event_counters, grants, webhook_deliveries, webhook_endpoints as w};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, SubsecRound, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::error::StoreError;
use domain::ids::{GrantId, TenantId, WebhookEndpointId};
use domain::monitoring::event::NewEvent;
use domain::webhooks::endpoint::{
    AttemptResult, ClaimedEndpoint, Delivery, DisabledReason, EndpointStatus, EndpointUrl,
    SealedWebhookSecret, WebhookEndpoint,
};
use domain::webhooks::ports::{AfterAttempt, StartAt, WebhookStore};
use serde_json::Value;

type Row = (
    String,
    String,
    String,
    String,
    Option<Value>,
    Option<String>,
    Vec<u8>,
    String,
    Option<String>,
    Option<DateTime<Utc>>,
    i64,
    i32,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    i64,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
);

macro_rules! columns {
    () => {
        (
            w::tenant_id,
            w::endpoint_id,
            w::grant_id,
            w::url,
            w::types,
            w::description,
            w::sealed_secret,
            w::status,
            w::disabled_reason,
            w::disabled_at,
            w::cursor_seq,
            w::failures,
            w::failing_since,
            w::next_attempt_at,
            w::claimed_until,
            w::attempts,
            w::created_at,
            w::secret_rotated_at,
        )
    };
}

fn endpoint_of(
    r: Row,
) -> Result<(WebhookEndpoint, SealedWebhookSecret, Option<DateTime<Utc>>), StoreError> {
    let types = match r.4 {
        None => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<String>>(v)
                .map_err(|_| corrupt("webhook endpoint types"))?,
        ),
    };
    let endpoint = WebhookEndpoint {
        tenant_id: parse_id(&r.0, "tenant id")?,
        id: parse_id(&r.1, "webhook endpoint id")?,
        grant_id: parse_id(&r.2, "grant id")?,
        url: EndpointUrl::stored(r.3),
        types,
        description: r.5,
        status: EndpointStatus::parse(&r.7).ok_or_else(|| corrupt("webhook endpoint status"))?,
        disabled_reason: match r.8 {
            None => None,
            Some(s) => {
                Some(DisabledReason::parse(&s).ok_or_else(|| corrupt("webhook disabled reason"))?)
            }
        },
        disabled_at: r.9,
        cursor: r.10,
        failures: r.11,
        failing_since: r.12,
        next_attempt_at: r.13,
        attempts: r.15,
        created_at: r.16,
        secret_rotated_at: r.17,
    };
    Ok((endpoint, SealedWebhookSecret(r.6), r.14))
}

type DeliveryRow = (
    String,
    i64,
    String,
    i64,
    String,
    i32,
    DateTime<Utc>,
    String,
    Option<i32>,
    Option<String>,
    i64,
    Option<DateTime<Utc>>,
);

fn delivery_of(r: DeliveryRow) -> Result<Delivery, StoreError> {
    let status = r.8.and_then(|s| u16::try_from(s).ok());
    let result = AttemptResult::from_parts(&r.7, status, r.9)
        .ok_or_else(|| corrupt("webhook delivery outcome"))?;
    Ok(Delivery {
        endpoint_id: parse_id(&r.0, "webhook endpoint id")?,
        number: r.1,
        event_id: parse_id(&r.2, "event id")?,
        seq: r.3,
        type_name: r.4,
        attempt: r.5,
        attempted_at: r.6,
        result,
        duration_ms: r.10,
        next_attempt_at: r.11,
    })
}

impl Database {
    async fn read_endpoint(
        conn: &mut AsyncPgConnection,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let row: Option<Row> = w::table
            .filter(w::tenant_id.eq(tenant.to_string()))
            .filter(w::grant_id.eq(grant.to_string()))
            .filter(w::endpoint_id.eq(id.to_string()))
            .select(columns!())
            .first(conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(|r| endpoint_of(r).map(|(e, _, _)| e)).transpose()
    }
}

#[async_trait]
impl WebhookStore for Database {
    async fn create_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &SealedWebhookSecret,
        start: StartAt,
        max_per_grant: u32,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let tenant_id = endpoint.tenant_id.to_string();
        let grant_id = endpoint.grant_id.to_string();
        let types = endpoint
            .types
            .as_ref()
            .map(|t| serde_json::to_value(t).unwrap_or(Value::Null));
        let mut conn = self.conn().await?;
        let stored = conn
            .transaction(async |conn| -> Result<Option<WebhookEndpoint>, TxError> {
                // The grant's row, locked: concurrent creates of one grant count in turn.
                grants::table
                    .find((&tenant_id, &grant_id))
                    .select(grants::grant_id)
                    .for_update()
                    .first::<String>(conn)
                    .await?;
                let held: i64 = w::table
                    .filter(w::tenant_id.eq(&tenant_id))
                    .filter(w::grant_id.eq(&grant_id))
                    .count()
                    .get_result(conn)
                    .await?;
                if held >= i64::from(max_per_grant) {
                    return Ok(None);
                }
                let head: i64 = event_counters::table
                    .find(&tenant_id)
                    .select(event_counters::last_seq)
                    .first(conn)
                    .await
                    .optional()?
                    .unwrap_or(0);
                let cursor = match start {
                    StartAt::Head => head,
                    StartAt::After(n) => n.min(head),
                };
                diesel::insert_into(w::table)
                    .values((
                        w::tenant_id.eq(&tenant_id),
                        w::endpoint_id.eq(endpoint.id.to_string()),
                        w::grant_id.eq(&grant_id),
                        w::url.eq(endpoint.url.as_str()),
                        w::types.eq(&types),
                        w::description.eq(&endpoint.description),
                        w::sealed_secret.eq(&secret.0),
                        w::status.eq(endpoint.status.as_str()),
                        w::cursor_seq.eq(cursor),
                        w::failures.eq(0),
                        w::next_attempt_at.eq(endpoint.next_attempt_at),
                        w::attempts.eq(0_i64),
                        w::created_at.eq(endpoint.created_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(Database::read_endpoint(
                    conn,
                    &endpoint.tenant_id,
                    &endpoint.grant_id,
                    &endpoint.id,
                )
                .await?)
            })
            .await?;
        Ok(stored)
    }

    async fn endpoints(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<Row> = w::table
            .filter(w::tenant_id.eq(tenant.to_string()))
            .filter(w::grant_id.eq(grant.to_string()))
            .order((w::created_at, w::endpoint_id))
            .select(columns!())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter()
            .map(|r| endpoint_of(r).map(|(e, _, _)| e))
            .collect()
    }

    async fn endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut conn = self.conn().await?;
        Database::read_endpoint(&mut conn, tenant, grant, id).await
    }

    async fn disable_endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        reason: DisabledReason,
        at: DateTime<Utc>,
        event: Option<NewEvent>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let tenant_id = tenant.to_string();
        let mut conn = self.conn().await?;
        let stored = conn
            .transaction(async |conn| -> Result<Option<WebhookEndpoint>, TxError> {
                let n = diesel::update(
                    w::table
                        .filter(w::tenant_id.eq(&tenant_id))
                        .filter(w::grant_id.eq(grant.to_string()))
                        .filter(w::endpoint_id.eq(id.to_string()))
                        .filter(w::status.eq(EndpointStatus::Active.as_str())),
                )
                .set((
                    w::status.eq("disabled"),
                    w::disabled_reason.eq(reason.as_str()),
                    w::disabled_at.eq(at),
                    w::claimed_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
                if n == 1 {
                    if let Some(event) = &event {
                        append_within(conn, &tenant_id, std::slice::from_ref(event)).await?;
                    }
                }
                Ok(Database::read_endpoint(conn, tenant, grant, id).await?)
            })
            .await?;
        Ok(stored)
    }

    async fn enable_endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(
            w::table
                .filter(w::tenant_id.eq(tenant.to_string()))
                .filter(w::grant_id.eq(grant.to_string()))
                .filter(w::endpoint_id.eq(id.to_string()))
                .filter(w::status.eq("disabled")),
        )
        .set((
            w::status.eq(EndpointStatus::Active.as_str()),
            w::disabled_reason.eq(None::<String>),
            w::disabled_at.eq(None::<DateTime<Utc>>),
            w::failures.eq(0),
            w::failing_since.eq(None::<DateTime<Utc>>),
            w::next_attempt_at.eq(at),
            w::claimed_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Database::read_endpoint(&mut conn, tenant, grant, id).await
    }

    async fn replace_secret(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        secret: &SealedWebhookSecret,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(
            w::table
                .filter(w::tenant_id.eq(tenant.to_string()))
                .filter(w::grant_id.eq(grant.to_string()))
                .filter(w::endpoint_id.eq(id.to_string())),
        )
        .set((
            w::sealed_secret.eq(&secret.0),
            w::secret_rotated_at.eq(Some(at)),
        ))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Database::read_endpoint(&mut conn, tenant, grant, id).await
    }

    async fn claim_due_endpoints(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedEndpoint>, StoreError> {
        // Kept as stored (microseconds), so a later write compares it exactly.
        let lease_until = lease_until.trunc_subsecs(6);
        let mut conn = self.conn().await?;
        let rows = conn
            .transaction(async |conn| -> Result<Vec<Row>, TxError> {
                let due: Vec<(String, String)> = w::table
                    .filter(w::status.eq(EndpointStatus::Active.as_str()))
                    .filter(w::next_attempt_at.le(now))
                    .filter(w::claimed_until.is_null().or(w::claimed_until.le(now)))
                    .filter(diesel::dsl::exists(
                        event_counters::table
                            .filter(event_counters::tenant_id.eq(w::tenant_id))
                            .filter(event_counters::last_seq.gt(w::cursor_seq)),
                    ))
                    .order(w::next_attempt_at)
                    .limit(i64::from(limit))
                    .select((w::tenant_id, w::endpoint_id))
                    .for_update()
                    .skip_locked()
                    .load(conn)
                    .await?;
                let mut claimed = Vec::with_capacity(due.len());
                for (tenant_id, endpoint_id) in due {
                    let row: Row = diesel::update(w::table.find((tenant_id, endpoint_id)))
                        .set(w::claimed_until.eq(Some(lease_until)))
                        .returning(columns!())
                        .get_result(conn)
                        .await?;
                    claimed.push(row);
                }
                Ok(claimed)
            })
            .await?;
        rows.into_iter()
            .map(|r| {
                let (endpoint, sealed_secret, _) = endpoint_of(r)?;
                Ok(ClaimedEndpoint {
                    endpoint,
                    sealed_secret,
                    lease_until,
                })
            })
            .collect()
    }

    async fn record_attempt(
        &self,
        claim: &ClaimedEndpoint,
        delivery: &Delivery,
        after: &AfterAttempt,
    ) -> Result<bool, StoreError> {
        let ep = &claim.endpoint;
        let tenant_id = ep.tenant_id.to_string();
        let endpoint_id = ep.id.to_string();
        let mut conn = self.conn().await?;
        let written = conn
            .transaction(async |conn| -> Result<bool, TxError> {
                let held: Option<(i64, i64, i32, Option<DateTime<Utc>>)> = w::table
                    .find((&tenant_id, &endpoint_id))
                    .filter(w::status.eq(EndpointStatus::Active.as_str()))
                    .filter(w::claimed_until.eq(claim.lease_until))
                    .select((w::attempts, w::cursor_seq, w::failures, w::failing_since))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some((attempts, _cursor, failures, failing_since)) = held else {
                    return Ok(false);
                };
                let number = attempts + 1;
                let (outcome, status_code, error) = (
                    delivery.result.outcome(),
                    delivery.result.status().map(i32::from),
                    delivery.result.error(),
                );
                diesel::insert_into(webhook_deliveries::table)
                    .values((
                        webhook_deliveries::tenant_id.eq(&tenant_id),
                        webhook_deliveries::endpoint_id.eq(&endpoint_id),
                        webhook_deliveries::number.eq(number),
                        webhook_deliveries::event_id.eq(delivery.event_id.to_string()),
                        webhook_deliveries::seq.eq(delivery.seq),
                        webhook_deliveries::type_name.eq(&delivery.type_name),
                        webhook_deliveries::attempt.eq(delivery.attempt),
                        webhook_deliveries::attempted_at.eq(delivery.attempted_at),
                        webhook_deliveries::outcome.eq(outcome),
                        webhook_deliveries::status_code.eq(status_code),
                        webhook_deliveries::error.eq(error),
                        webhook_deliveries::duration_ms.eq(delivery.duration_ms),
                        webhook_deliveries::next_attempt_at.eq(delivery.next_attempt_at),
                    ))
                    .execute(conn)
                    .await?;
                let target = w::table.find((&tenant_id, &endpoint_id));
                let since = failing_since.unwrap_or(delivery.attempted_at);
                match after {
                    AfterAttempt::Advance => {
                        diesel::update(target)
                            .set((
                                w::cursor_seq.eq(diesel::dsl::sql::<diesel::sql_types::Int8>(
                                    "GREATEST(cursor_seq, ",
                                )
                                .bind::<diesel::sql_types::Int8, _>(delivery.seq)
                                .sql(")")),
                                w::failures.eq(0),
                                w::failing_since.eq(None::<DateTime<Utc>>),
                                w::attempts.eq(number),
                                w::next_attempt_at.eq(delivery.attempted_at),
                            ))
                            .execute(conn)
                            .await?;
                    }
                    AfterAttempt::Retry { next_attempt_at } => {
                        diesel::update(target)
                            .set((
                                w::failures.eq(failures.saturating_add(1)),
                                w::failing_since.eq(Some(since)),
                                w::attempts.eq(number),
                                w::next_attempt_at.eq(*next_attempt_at),
                                w::claimed_until.eq(None::<DateTime<Utc>>),
                            ))
                            .execute(conn)
                            .await?;
                    }
                    AfterAttempt::Disable { event } => {
                        diesel::update(target)
                            .set((
                                w::status.eq("disabled"),
                                w::disabled_reason.eq(DisabledReason::Failing.as_str()),
                                w::disabled_at.eq(Some(delivery.attempted_at)),
                                w::failures.eq(failures.saturating_add(1)),
                                w::failing_since.eq(Some(since)),
                                w::attempts.eq(number),
                                w::claimed_until.eq(None::<DateTime<Utc>>),
                            ))
                            .execute(conn)
                            .await?;
                        append_within(conn, &tenant_id, std::slice::from_ref(event)).await?;
                    }
                }
                Ok(true)
            })
            .await?;
        Ok(written)
    }

    async fn release_endpoint(
        &self,
        claim: &ClaimedEndpoint,
        cursor: i64,
        next_attempt_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let ep = &claim.endpoint;
        let mut conn = self.conn().await?;
        let n = diesel::update(
            w::table
                .find((ep.tenant_id.to_string(), ep.id.to_string()))
                .filter(w::status.eq(EndpointStatus::Active.as_str()))
                .filter(w::claimed_until.eq(claim.lease_until)),
        )
        .set((
            w::cursor_seq.eq(
                diesel::dsl::sql::<diesel::sql_types::Int8>("GREATEST(cursor_seq, ")
                    .bind::<diesel::sql_types::Int8, _>(cursor)
                    .sql(")"),
            ),
            w::next_attempt_at.eq(next_attempt_at),
            w::claimed_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n == 1)
    }

    async fn purge_deliveries(&self, before: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::sql_query(
            "DELETE FROM webhook_deliveries WHERE ctid IN ( \
               SELECT ctid FROM webhook_deliveries WHERE attempted_at < $1 LIMIT $2)",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(before)
        .bind::<diesel::sql_types::Int8, _>(i64::from(limit))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n as u64)
    }

    async fn deliveries(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        after: i64,
        limit: u32,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<DeliveryRow> = webhook_deliveries::table
            .filter(webhook_deliveries::tenant_id.eq(tenant.to_string()))
            .filter(webhook_deliveries::endpoint_id.eq(id.to_string()))
            .filter(
                webhook_deliveries::endpoint_id.eq_any(
                    w::table
                        .filter(w::tenant_id.eq(tenant.to_string()))
                        .filter(w::grant_id.eq(grant.to_string()))
                        .select(w::endpoint_id),
                ),
            )
            .filter(webhook_deliveries::number.gt(after))
            .order(webhook_deliveries::number)
            .limit(i64::from(limit))
            .select((
                webhook_deliveries::endpoint_id,
                webhook_deliveries::number,
                webhook_deliveries::event_id,
                webhook_deliveries::seq,
                webhook_deliveries::type_name,
                webhook_deliveries::attempt,
                webhook_deliveries::attempted_at,
                webhook_deliveries::outcome,
                webhook_deliveries::status_code,
                webhook_deliveries::error,
                webhook_deliveries::duration_ms,
                webhook_deliveries::next_attempt_at,
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(delivery_of).collect()
    }
}
