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
use domain::health::ports::{Backlog, KeyFingerprints, PoolUse, SchemaState, StoreProbe};
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

#[derive(QueryableByName)]
struct Fingerprints {
    #[diesel(sql_type = Text)]
    signing: String,
    #[diesel(sql_type = Text)]
    master: String,
}

impl From<Fingerprints> for KeyFingerprints {
    fn from(f: Fingerprints) -> KeyFingerprints {
        KeyFingerprints {
            signing: f.signing,
            master: f.master,
        }
    }
}

fn read_fingerprints(
    conn: &mut diesel::SqliteConnection,
) -> Result<Option<Fingerprints>, diesel::result::Error> {
    use diesel::OptionalExtension;
    diesel::sql_query("SELECT signing, master FROM key_fingerprints WHERE id = 1")
        .get_result(conn)
        .optional()
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

    async fn key_fingerprints(&self) -> Result<Option<KeyFingerprints>, StoreError> {
        let found = self.read(|conn| Ok(read_fingerprints(conn)?)).await?;
        Ok(found.map(KeyFingerprints::from))
    }

    async fn adopt_key_fingerprints(
        &self,
        keys: &KeyFingerprints,
    ) -> Result<KeyFingerprints, StoreError> {
        let keys = keys.clone();
        let now = crate::convert::micros(chrono::Utc::now());
        let held = self
            .write(move |conn| {
                diesel::sql_query(
                    "INSERT INTO key_fingerprints (id, signing, master, recorded_at) \
                     VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO NOTHING",
                )
                .bind::<Text, _>(&keys.signing)
                .bind::<Text, _>(&keys.master)
                .bind::<BigInt, _>(now)
                .execute(conn)?;
                Ok(read_fingerprints(conn)?)
            })
            .await?;
        held.map(KeyFingerprints::from)
            .ok_or_else(|| StoreError::Backend("the key record vanished as it was written".into()))
    }

    async fn replace_signing_fingerprint(
        &self,
        keys: &KeyFingerprints,
    ) -> Result<bool, StoreError> {
        let keys = keys.clone();
        let now = crate::convert::micros(chrono::Utc::now());
        self.write(move |conn| {
            let changed = diesel::sql_query(
                "UPDATE key_fingerprints SET signing = ?1, signing_replaced_at = ?3 \
                 WHERE id = 1 AND master = ?2",
            )
            .bind::<Text, _>(&keys.signing)
            .bind::<Text, _>(&keys.master)
            .bind::<BigInt, _>(now)
            .execute(conn)?;
            Ok(changed == 1)
        })
        .await
    }
}
