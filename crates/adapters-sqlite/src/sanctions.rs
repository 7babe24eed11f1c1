//! `SanctionsListStore` on SQLite: immutable list versions, the active version of each list,
//! failed imports. An import is one write transaction (the version row, its entries, the
//! active pointer), so a failure at any point leaves the previous version active and no
//! partial version behind.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::error::StoreError;
use domain::screening::ports::SanctionsListStore;
use domain::screening::sanctions::{
    ActiveList, FailedImport, ImportOutcome, ListEntry, ListSource, SourceVersion, SourceVersionId,
};
use storage_codec::sanctions::StoredEntry;

const VERSION_COLUMNS: &str = "v.version_id, v.source, v.digest, v.published_at, v.imported_at, \
     v.entry_count, v.skipped_count";

#[derive(QueryableByName)]
struct VersionRow {
    #[diesel(sql_type = Text)]
    version_id: String,
    #[diesel(sql_type = Text)]
    source: String,
    #[diesel(sql_type = Text)]
    digest: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    published_at: Option<i64>,
    #[diesel(sql_type = BigInt)]
    imported_at: i64,
    #[diesel(sql_type = Integer)]
    entry_count: i32,
    #[diesel(sql_type = Integer)]
    skipped_count: i32,
}

impl VersionRow {
    fn version(self) -> Result<SourceVersion, StoreError> {
        let count = |n: i32| u32::try_from(n).map_err(|_| corrupt("entry count"));
        Ok(SourceVersion {
            id: parse_id(&self.version_id, "source version id")?,
            source: ListSource::parse(&self.source).ok_or_else(|| corrupt("list source"))?,
            digest: self.digest,
            published_at: self.published_at.map(time).transpose()?,
            imported_at: time(self.imported_at)?,
            entry_count: count(self.entry_count)?,
            skipped_count: count(self.skipped_count)?,
        })
    }
}

/// Makes `version_id` the active version of `source`.
fn activate(
    conn: &mut SqliteConnection,
    source: &str,
    version_id: &str,
    at: DateTime<Utc>,
) -> Result<(), TxError> {
    diesel::sql_query(
        "INSERT INTO sanctions_active_lists (source, version_id, activated_at) VALUES (?, ?, ?) \
         ON CONFLICT (source) DO UPDATE SET version_id = excluded.version_id, \
           activated_at = excluded.activated_at",
    )
    .bind::<Text, _>(source)
    .bind::<Text, _>(version_id)
    .bind::<BigInt, _>(micros(at))
    .execute(conn)?;
    Ok(())
}

