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
use domain::health::ports::{Backlog, KeyFingerprints, PoolUse, SchemaState, StoreProbe};
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

    async fn key_fingerprints(&self) -> Result<Option<KeyFingerprints>, StoreError> {
        use diesel::OptionalExtension;
        let mut conn = self.conn().await?;
        let found: Option<Fingerprints> =
            diesel::sql_query("SELECT signing, master FROM key_fingerprints WHERE id = 1")
                .get_result(&mut conn)
                .await
                .optional()
                .map_err(backend)?;
        Ok(found.map(KeyFingerprints::from))
    }

    async fn adopt_key_fingerprints(
        &self,
        keys: &KeyFingerprints,
    ) -> Result<KeyFingerprints, StoreError> {
        let mut conn = self.conn().await?;
        use diesel::OptionalExtension;
        // One statement: the row written now, or the one a replica wrote first. A replica's
        // row committed while this statement ran is outside its snapshot: then it is read
        // on its own.
        let held: Option<Fingerprints> = diesel::sql_query(
            "WITH written AS ( \
                 INSERT INTO key_fingerprints (id, signing, master, recorded_at) \
                 VALUES (1, $1, $2, now()) ON CONFLICT (id) DO NOTHING \
                 RETURNING signing, master) \
             SELECT signing, master FROM written \
             UNION ALL SELECT signing, master FROM key_fingerprints \
             WHERE id = 1 AND NOT EXISTS (SELECT 1 FROM written)",
        )
        .bind::<Text, _>(&keys.signing)
        .bind::<Text, _>(&keys.master)
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        drop(conn);
        match held {
            Some(held) => Ok(held.into()),
            None => self.key_fingerprints().await?.ok_or_else(|| {
                StoreError::Backend("the key record vanished as it was written".into())
            }),
        }
    }

    async fn replace_signing_fingerprint(
        &self,
        keys: &KeyFingerprints,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let changed = diesel::sql_query(
            "UPDATE key_fingerprints SET signing = $1, signing_replaced_at = now() \
             WHERE id = 1 AND master = $2",
        )
        .bind::<Text, _>(&keys.signing)
        .bind::<Text, _>(&keys.master)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(changed == 1)
    }
}
