//! `StoreProbe` on SQLite: the newest migration applied to the file (the audit trail's file
//! attached, or the store would not have opened), against the newest this build embeds.

use crate::database::MIGRATIONS;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::migration::MigrationSource;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryableByName, RunQueryDsl};
use domain::error::StoreError;
use domain::health::ports::{Backlog, PoolUse, SchemaState, StoreProbe};
use std::sync::OnceLock;

/// The newest migration this build embeds, as diesel records it.
fn head() -> &'static str {
    static HEAD: OnceLock<String> = OnceLock::new();
    HEAD.get_or_init(|| {
        MigrationSource::<Sqlite>::migrations(&MIGRATIONS)
            .unwrap_or_default()
            .iter()
            .map(|m| m.name().version().to_string())
            .max()
            .unwrap_or_default()
    })
}

#[derive(QueryableByName)]
struct Applied {
    #[diesel(sql_type = Nullable<Text>)]
    version: Option<String>,
}

#[derive(QueryableByName)]
struct Due {
    #[diesel(sql_type = BigInt)]
    due: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    oldest: Option<i64>,
}

#[async_trait]
impl StoreProbe for Database {
    async fn schema(&self) -> Result<SchemaState, StoreError> {
        let applied = self
            .read(|conn| {
                let applied: Applied = diesel::sql_query(
                    "SELECT max(version) AS version FROM __diesel_schema_migrations",
                )
                .get_result(conn)?;
                Ok(applied.version)
            })
            .await?;
        Ok(SchemaState {
            applied,
            head: head().to_owned(),
        })
    }

    fn pool_use(&self) -> PoolUse {
        self.connections()
    }

    async fn backlog(&self, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
        let due: Due = self
            .read(move |conn| {
                Ok(diesel::sql_query(
                    "SELECT count(*) AS due, min(next_run_at) AS oldest FROM subscriptions \
                     WHERE status = 'active' AND next_run_at <= ?1 \
                       AND (claimed_until IS NULL OR claimed_until <= ?1)",
                )
                .bind::<BigInt, _>(crate::convert::micros(now))
                .get_result(conn)?)
            })
            .await?;
        Ok(Backlog {
            due: u64::try_from(due.due).unwrap_or_default(),
            oldest_due_at: due.oldest.map(crate::convert::time).transpose()?,
        })
    }
}
