//! `WebhookStore` on SQLite. An endpoint's row is its cursor; each attempt is written with
//! what it does to the cursor in one write transaction, and only while the claim that made it
//! still holds (its lease, an active endpoint). The dispatcher's claim is one write
//! transaction too: with the store's one write lock held, replicas sharing the file claim
//! disjoint endpoints.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::events::append_within;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Integer, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::error::StoreError;
use domain::ids::{GrantId, TenantId, WebhookEndpointId};
use domain::monitoring::event::NewEvent;
use domain::webhooks::endpoint::{
    AttemptResult, ClaimedEndpoint, Delivery, DisabledReason, EndpointStatus, EndpointUrl,
    SealedWebhookSecret, WebhookEndpoint,
};
use domain::webhooks::ports::{AfterAttempt, StartAt, WebhookStore};

const COLUMNS: &str = "tenant_id, endpoint_id, grant_id, url, types, description, sealed_secret, \
     status, disabled_reason, disabled_at, cursor_seq, failures, failing_since, next_attempt_at, \
     claimed_until, attempts, created_at, secret_rotated_at";

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    endpoint_id: String,
    #[diesel(sql_type = Text)]
    grant_id: String,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Nullable<Text>)]
    types: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    description: Option<String>,
    #[diesel(sql_type = Binary)]
    sealed_secret: Vec<u8>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    disabled_reason: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    disabled_at: Option<i64>,
    #[diesel(sql_type = BigInt)]
    cursor_seq: i64,
    #[diesel(sql_type = Integer)]
    failures: i32,
    #[diesel(sql_type = Nullable<BigInt>)]
    failing_since: Option<i64>,
    #[diesel(sql_type = BigInt)]
    next_attempt_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    #[allow(dead_code)]
    claimed_until: Option<i64>,
    #[diesel(sql_type = BigInt)]
    attempts: i64,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    secret_rotated_at: Option<i64>,
}

fn at(t: Option<i64>) -> Result<Option<DateTime<Utc>>, StoreError> {
    t.map(time).transpose()
}

impl Row {
    fn endpoint(self) -> Result<(WebhookEndpoint, SealedWebhookSecret), StoreError> {
        let types = match &self.types {
            None => None,
            Some(t) => Some(
                serde_json::from_str::<Vec<String>>(t)
                    .map_err(|_| corrupt("webhook endpoint types"))?,
            ),
        };
        let endpoint = WebhookEndpoint {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            id: parse_id(&self.endpoint_id, "webhook endpoint id")?,
            grant_id: parse_id(&self.grant_id, "grant id")?,
            url: EndpointUrl::stored(self.url),
            types,
            description: self.description,
            status: EndpointStatus::parse(&self.status)
                .ok_or_else(|| corrupt("webhook endpoint status"))?,
            disabled_reason: match self.disabled_reason {
                None => None,
                Some(s) => Some(
                    DisabledReason::parse(&s).ok_or_else(|| corrupt("webhook disabled reason"))?,
                ),
            },
            disabled_at: at(self.disabled_at)?,
            cursor: self.cursor_seq,
            failures: self.failures,
            failing_since: at(self.failing_since)?,
            next_attempt_at: time(self.next_attempt_at)?,
            attempts: self.attempts,
            created_at: time(self.created_at)?,
            secret_rotated_at: at(self.secret_rotated_at)?,
        };
        Ok((endpoint, SealedWebhookSecret(self.sealed_secret)))
    }
}

#[derive(QueryableByName)]
struct DeliveryRow {
    #[diesel(sql_type = Text)]
    endpoint_id: String,
    #[diesel(sql_type = BigInt)]
    number: i64,
    #[diesel(sql_type = Text)]
    event_id: String,
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Text)]
    type_name: String,
    #[diesel(sql_type = Integer)]
    attempt: i32,
    #[diesel(sql_type = BigInt)]
    attempted_at: i64,
    #[diesel(sql_type = Text)]
    outcome: String,
    #[diesel(sql_type = Nullable<Integer>)]
    status_code: Option<i32>,
    #[diesel(sql_type = Nullable<Text>)]
    error: Option<String>,
    #[diesel(sql_type = BigInt)]
    duration_ms: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    next_attempt_at: Option<i64>,
}

