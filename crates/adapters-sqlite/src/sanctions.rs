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
use domain::ids::ListChangeId;
use domain::screening::ports::SanctionsListStore;
use domain::screening::sanctions::{
    ActiveList, ClaimedListChange, FailedImport, ImportOutcome, ListChange, ListEntry, ListSource,
    RescreenCursor, SourceVersion, SourceVersionId,
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

/// Makes `version_id` the active version of `source`; when that changes the active version,
/// records the list change (or extends the list's change not yet begun), in the caller's
/// transaction.
fn activate(
    conn: &mut SqliteConnection,
    source: &str,
    version_id: &str,
    at: DateTime<Utc>,
) -> Result<(), TxError> {
    #[derive(QueryableByName)]
    struct Previous {
        #[diesel(sql_type = Text)]
        version_id: String,
    }
    let previous: Option<Previous> =
        diesel::sql_query("SELECT version_id FROM sanctions_active_lists WHERE source = ?")
            .bind::<Text, _>(source)
            .get_result(conn)
            .optional()?;
    let previous = previous.map(|p| p.version_id);
    diesel::sql_query(
        "INSERT INTO sanctions_active_lists (source, version_id, activated_at) VALUES (?, ?, ?) \
         ON CONFLICT (source) DO UPDATE SET version_id = excluded.version_id, \
           activated_at = excluded.activated_at",
    )
    .bind::<Text, _>(source)
    .bind::<Text, _>(version_id)
    .bind::<BigInt, _>(micros(at))
    .execute(conn)?;
    if previous.as_deref() == Some(version_id) {
        return Ok(());
    }
    let extended = diesel::sql_query(
        "UPDATE sanctions_list_changes SET to_version_id = ? WHERE source = ? \
         AND done_at IS NULL AND claimed_until IS NULL AND after_tenant_id IS NULL",
    )
    .bind::<Text, _>(version_id)
    .bind::<Text, _>(source)
    .execute(conn)?;
    if extended == 0 {
        diesel::sql_query(
            "INSERT INTO sanctions_list_changes (change_id, source, from_version_id, \
               to_version_id, activated_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind::<Text, _>(ListChangeId::generate().to_string())
        .bind::<Text, _>(source)
        .bind::<Nullable<Text>, _>(previous)
        .bind::<Text, _>(version_id)
        .bind::<BigInt, _>(micros(at))
        .execute(conn)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct ChangeRow {
    #[diesel(sql_type = Text)]
    change_id: String,
    #[diesel(sql_type = Text)]
    source: String,
    #[diesel(sql_type = Nullable<Text>)]
    from_version_id: Option<String>,
    #[diesel(sql_type = Text)]
    to_version_id: String,
    #[diesel(sql_type = BigInt)]
    activated_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    claimed_until: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    after_tenant_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    after_subscription_id: Option<String>,
}

impl ChangeRow {
    fn claimed(self, lease_until: DateTime<Utc>) -> Result<ClaimedListChange, StoreError> {
        let after = match (self.after_tenant_id, self.after_subscription_id) {
            (Some(t), Some(s)) => {
                Some((parse_id(&t, "tenant id")?, parse_id(&s, "subscription id")?))
            }
            _ => None,
        };
        Ok(ClaimedListChange {
            change: ListChange {
                id: parse_id(&self.change_id, "list change id")?,
                source: ListSource::parse(&self.source).ok_or_else(|| corrupt("list source"))?,
                from: self
                    .from_version_id
                    .map(|v| parse_id(&v, "source version id"))
                    .transpose()?,
                to: parse_id(&self.to_version_id, "source version id")?,
                activated_at: time(self.activated_at)?,
            },
            after,
            lease_until,
        })
    }
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

    async fn source_version(
        &self,
        id: &SourceVersionId,
    ) -> Result<Option<SourceVersion>, StoreError> {
        let id = id.to_string();
        self.read(move |conn| {
            let row: Option<VersionRow> = diesel::sql_query(format!(
                "SELECT {VERSION_COLUMNS} FROM sanctions_source_versions v WHERE v.version_id = ?"
            ))
            .bind::<Text, _>(&id)
            .get_result(conn)
            .optional()?;
            Ok(row.map(VersionRow::version).transpose()?)
        })
        .await
    }

    async fn claim_list_change(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<ClaimedListChange>, StoreError> {
        let lease_until = time(micros(lease_until))?;
        self.write(move |conn| {
            // The oldest change not done; the write transaction is the claim's lock.
            let row: Option<ChangeRow> = diesel::sql_query(
                "SELECT change_id, source, from_version_id, to_version_id, activated_at, \
                   claimed_until, after_tenant_id, after_subscription_id \
                 FROM sanctions_list_changes WHERE done_at IS NULL \
                 ORDER BY activated_at, change_id LIMIT 1",
            )
            .get_result(conn)
            .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            if row.claimed_until.is_some_and(|c| c > micros(now)) {
                return Ok(None);
            }
            diesel::sql_query(
                "UPDATE sanctions_list_changes SET claimed_until = ? WHERE change_id = ?",
            )
            .bind::<BigInt, _>(micros(lease_until))
            .bind::<Text, _>(&row.change_id)
            .execute(conn)?;
            Ok(Some(row.claimed(lease_until)?))
        })
        .await
    }

    async fn advance_list_change(
        &self,
        claim: &ClaimedListChange,
        after: Option<RescreenCursor>,
        lease_until: DateTime<Utc>,
        done_at: Option<DateTime<Utc>>,
    ) -> Result<bool, StoreError> {
        let id = claim.change.id.to_string();
        let held = micros(claim.lease_until);
        let (tenant, subscription) = match after {
            Some((t, s)) => (Some(t.to_string()), Some(s.to_string())),
            None => (None, None),
        };
        self.write(move |conn| {
            let moved = diesel::sql_query(
                "UPDATE sanctions_list_changes SET after_tenant_id = ?, after_subscription_id = ?, \
                   claimed_until = ?, done_at = ? \
                 WHERE change_id = ? AND claimed_until = ? AND done_at IS NULL",
            )
            .bind::<Nullable<Text>, _>(tenant)
            .bind::<Nullable<Text>, _>(subscription)
            .bind::<BigInt, _>(micros(lease_until))
            .bind::<Nullable<BigInt>, _>(done_at.map(micros))
            .bind::<Text, _>(&id)
            .bind::<BigInt, _>(held)
            .execute(conn)?;
            Ok(moved == 1)
        })
        .await
    }
}
