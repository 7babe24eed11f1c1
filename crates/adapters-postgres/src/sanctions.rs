//! `SanctionsListStore` on PostgreSQL: immutable list versions, the active version of each
//! list, failed imports. An import is one transaction (the version row, its entries in
//! batches, the active pointer), so a failure at any point leaves the previous version
//! active and no partial version behind.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::schema::{
    sanctions_active_lists, sanctions_entries, sanctions_import_failures, sanctions_list_changes,
    sanctions_source_versions,
};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, SubsecRound, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::error::StoreError;
use domain::ids::ListChangeId;
use domain::screening::ports::SanctionsListStore;
use domain::screening::sanctions::{
    ActiveList, ClaimedListChange, FailedImport, ImportOutcome, ListChange, ListEntry, ListSource,
    RescreenCursor, SourceVersion, SourceVersionId,
};
use storage_codec::sanctions::StoredEntry;

/// Entries written per statement (well under PostgreSQL's bind-parameter limit).
const ENTRY_BATCH: usize = 1000;

type VersionRow = (
    String,
    String,
    String,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
    i32,
    i32,
);

macro_rules! version_columns {
    () => {
        (
            sanctions_source_versions::version_id,
            sanctions_source_versions::source,
            sanctions_source_versions::digest,
            sanctions_source_versions::published_at,
            sanctions_source_versions::imported_at,
            sanctions_source_versions::entry_count,
            sanctions_source_versions::skipped_count,
        )
    };
}

fn version_of(r: VersionRow) -> Result<SourceVersion, StoreError> {
    let count = |n: i32| u32::try_from(n).map_err(|_| corrupt("entry count"));
    Ok(SourceVersion {
        id: parse_id(&r.0, "source version id")?,
        source: ListSource::parse(&r.1).ok_or_else(|| corrupt("list source"))?,
        digest: r.2,
        published_at: r.3,
        imported_at: r.4,
        entry_count: count(r.5)?,
        skipped_count: count(r.6)?,
    })
}

/// Makes `version_id` the active version of `source`; when that changes the active version,
/// records the list change (or extends the list's change not yet begun), in the caller's
/// transaction.
async fn activate(
    conn: &mut AsyncPgConnection,
    source: &str,
    version_id: &str,
    at: DateTime<Utc>,
) -> Result<(), TxError> {
    let previous: Option<String> = sanctions_active_lists::table
        .find(source)
        .select(sanctions_active_lists::version_id)
        .for_update()
        .first(conn)
        .await
        .optional()?;
    diesel::insert_into(sanctions_active_lists::table)
        .values((
            sanctions_active_lists::source.eq(source),
            sanctions_active_lists::version_id.eq(version_id),
            sanctions_active_lists::activated_at.eq(at),
        ))
        .on_conflict(sanctions_active_lists::source)
        .do_update()
        .set((
            sanctions_active_lists::version_id.eq(excluded(sanctions_active_lists::version_id)),
            sanctions_active_lists::activated_at.eq(excluded(sanctions_active_lists::activated_at)),
        ))
        .execute(conn)
        .await?;
    if previous.as_deref() == Some(version_id) {
        return Ok(());
    }
    let extended = diesel::update(
        sanctions_list_changes::table
            .filter(sanctions_list_changes::source.eq(source))
            .filter(sanctions_list_changes::done_at.is_null())
            .filter(sanctions_list_changes::claimed_until.is_null())
            .filter(sanctions_list_changes::after_tenant_id.is_null()),
    )
    .set(sanctions_list_changes::to_version_id.eq(version_id))
    .execute(conn)
    .await?;
    if extended == 0 {
        diesel::insert_into(sanctions_list_changes::table)
            .values((
                sanctions_list_changes::change_id.eq(ListChangeId::generate().to_string()),
                sanctions_list_changes::source.eq(source),
                sanctions_list_changes::from_version_id.eq(previous),
                sanctions_list_changes::to_version_id.eq(version_id),
                sanctions_list_changes::activated_at.eq(at),
            ))
            .execute(conn)
            .await?;
    }
    Ok(())
}

type ChangeRow = (
    String,
    String,
    Option<String>,
    String,
    DateTime<Utc>,
    Option<String>,
    Option<String>,
);