impl DeliveryRow {
    fn delivery(self) -> Result<Delivery, StoreError> {
        let status = self.status_code.and_then(|s| u16::try_from(s).ok());
        let result = AttemptResult::from_parts(&self.outcome, status, self.error)
            .ok_or_else(|| corrupt("webhook delivery outcome"))?;
        Ok(Delivery {
            endpoint_id: parse_id(&self.endpoint_id, "webhook endpoint id")?,
            number: self.number,
            event_id: parse_id(&self.event_id, "event id")?,
            seq: self.seq,
            type_name: self.type_name,
            attempt: self.attempt,
            attempted_at: time(self.attempted_at)?,
            result,
            duration_ms: self.duration_ms,
            next_attempt_at: at(self.next_attempt_at)?,
        })
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn read_endpoint(
    conn: &mut SqliteConnection,
    tenant: &str,
    grant: &str,
    id: &str,
) -> Result<Option<WebhookEndpoint>, TxError> {
    let rows: Vec<Row> = diesel::sql_query(format!(
        "SELECT {COLUMNS} FROM webhook_endpoints \
         WHERE tenant_id = ? AND grant_id = ? AND endpoint_id = ?"
    ))
    .bind::<Text, _>(tenant)
    .bind::<Text, _>(grant)
    .bind::<Text, _>(id)
    .load(conn)?;
    Ok(rows
        .into_iter()
        .next()
        .map(|r| r.endpoint().map(|(e, _)| e))
        .transpose()?)
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
        let e = endpoint.clone();
        let sealed = secret.0.clone();
        self.write(move |conn| {
            let (tenant, grant, id) = (
                e.tenant_id.to_string(),
                e.grant_id.to_string(),
                e.id.to_string(),
            );
            let held: Count = diesel::sql_query(
                "SELECT COUNT(*) AS n FROM webhook_endpoints WHERE tenant_id = ? AND grant_id = ?",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .get_result(conn)?;
            if held.n >= i64::from(max_per_grant) {
                return Ok(None);
            }
            let head: Count = diesel::sql_query(
                "SELECT COALESCE((SELECT last_seq FROM event_counters WHERE tenant_id = ?), 0) AS n",
            )
            .bind::<Text, _>(&tenant)
            .get_result(conn)?;
            let cursor = match start {
                StartAt::Head => head.n,
                StartAt::After(n) => n.min(head.n),
            };
            let types = e
                .types
                .as_ref()
                .map(|t| serde_json::to_string(t).unwrap_or_else(|_| "[]".into()));
            diesel::sql_query(
                "INSERT INTO webhook_endpoints (tenant_id, endpoint_id, grant_id, url, types, \
                   description, sealed_secret, status, cursor_seq, failures, next_attempt_at, \
                   attempts, created_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?)",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<Text, _>(&grant)
            .bind::<Text, _>(e.url.as_str())
            .bind::<Nullable<Text>, _>(types)
            .bind::<Nullable<Text>, _>(e.description.clone())
            .bind::<Binary, _>(&sealed)
            .bind::<Text, _>(e.status.as_str())
            .bind::<BigInt, _>(cursor)
            .bind::<BigInt, _>(micros(e.next_attempt_at))
            .bind::<BigInt, _>(micros(e.created_at))
            .execute(conn)?;
            read_endpoint(conn, &tenant, &grant, &id)
        })
        .await
    }

    async fn endpoints(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let (tenant, grant) = (tenant.to_string(), grant.to_string());
        self.read(move |conn| {
            let rows: Vec<Row> = diesel::sql_query(format!(
                "SELECT {COLUMNS} FROM webhook_endpoints WHERE tenant_id = ? AND grant_id = ? \
                 ORDER BY created_at, endpoint_id"
            ))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|r| r.endpoint().map(|(e, _)| e))
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let (tenant, grant, id) = (tenant.to_string(), grant.to_string(), id.to_string());
        self.read(move |conn| read_endpoint(conn, &tenant, &grant, &id))
            .await
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
        let (tenant, grant, id) = (tenant.to_string(), grant.to_string(), id.to_string());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, \
                   disabled_at = ?, claimed_until = NULL \
                 WHERE tenant_id = ? AND grant_id = ? AND endpoint_id = ? AND status = 'active'",
            )
            .bind::<Text, _>(reason.as_str())
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            if n == 1 {
                if let Some(event) = &event {
                    append_within(conn, &tenant, std::slice::from_ref(event))?;
                }
            }
            read_endpoint(conn, &tenant, &grant, &id)
        })
        .await
    }

    async fn enable_endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let (tenant, grant, id) = (tenant.to_string(), grant.to_string(), id.to_string());
        self.write(move |conn| {
            diesel::sql_query(
                "UPDATE webhook_endpoints SET status = 'active', disabled_reason = NULL, \
                   disabled_at = NULL, failures = 0, failing_since = NULL, next_attempt_at = ?, \
                   claimed_until = NULL \
                 WHERE tenant_id = ? AND grant_id = ? AND endpoint_id = ? AND status = 'disabled'",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            read_endpoint(conn, &tenant, &grant, &id)
        })
        .await
    }

    async fn replace_secret(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        secret: &SealedWebhookSecret,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let (tenant, grant, id) = (tenant.to_string(), grant.to_string(), id.to_string());
        let sealed = secret.0.clone();
        self.write(move |conn| {
            diesel::sql_query(
                "UPDATE webhook_endpoints SET sealed_secret = ?, secret_rotated_at = ? \
                 WHERE tenant_id = ? AND grant_id = ? AND endpoint_id = ?",
            )
            .bind::<Binary, _>(&sealed)
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            read_endpoint(conn, &tenant, &grant, &id)
        })
        .await
    }

    async fn claim_due_endpoints(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedEndpoint>, StoreError> {
        // Kept as stored (microseconds), so a later write compares it exactly.
        let lease_until = time(micros(lease_until))?;
        self.write(move |conn| {
            let rows: Vec<Row> = diesel::sql_query(format!(
                "UPDATE webhook_endpoints SET claimed_until = ?1 \
                 WHERE (tenant_id, endpoint_id) IN ( \
                   SELECT w.tenant_id, w.endpoint_id FROM webhook_endpoints w \
                   WHERE w.status = 'active' AND w.next_attempt_at <= ?2 \
                     AND (w.claimed_until IS NULL OR w.claimed_until <= ?2) \
                     AND EXISTS (SELECT 1 FROM event_counters c \
                       WHERE c.tenant_id = w.tenant_id AND c.last_seq > w.cursor_seq) \
                   ORDER BY w.next_attempt_at LIMIT ?3) \
                 RETURNING {COLUMNS}"
            ))
            .bind::<BigInt, _>(micros(lease_until))
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(i64::from(limit))
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|r| {
                    let (endpoint, sealed_secret) = r.endpoint()?;
                    Ok(ClaimedEndpoint {
                        endpoint,
                        sealed_secret,
                        lease_until,
                    })
                })
                .collect::<Result<_, StoreError>>()?)
        })
        .await
    }

