//! `IdempotencyStore` on SQLite: a claim reads the key and writes it in one write
//! transaction (holding the file's write lock from its first statement), so two claims of a
//! free key never both win.

use crate::convert::micros;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Nullable, Text};
use domain::error::StoreError;
use domain::idempotency::ports::{ClaimOutcome, IdempotencyStore, KeyClaim};
use domain::ids::TenantId;

#[derive(QueryableByName)]
struct KeyRow {
    #[diesel(sql_type = Text)]
    fingerprint: String,
    #[diesel(sql_type = Text)]
    state: String,
    #[diesel(sql_type = BigInt)]
    locked_until: i64,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
    #[diesel(sql_type = Nullable<Binary>)]
    answer: Option<Vec<u8>>,
}

#[async_trait]
impl IdempotencyStore for Database {
    async fn claim(&self, tenant: &TenantId, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError> {
        let tenant_id = tenant.to_string();
        let claim = claim.clone();
        self.write(move |conn| {
            let now = micros(claim.now);
            let row: Option<KeyRow> = diesel::sql_query(
                "SELECT fingerprint, state, locked_until, expires_at, answer \
                 FROM idempotency_keys WHERE tenant_id = ? AND key_hash = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&claim.key_hash)
            .get_result(conn)
            .optional()?;
            let free = match &row {
                None => true,
                Some(r) => {
                    r.expires_at <= now
                        || (r.state == "running"
                            && r.fingerprint == claim.fingerprint
                            && r.locked_until <= now)
                }
            };
            if free {
                diesel::sql_query(
                    "INSERT INTO idempotency_keys (tenant_id, key_hash, fingerprint, state, \
                       locked_until, expires_at, answer, created_at) \
                     VALUES (?, ?, ?, 'running', ?, ?, NULL, ?) \
                     ON CONFLICT (tenant_id, key_hash) DO UPDATE SET \
                       fingerprint = excluded.fingerprint, state = 'running', \
                       locked_until = excluded.locked_until, expires_at = excluded.expires_at, \
                       answer = NULL, created_at = excluded.created_at",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&claim.key_hash)
                .bind::<Text, _>(&claim.fingerprint)
                .bind::<BigInt, _>(micros(claim.lease_until))
                .bind::<BigInt, _>(micros(claim.expires_at))
                .bind::<BigInt, _>(now)
                .execute(conn)?;
                return Ok(ClaimOutcome::Claimed);
            }
            let Some(row) = row else {
                unreachable!("a missing key is free")
            };
            Ok(if row.fingerprint != claim.fingerprint {
                ClaimOutcome::Reused
            } else if row.state == "running" {
                ClaimOutcome::InUse
            } else {
                ClaimOutcome::Answered(row.answer.unwrap_or_default())
            })
        })
        .await
    }

    async fn complete(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
        sealed: &[u8],
    ) -> Result<(), StoreError> {
        let (tenant_id, key_hash, fingerprint, sealed) = (
            tenant.to_string(),
            key_hash.to_owned(),
            fingerprint.to_owned(),
            sealed.to_vec(),
        );
        self.write(move |conn| {
            diesel::sql_query(
                "UPDATE idempotency_keys SET state = 'answered', answer = ? \
                 WHERE tenant_id = ? AND key_hash = ? AND fingerprint = ? AND state = 'running'",
            )
            .bind::<Binary, _>(&sealed)
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&key_hash)
            .bind::<Text, _>(&fingerprint)
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn release(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
    ) -> Result<(), StoreError> {
        let (tenant_id, key_hash, fingerprint) = (
            tenant.to_string(),
            key_hash.to_owned(),
            fingerprint.to_owned(),
        );
        self.write(move |conn| {
            diesel::sql_query(
                "DELETE FROM idempotency_keys \
                 WHERE tenant_id = ? AND key_hash = ? AND fingerprint = ? AND state = 'running'",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&key_hash)
            .bind::<Text, _>(&fingerprint)
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn purge_expired(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        self.write(move |conn| {
            let purged = diesel::sql_query(
                "DELETE FROM idempotency_keys WHERE rowid IN \
                 (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(i64::from(limit))
            .execute(conn)?;
            Ok(purged as u64)
        })
        .await
    }
}