fn claimed_of(r: ChangeRow, lease_until: DateTime<Utc>) -> Result<ClaimedListChange, StoreError> {
    let after = match (r.5, r.6) {
        (Some(t), Some(s)) => Some((parse_id(&t, "tenant id")?, parse_id(&s, "subscription id")?)),
        _ => None,
    };
    Ok(ClaimedListChange {
        change: ListChange {
            id: parse_id(&r.0, "list change id")?,
            source: ListSource::parse(&r.1).ok_or_else(|| corrupt("list source"))?,
            from: r.2.map(|v| parse_id(&v, "source version id")).transpose()?,
            to: parse_id(&r.3, "source version id")?,
            activated_at: r.4,
        },
        after,
        lease_until,
    })
}

#[async_trait]
impl SanctionsListStore for Database {
    async fn import_version(
        &self,
        version: &SourceVersion,
        entries: &[ListEntry],
    ) -> Result<ImportOutcome, StoreError> {
        let source = version.source.as_str();
        let stored: Vec<(i32, String, String, serde_json::Value)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let json = serde_json::to_value(StoredEntry::from_domain(e))
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
        let id = version.id.to_string();
        let mut conn = self.conn().await?;
        let outcome = conn
            .transaction(async |conn| -> Result<ImportOutcome, TxError> {
                let existing: Option<VersionRow> = sanctions_source_versions::table
                    .filter(sanctions_source_versions::source.eq(source))
                    .filter(sanctions_source_versions::digest.eq(&version.digest))
                    .select(version_columns!())
                    .first(conn)
                    .await
                    .optional()?;
                if let Some(row) = existing {
                    let known = version_of(row)?;
                    activate(conn, source, &known.id.to_string(), version.imported_at).await?;
                    return Ok(ImportOutcome::AlreadyStored(known));
                }
                diesel::insert_into(sanctions_source_versions::table)
                    .values((
                        sanctions_source_versions::version_id.eq(&id),
                        sanctions_source_versions::source.eq(source),
                        sanctions_source_versions::digest.eq(&version.digest),
                        sanctions_source_versions::published_at.eq(version.published_at),
                        sanctions_source_versions::imported_at.eq(version.imported_at),
                        sanctions_source_versions::entry_count.eq(entry_count),
                        sanctions_source_versions::skipped_count.eq(skipped_count),
                    ))
                    .execute(conn)
                    .await?;
                for batch in stored.chunks(ENTRY_BATCH) {
                    let rows: Vec<_> = batch
                        .iter()
                        .map(|(ordinal, entry_id, kind, json)| {
                            (
                                sanctions_entries::version_id.eq(&id),
                                sanctions_entries::ordinal.eq(*ordinal),
                                sanctions_entries::source_entry_id.eq(entry_id),
                                sanctions_entries::kind.eq(kind),
                                sanctions_entries::entry.eq(json),
                            )
                        })
                        .collect();
                    diesel::insert_into(sanctions_entries::table)
                        .values(rows)
                        .execute(conn)
                        .await?;
                }
                activate(conn, source, &id, version.imported_at).await?;
                Ok(ImportOutcome::Stored(version.clone()))
            })
            .await?;
        Ok(outcome)
    }