    async fn record_attempt(
        &self,
        claim: &ClaimedEndpoint,
        delivery: &Delivery,
        after: &AfterAttempt,
    ) -> Result<bool, StoreError> {
        let tenant = claim.endpoint.tenant_id.to_string();
        let id = claim.endpoint.id.to_string();
        let lease = micros(claim.lease_until);
        let (d, after) = (delivery.clone(), after.clone());
        self.write(move |conn| {
            let held: Vec<Row> = diesel::sql_query(format!(
                "SELECT {COLUMNS} FROM webhook_endpoints \
                 WHERE tenant_id = ? AND endpoint_id = ? AND status = 'active' \
                   AND claimed_until = ?"
            ))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(lease)
            .load(conn)?;
            let Some(row) = held.into_iter().next() else {
                return Ok(false);
            };
            let number = row.attempts + 1;
            let failures = row.failures.saturating_add(1);
            let since = row.failing_since.unwrap_or(micros(d.attempted_at));
            let (outcome, status_code, error) = (
                d.result.outcome(),
                d.result.status().map(i32::from),
                d.result.error().map(str::to_owned),
            );
            diesel::sql_query(
                "INSERT INTO webhook_deliveries (tenant_id, endpoint_id, number, event_id, seq, \
                   type, attempt, attempted_at, outcome, status_code, error, duration_ms, \
                   next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(number)
            .bind::<Text, _>(d.event_id.to_string())
            .bind::<BigInt, _>(d.seq)
            .bind::<Text, _>(&d.type_name)
            .bind::<Integer, _>(d.attempt)
            .bind::<BigInt, _>(micros(d.attempted_at))
            .bind::<Text, _>(outcome)
            .bind::<Nullable<Integer>, _>(status_code)
            .bind::<Nullable<Text>, _>(error)
            .bind::<BigInt, _>(d.duration_ms)
            .bind::<Nullable<BigInt>, _>(d.next_attempt_at.map(micros))
            .execute(conn)?;
            match &after {
                AfterAttempt::Advance => {
                    diesel::sql_query(
                        "UPDATE webhook_endpoints SET cursor_seq = MAX(cursor_seq, ?), \
                           failures = 0, failing_since = NULL, attempts = ?, next_attempt_at = ? \
                         WHERE tenant_id = ? AND endpoint_id = ?",
                    )
                    .bind::<BigInt, _>(d.seq)
                    .bind::<BigInt, _>(number)
                    .bind::<BigInt, _>(micros(d.attempted_at))
                    .bind::<Text, _>(&tenant)
                    .bind::<Text, _>(&id)
                    .execute(conn)?;
                }
                AfterAttempt::Retry { next_attempt_at } => {
                    diesel::sql_query(
                        "UPDATE webhook_endpoints SET failures = ?, failing_since = ?, \
                           attempts = ?, next_attempt_at = ?, claimed_until = NULL \
                         WHERE tenant_id = ? AND endpoint_id = ?",
                    )
                    .bind::<Integer, _>(failures)
                    .bind::<BigInt, _>(since)
                    .bind::<BigInt, _>(number)
                    .bind::<BigInt, _>(micros(*next_attempt_at))
                    .bind::<Text, _>(&tenant)
                    .bind::<Text, _>(&id)
                    .execute(conn)?;
                }
                AfterAttempt::Disable { event } => {
                    diesel::sql_query(
                        "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, \
                           disabled_at = ?, failures = ?, failing_since = ?, attempts = ?, \
                           claimed_until = NULL \
                         WHERE tenant_id = ? AND endpoint_id = ?",
                    )
                    .bind::<Text, _>(DisabledReason::Failing.as_str())
                    .bind::<BigInt, _>(micros(d.attempted_at))
                    .bind::<Integer, _>(failures)
                    .bind::<BigInt, _>(since)
                    .bind::<BigInt, _>(number)
                    .bind::<Text, _>(&tenant)
                    .bind::<Text, _>(&id)
                    .execute(conn)?;
                    append_within(conn, &tenant, std::slice::from_ref(event))?;
                }
            }
            Ok(true)
        })
        .await
    }

    async fn release_endpoint(
        &self,
        claim: &ClaimedEndpoint,
        cursor: i64,
        next_attempt_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let tenant = claim.endpoint.tenant_id.to_string();
        let id = claim.endpoint.id.to_string();
        let lease = micros(claim.lease_until);
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE webhook_endpoints SET cursor_seq = MAX(cursor_seq, ?), \
                   next_attempt_at = ?, claimed_until = NULL \
                 WHERE tenant_id = ? AND endpoint_id = ? AND status = 'active' \
                   AND claimed_until = ?",
            )
            .bind::<BigInt, _>(cursor)
            .bind::<BigInt, _>(micros(next_attempt_at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(lease)
            .execute(conn)?;
            Ok(n == 1)
        })
        .await
    }