#[async_trait]
impl SanctionsListStore for Database {
    async fn import_version(
        &self,
        version: &SourceVersion,
        entries: &[ListEntry],
    ) -> Result<ImportOutcome, StoreError> {
        let stored: Vec<(i32, String, String, String)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let json = serde_json::to_string(&StoredEntry::from_domain(e))
                    .map_err(|e| StoreError::Backend(e.to_string()))?;
                let ordinal =
                    i32::try_from(i).map_err(|_| StoreError::Backend("too many entries".into()))?;
                Ok((
                    ordinal,
                    e.source_entry_id.clone(),
                    e.kind.as_str().to_owned(),
                    json,
                ))
            })
            .collect::<Result<_, StoreError>>()?;
        let count =
            |n: u32| i32::try_from(n).map_err(|_| StoreError::Backend("count out of range".into()));
        let (entry_count, skipped_count) =
            (count(version.entry_count)?, count(version.skipped_count)?);
        let version = version.clone();
        self.write(move |conn| {
            let source = version.source.as_str();
            let id = version.id.to_string();
            let existing: Option<VersionRow> = diesel::sql_query(format!(
                "SELECT {VERSION_COLUMNS} FROM sanctions_source_versions v \
                 WHERE v.source = ? AND v.digest = ?"
            ))
            .bind::<Text, _>(source)
            .bind::<Text, _>(&version.digest)
            .get_result(conn)
            .optional()?;
            if let Some(row) = existing {
                let known = row.version()?;
                activate(conn, source, &known.id.to_string(), version.imported_at)?;
                return Ok(ImportOutcome::AlreadyStored(known));
            }
            diesel::sql_query(
                "INSERT INTO sanctions_source_versions (version_id, source, digest, published_at, \
                   imported_at, entry_count, skipped_count) VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(&id)
            .bind::<Text, _>(source)
            .bind::<Text, _>(&version.digest)
            .bind::<Nullable<BigInt>, _>(version.published_at.map(micros))
            .bind::<BigInt, _>(micros(version.imported_at))
            .bind::<Integer, _>(entry_count)
            .bind::<Integer, _>(skipped_count)
            .execute(conn)?;
            for (ordinal, entry_id, kind, json) in &stored {
                diesel::sql_query(
                    "INSERT INTO sanctions_entries (version_id, ordinal, source_entry_id, kind, \
                       entry) VALUES (?, ?, ?, ?, ?)",
                )
                .bind::<Text, _>(&id)
                .bind::<Integer, _>(*ordinal)
                .bind::<Text, _>(entry_id)
                .bind::<Text, _>(kind)
                .bind::<Text, _>(json)
                .execute(conn)?;
            }
            activate(conn, source, &id, version.imported_at)?;
            Ok(ImportOutcome::Stored(version))
        })
        .await
    }

    async fn record_failed_import(&self, failure: &FailedImport) -> Result<(), StoreError> {
        let failure = failure.clone();
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO sanctions_import_failures (source, attempted_at, reason) \
                 VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            )
            .bind::<Text, _>(failure.source.as_str())
            .bind::<BigInt, _>(micros(failure.attempted_at))
            .bind::<Text, _>(&failure.reason)
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn active_lists(&self) -> Result<Vec<ActiveList>, StoreError> {
        self.read(|conn| {
            #[derive(QueryableByName)]
            struct Active {
                #[diesel(embed)]
                version: VersionRow,
                #[diesel(sql_type = BigInt)]
                activated_at: i64,
            }
            #[derive(QueryableByName)]
            struct Failure {
                #[diesel(sql_type = BigInt)]
                attempted_at: i64,
                #[diesel(sql_type = Text)]
                reason: String,
            }
            let active: Vec<Active> = diesel::sql_query(format!(
                "SELECT {VERSION_COLUMNS}, a.activated_at FROM sanctions_active_lists a \
                 JOIN sanctions_source_versions v ON v.version_id = a.version_id ORDER BY a.source"
            ))
            .load(conn)?;
            let mut lists = Vec::with_capacity(active.len());
            for a in active {
                let version = a.version.version()?;
                // The latest import that failed since this version became active.
                let failed: Option<Failure> = diesel::sql_query(
                    "SELECT attempted_at, reason FROM sanctions_import_failures \
                     WHERE source = ? AND attempted_at > ? ORDER BY attempted_at DESC LIMIT 1",
                )
                .bind::<Text, _>(version.source.as_str())
                .bind::<BigInt, _>(a.activated_at)
                .get_result(conn)
                .optional()?;
                lists.push(ActiveList {
                    failed_since: failed
                        .map(|f| {
                            Ok::<_, StoreError>(FailedImport {
                                source: version.source,
                                attempted_at: time(f.attempted_at)?,
                                reason: f.reason,
                            })
                        })
                        .transpose()?,
                    version,
                    activated_at: time(a.activated_at)?,
                });
            }
            Ok(lists)
        })
        .await
    }

    async fn version_entries(&self, id: &SourceVersionId) -> Result<Vec<ListEntry>, StoreError> {
        let id = id.to_string();
        self.read(move |conn| {
            #[derive(QueryableByName)]
            struct Entry {
                #[diesel(sql_type = Text)]
                source_entry_id: String,
                #[diesel(sql_type = Text)]
                kind: String,
                #[diesel(sql_type = Text)]
                entry: String,
            }
            let rows: Vec<Entry> = diesel::sql_query(
                "SELECT source_entry_id, kind, entry FROM sanctions_entries \
                 WHERE version_id = ? ORDER BY ordinal",
            )
            .bind::<Text, _>(&id)
            .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|r| {
                    serde_json::from_str::<StoredEntry>(&r.entry)
                        .map_err(|_| corrupt("sanctions entry"))?
                        .into_domain(r.source_entry_id, &r.kind)
                })
                .collect::<Result<_, StoreError>>()?)
        })
        .await
    }
}
