//! `StoreProbe` on PostgreSQL: the newest migration applied, in one round trip, against the
//! newest this build embeds.

use crate::convert::backend;
use crate::database::MIGRATIONS;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::migration::MigrationSource;
use diesel::pg::Pg;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamptz};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use domain::error::StoreError;
use domain::health::ports::{Backlog, PoolUse, SchemaState, StoreProbe};
use std::sync::OnceLock;

/// The newest migration this build embeds, as diesel records it (`__diesel_schema_migrations`).
fn head() -> &'static str {
    static HEAD: OnceLock<String> = OnceLock::new();
    HEAD.get_or_init(|| {
        MigrationSource::<Pg>::migrations(&MIGRATIONS)
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
    #[diesel(sql_type = Nullable<Timestamptz>)]
    oldest: Option<DateTime<Utc>>,
}

#[async_trait]
impl StoreProbe for Database {
    async fn schema(&self) -> Result<SchemaState, StoreError> {
        let mut conn = self.conn().await?;
        let applied: Applied =
            diesel::sql_query("SELECT max(version) AS version FROM __diesel_schema_migrations")
                .get_result(&mut conn)
                .await
                .map_err(backend)?;
        Ok(SchemaState {
            applied: applied.version,
            head: head().to_owned(),
        })
    }

    fn pool_use(&self) -> PoolUse {
        self.connections()
    }

    async fn backlog(&self, now: DateTime<Utc>) -> Result<Backlog, StoreError> {
        let mut conn = self.conn().await?;
        let due: Due = diesel::sql_query(
            "SELECT count(*) AS due, min(next_run_at) AS oldest FROM subscriptions \
             WHERE status = 'active' AND next_run_at <= $1 \
               AND (claimed_until IS NULL OR claimed_until <= $1)",
        )
        .bind::<Timestamptz, _>(now)
        .get_result(&mut conn)
        .await
        .map_err(backend)?;
        Ok(Backlog {
            due: u64::try_from(due.due).unwrap_or_default(),
            oldest_due_at: due.oldest,
        })
    }
}
