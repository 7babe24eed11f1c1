//! `StoreProbe` on SQLite: the newest migration applied to the file (the audit trail's file
//! attached, or the store would not have opened), against the newest this build embeds.

use crate::database::MIGRATIONS;
use crate::Database;
use async_trait::async_trait;
use diesel::migration::MigrationSource;
use diesel::sql_types::{Nullable, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryableByName, RunQueryDsl};
use domain::error::StoreError;
use domain::health::ports::{SchemaState, StoreProbe};
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
}
