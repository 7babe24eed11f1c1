//! `IdempotencyStore` on PostgreSQL. A claim is one statement, prepared once per connection: an insert that takes a free
//! key (or, under the conflicting row's lock, an expired or abandoned one), and otherwise
//! the key's row as the statement found it, so a replay costs one round trip. A claim that
//! raced another's first insert of the same key sees neither (the statement's snapshot
//! predates that commit) and reads the row again.

use crate::convert::backend;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Bytea, Int8, Nullable, Text, Timestamptz, Untyped};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::error::StoreError;
use domain::idempotency::ports::{ClaimOutcome, IdempotencyStore, KeyClaim};
use domain::ids::TenantId;

#[derive(QueryableByName)]
struct Found {
    #[diesel(sql_type = Text)]
    outcome: String,
    #[diesel(sql_type = Nullable<Bytea>)]
    answer: Option<Vec<u8>>,
}

/// The claim, one prepared statement per connection: an insert that takes a free key (or,
/// under the conflicting row's lock, an expired or abandoned one), else the key's row as the
/// statement found it.
struct ClaimKey<'a> {
    tenant_id: &'a str,
    claim: &'a KeyClaim,
}

impl QueryFragment<Pg> for ClaimKey<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let c = self.claim;
        out.push_sql(
            "WITH ins AS (INSERT INTO idempotency_keys AS k (tenant_id, key_hash, fingerprint, \
             state, locked_until, expires_at, answer, created_at) VALUES (",
        );
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&c.key_hash)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&c.fingerprint)?;
        out.push_sql(", 'running', ");
        out.push_bind_param::<Timestamptz, _>(&c.lease_until)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(&c.expires_at)?;
        out.push_sql(", NULL, ");
        out.push_bind_param::<Timestamptz, _>(&c.now)?;
        out.push_sql(
            ") ON CONFLICT (tenant_id, key_hash) DO UPDATE SET \
             fingerprint = EXCLUDED.fingerprint, state = 'running', \
             locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at, \
             answer = NULL, created_at = EXCLUDED.created_at WHERE k.expires_at <= ",
        );
        out.push_bind_param::<Timestamptz, _>(&c.now)?;
        out.push_sql(
            " OR (k.state = 'running' AND k.fingerprint = EXCLUDED.fingerprint \
             AND k.locked_until <= ",
        );
        out.push_bind_param::<Timestamptz, _>(&c.now)?;
        out.push_sql(
            ") RETURNING 1) \
             SELECT 'claimed'::text AS outcome, NULL::bytea AS answer FROM ins \
             UNION ALL \
             SELECT CASE WHEN k.fingerprint <> ",
        );
        out.push_bind_param::<Text, _>(&c.fingerprint)?;
        out.push_sql(
            " THEN 'reused' WHEN k.state = 'running' THEN 'in_use' ELSE 'answered' END, \
             k.answer FROM idempotency_keys k WHERE k.tenant_id = ",
        );
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND k.key_hash = ");
        out.push_bind_param::<Text, _>(&c.key_hash)?;
        out.push_sql(" AND NOT EXISTS (SELECT 1 FROM ins)");
        Ok(())
    }
}

impl QueryId for ClaimKey<'_> {
    type QueryId = ClaimKey<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for ClaimKey<'_> {
    type SqlType = Untyped;
}

/// The key's row as a fresh statement sees it (after a claim that raced another's first
/// insert: rare, so not kept prepared).
const READ: &str = "SELECT CASE WHEN fingerprint <> $3 THEN 'reused' \
       WHEN state = 'running' THEN 'in_use' ELSE 'answered' END AS outcome, answer \
     FROM idempotency_keys WHERE tenant_id = $1 AND key_hash = $2 AND expires_at > $4";

async fn claimed(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    claim: &KeyClaim,
) -> Result<Option<Found>, StoreError> {
    ClaimKey { tenant_id, claim }
        .get_result::<Found>(conn)
        .await
        .optional()
        .map_err(backend)
}

async fn read(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    claim: &KeyClaim,
) -> Result<Option<Found>, StoreError> {
    diesel::sql_query(READ)
        .bind::<Text, _>(tenant_id)
        .bind::<Text, _>(&claim.key_hash)
        .bind::<Text, _>(&claim.fingerprint)
        .bind::<Timestamptz, _>(claim.now)
        .get_result::<Found>(conn)
        .await
        .optional()
        .map_err(backend)
}

fn outcome(found: Found) -> Result<ClaimOutcome, StoreError> {
    match found.outcome.as_str() {
        "claimed" => Ok(ClaimOutcome::Claimed),
        "reused" => Ok(ClaimOutcome::Reused),
        "in_use" => Ok(ClaimOutcome::InUse),
        "answered" => Ok(ClaimOutcome::Answered(found.answer.unwrap_or_default())),
        other => Err(StoreError::Backend(format!(
            "unknown claim outcome {other}"
        ))),
    }
}

#[async_trait]
impl IdempotencyStore for Database {
    async fn claim(&self, tenant: &TenantId, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        if let Some(row) = claimed(&mut conn, &tenant_id, claim).await? {
            return outcome(row);
        }
        if let Some(row) = read(&mut conn, &tenant_id, claim).await? {
            return outcome(row);
        }
        if let Some(row) = claimed(&mut conn, &tenant_id, claim).await? {
            return outcome(row);
        }
        // Raced twice (a key claimed, then released, between each read): answer as in use,
        // and the client's retry finds it settled.
        Ok(ClaimOutcome::InUse)
    }

    async fn complete(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
        sealed: &[u8],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::sql_query(
            "UPDATE idempotency_keys SET state = 'answered', answer = $4 \
             WHERE tenant_id = $1 AND key_hash = $2 AND fingerprint = $3 AND state = 'running'",
        )
        .bind::<Text, _>(tenant.to_string())
        .bind::<Text, _>(key_hash)
        .bind::<Text, _>(fingerprint)
        .bind::<Bytea, _>(sealed)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn release(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::sql_query(
            "DELETE FROM idempotency_keys \
             WHERE tenant_id = $1 AND key_hash = $2 AND fingerprint = $3 AND state = 'running'",
        )
        .bind::<Text, _>(tenant.to_string())
        .bind::<Text, _>(key_hash)
        .bind::<Text, _>(fingerprint)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn purge_expired(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let purged = diesel::sql_query(
            "DELETE FROM idempotency_keys WHERE (tenant_id, key_hash) IN \
             (SELECT tenant_id, key_hash FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<Int8, _>(i64::from(limit))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(purged as u64)
    }
}