    async fn record_failed_import(&self, failure: &FailedImport) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(sanctions_import_failures::table)
            .values((
                sanctions_import_failures::source.eq(failure.source.as_str()),
                sanctions_import_failures::attempted_at.eq(failure.attempted_at),
                sanctions_import_failures::reason.eq(&failure.reason),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn active_lists(&self) -> Result<Vec<ActiveList>, StoreError> {
        let mut conn = self.conn().await?;
        // One statement (every check reads it): each active version joined to the imports
        // that failed since it became active, newest first; the first row of a list carries
        // its latest failure.
        let rows: Vec<(VersionRow, DateTime<Utc>, Option<(DateTime<Utc>, String)>)> =
            sanctions_active_lists::table
                .inner_join(sanctions_source_versions::table.on(
                    sanctions_source_versions::version_id.eq(sanctions_active_lists::version_id),
                ))
                .left_join(
                    sanctions_import_failures::table.on(sanctions_import_failures::source
                        .eq(sanctions_active_lists::source)
                        .and(
                            sanctions_import_failures::attempted_at
                                .gt(sanctions_active_lists::activated_at),
                        )),
                )
                .select((
                    version_columns!(),
                    sanctions_active_lists::activated_at,
                    (
                        sanctions_import_failures::attempted_at,
                        sanctions_import_failures::reason,
                    )
                        .nullable(),
                ))
                .order((
                    sanctions_active_lists::source,
                    sanctions_import_failures::attempted_at.desc(),
                ))
                .load(&mut conn)
                .await
                .map_err(backend)?;
        let mut lists: Vec<ActiveList> = Vec::with_capacity(rows.len());
        for (row, activated_at, failed) in rows {
            let version = version_of(row)?;
            if lists
                .last()
                .is_some_and(|l| l.version.source == version.source)
            {
                continue;
            }
            lists.push(ActiveList {
                failed_since: failed.map(|(attempted_at, reason)| FailedImport {
                    source: version.source,
                    attempted_at,
                    reason,
                }),
                version,
                activated_at,
            });
        }
        Ok(lists)
    }

    async fn version_entries(&self, id: &SourceVersionId) -> Result<Vec<ListEntry>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(String, String, serde_json::Value)> = sanctions_entries::table
            .filter(sanctions_entries::version_id.eq(id.to_string()))
            .order(sanctions_entries::ordinal)
            .select((
                sanctions_entries::source_entry_id,
                sanctions_entries::kind,
                sanctions_entries::entry,
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter()
            .map(|(entry_id, kind, json)| {
                serde_json::from_value::<StoredEntry>(json)
                    .map_err(|_| corrupt("sanctions entry"))?
                    .into_domain(entry_id, &kind)
            })
            .collect()
    }

    async fn source_version(
        &self,
        id: &SourceVersionId,
    ) -> Result<Option<SourceVersion>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<VersionRow> = sanctions_source_versions::table
            .find(id.to_string())
            .select(version_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(version_of).transpose()
    }

    async fn claim_list_change(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<ClaimedListChange>, StoreError> {
        // Kept as stored (microseconds), so a later advance compares it exactly.
        let lease_until = lease_until.trunc_subsecs(6);
        let mut conn = self.conn().await?;
        let claimed = conn
            .transaction(async |conn| -> Result<Option<ClaimedListChange>, TxError> {
                // The oldest change not done, locked: of two replicas, one claims it and the
                // other waits for the lock and then sees the lease.
                let row: Option<(ChangeRow, Option<DateTime<Utc>>)> = sanctions_list_changes::table
                    .filter(sanctions_list_changes::done_at.is_null())
                    .order((
                        sanctions_list_changes::activated_at,
                        sanctions_list_changes::change_id,
                    ))
                    .select((
                        (
                            sanctions_list_changes::change_id,
                            sanctions_list_changes::source,
                            sanctions_list_changes::from_version_id,
                            sanctions_list_changes::to_version_id,
                            sanctions_list_changes::activated_at,
                            sanctions_list_changes::after_tenant_id,
                            sanctions_list_changes::after_subscription_id,
                        ),
                        sanctions_list_changes::claimed_until,
                    ))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some((row, claimed_until)) = row else {
                    return Ok(None);
                };
                if claimed_until.is_some_and(|c| c > now) {
                    return Ok(None);
                }
                diesel::update(sanctions_list_changes::table.find(&row.0))
                    .set(sanctions_list_changes::claimed_until.eq(lease_until))
                    .execute(conn)
                    .await?;
                Ok(Some(claimed_of(row, lease_until)?))
            })
            .await?;
        Ok(claimed)
    }

    async fn advance_list_change(
        &self,
        claim: &ClaimedListChange,
        after: Option<RescreenCursor>,
        lease_until: DateTime<Utc>,
        done_at: Option<DateTime<Utc>>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant, subscription) = match after {
            Some((t, s)) => (Some(t.to_string()), Some(s.to_string())),
            None => (None, None),
        };
        let moved = diesel::update(
            sanctions_list_changes::table
                .find(claim.change.id.to_string())
                .filter(sanctions_list_changes::claimed_until.eq(claim.lease_until))
                .filter(sanctions_list_changes::done_at.is_null()),
        )
        .set((
            sanctions_list_changes::after_tenant_id.eq(tenant),
            sanctions_list_changes::after_subscription_id.eq(subscription),
            sanctions_list_changes::claimed_until.eq(lease_until),
            sanctions_list_changes::done_at.eq(done_at),
        ))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(moved == 1)
    }
}