    async fn purge_deliveries(&self, before: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        self.write(move |conn| {
            let n = diesel::sql_query(
                "DELETE FROM webhook_deliveries WHERE rowid IN ( \
                   SELECT rowid FROM webhook_deliveries WHERE attempted_at < ? LIMIT ?)",
            )
            .bind::<BigInt, _>(micros(before))
            .bind::<BigInt, _>(i64::from(limit))
            .execute(conn)?;
            Ok(n as u64)
        })
        .await
    }

    async fn deliveries(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        after: i64,
        limit: u32,
    ) -> Result<Vec<Delivery>, StoreError> {
        let (tenant, grant, id) = (tenant.to_string(), grant.to_string(), id.to_string());
        self.read(move |conn| {
            let rows: Vec<DeliveryRow> = diesel::sql_query(
                "SELECT d.endpoint_id, d.number, d.event_id, d.seq, d.type AS type_name, \
                   d.attempt, d.attempted_at, d.outcome, d.status_code, d.error, d.duration_ms, \
                   d.next_attempt_at \
                 FROM webhook_deliveries d JOIN webhook_endpoints w \
                   ON w.tenant_id = d.tenant_id AND w.endpoint_id = d.endpoint_id \
                 WHERE d.tenant_id = ? AND d.endpoint_id = ? AND w.grant_id = ? AND d.number > ? \
                 ORDER BY d.number LIMIT ?",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .bind::<Text, _>(&grant)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(i64::from(limit))
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(DeliveryRow::delivery)
                .collect::<Result<_, _>>()?)
        })
        .await
    }
}
