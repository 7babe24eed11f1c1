//! `SubjectStore` on PostgreSQL.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::schema::{call_records, customer_refs, subject_identifiers, subjects, subscriptions};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{IdentifierRef, SubjectId, TenantId};
use domain::subjects::identifier::{IdentifierType, SubjectKind};
use domain::subjects::merge::SubjectMerge;
use domain::subjects::ports::SubjectStore;
use domain::subjects::subject::{
    CustomerRef, FirstSighting, FreshSubject, IdentifierHolder, ProtectedIdentifier, Resolution,
    SubjectHandle, SubjectIdentifier, SubjectRecord,
};

/// A lock key for one identifier of one tenant: resolvers of the same identifier queue up,
/// so two concurrent first sightings cannot create two subjects.
fn identifier_lock_key(tenant: &str, blind_index: &[u8]) -> i64 {
    // FNV-1a over tenant and index; collisions only serialise unrelated resolves.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in tenant.as_bytes().iter().chain(blind_index) {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as i64
}

/// The subject `id` names (its canonical one, a merge followed) with its identifiers,
/// references, aliases and evidence, read on `conn` (within one snapshot: see
/// `SubjectStore::subject`).
async fn read_subject(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    id: &str,
) -> Result<SubjectRecord, StoreError> {
    let tenant_id = tenant_id.to_owned();
    let subject_id = canonical_of(conn, &tenant_id, id).await?;
    let (kind, created_at, call_ref): (String, DateTime<Utc>, String) = subjects::table
        .find((&tenant_id, &subject_id))
        .select((subjects::kind, subjects::created_at, subjects::call_ref))
        .first(conn)
        .await
        .map_err(backend)?;
    type IdentifierRow = (String, String, String, DateTime<Utc>, Option<DateTime<Utc>>);
    let identifier_rows: Vec<IdentifierRow> = subject_identifiers::table
        .filter(subject_identifiers::tenant_id.eq(&tenant_id))
        .filter(subject_identifiers::subject_id.eq(&subject_id))
        .order((
            subject_identifiers::valid_from,
            subject_identifiers::identifier_ref,
        ))
        .select((
            subject_identifiers::identifier_ref,
            subject_identifiers::id_type,
            subject_identifiers::country,
            subject_identifiers::valid_from,
            subject_identifiers::valid_to,
        ))
        .load(conn)
        .await
        .map_err(backend)?;
    let identifiers = identifier_rows
        .into_iter()
        .map(|(r, t, c, from, to)| {
            Ok(SubjectIdentifier {
                identifier_ref: parse_id(&r, "identifier ref")?,
                id_type: IdentifierType::parse(&t).ok_or_else(|| corrupt("identifier type"))?,
                country: Country::from_code(&c).ok_or_else(|| corrupt("country"))?,
                valid_from: from,
                valid_to: to,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let refs: Vec<(String, DateTime<Utc>)> = customer_refs::table
        .filter(customer_refs::tenant_id.eq(&tenant_id))
        .filter(customer_refs::subject_id.eq(&subject_id))
        .order((customer_refs::created_at, customer_refs::ref_))
        .select((customer_refs::ref_, customer_refs::created_at))
        .load(conn)
        .await
        .map_err(backend)?;
    type CallRow = (
        String,
        DateTime<Utc>,
        Option<String>,
        Option<String>,
        Option<String>,
        DateTime<Utc>,
    );
    let call: CallRow = call_records::table
        .find((&tenant_id, &call_ref))
        .select((
            call_records::source,
            call_records::source_timestamp,
            call_records::upstream_ref,
            call_records::digest,
            call_records::schema_version,
            call_records::retrieved_at,
        ))
        .first(conn)
        .await
        .map_err(backend)?;
    Ok(SubjectRecord {
        subject_id: parse_id(&subject_id, "subject id")?,
        kind: SubjectKind::parse(&kind).ok_or_else(|| corrupt("subject kind"))?,
        created_at,
        identifiers,
        refs: refs
            .into_iter()
            .map(|(value, created_at)| CustomerRef { value, created_at })
            .collect(),
        aliases: aliases_of(conn, &tenant_id, &subject_id).await?,
        evidence: Evidence {
            source: EvidenceSource::parse(&call.0).ok_or_else(|| corrupt("evidence source"))?,
            source_timestamp: call.1,
            call_ref: parse_id(&call_ref, "call ref")?,
            upstream_ref: call.2,
            digest: call.3,
            schema_version: call.4,
            retrieved_at: call.5,
        },
    })
}

/// Follows a merge one hop: the canonical id of `subject_id`.
async fn canonical_of(
    conn: &mut AsyncPgConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<String, StoreError> {
    let merged: Option<String> = subjects::table
        .find((tenant, subject_id))
        .select(subjects::merged_into)
        .first(conn)
        .await
        .map_err(backend)?;
    Ok(merged.unwrap_or_else(|| subject_id.to_owned()))
}

/// The canonical id of `subject_id`, its row locked (`FOR KEY SHARE`) for the caller's
/// transaction: a merge of it (which locks it `FOR UPDATE`) waits until the caller commits,
/// and one committed meanwhile is followed. A row written in the transaction under that id
/// therefore names the canonical id as of the commit, and a merge moving the subject's rows
/// sees it.
pub(crate) async fn lock_canonical(
    conn: &mut AsyncPgConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<String, TxError> {
    let mut current = subject_id.to_owned();
    // One hop but for a merge racing the read; a chain never grows longer than a few.
    for _ in 0..8 {
        let merged: Option<String> = subjects::table
            .find((tenant, &current))
            .select(subjects::merged_into)
            .for_key_share()
            .first(conn)
            .await?;
        match merged {
            None => return Ok(current),
            Some(next) => current = next,
        }
    }
    Err(TxError(StoreError::Backend(
        "subject merge chain does not end".into(),
    )))
}

/// Tables whose rows name a subject and follow it when it is merged: the tenant's cache and
/// its records of what it was handed. (Subscriptions move apart, as a move can clash;
/// screening checks are append-only and resolve through the alias when read; the event
/// log keeps what it recorded, rendered under the canonical id when read.)
const FOLLOWING_TABLES: [&str; 5] = [
    "company_profiles",
    "company_documents",
    "paid_objects",
    "person_profiles",
    "screening_whitelist_entries",
];

async fn aliases_of(
    conn: &mut AsyncPgConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<Vec<SubjectId>, StoreError> {
    let ids: Vec<String> = subjects::table
        .filter(subjects::tenant_id.eq(tenant))
        .filter(subjects::merged_into.eq(subject_id))
        .order(subjects::subject_id)
        .select(subjects::subject_id)
        .load(conn)
        .await
        .map_err(backend)?;
    ids.iter().map(|i| parse_id(i, "subject id")).collect()
}

/// The canonical id of a subject (one merge hop followed) and its aliases.
pub(crate) async fn handle_of(
    conn: &mut AsyncPgConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<SubjectHandle, StoreError> {
    let canonical = canonical_of(conn, tenant, subject_id).await?;
    Ok(SubjectHandle {
        aliases: aliases_of(conn, tenant, &canonical).await?,
        subject_id: parse_id(&canonical, "subject id")?,
    })
}

#[async_trait]
impl SubjectStore for Database {
    async fn merge_subjects(
        &self,
        tenant: &TenantId,
        merge: &SubjectMerge,
    ) -> Result<(), StoreError> {
        let tenant_id = tenant.to_string();
        let (from, into) = (merge.from.to_string(), merge.into.to_string());
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| -> Result<(), TxError> {
            // Both subjects, locked for the merge, in a fixed order (no deadlock with a merge
            // the other way round). A write that names either subject (a new subscription)
            // waits for the merge and then follows it (`lock_canonical`).
            let mut pair = [from.as_str(), into.as_str()];
            pair.sort_unstable();
            let found: Vec<String> = subjects::table
                .filter(subjects::tenant_id.eq(&tenant_id))
                .filter(subjects::subject_id.eq_any(pair))
                .order(subjects::subject_id)
                .select(subjects::subject_id)
                .for_update()
                .load(conn)
                .await?;
            if found.len() != 2 {
                return Err(TxError(StoreError::NotFound));
            }
            // `from` and whatever was merged into it point at `into`: one hop.
            diesel::update(
                subjects::table
                    .filter(subjects::tenant_id.eq(&tenant_id))
                    .filter(
                        subjects::subject_id
                            .eq(&from)
                            .or(subjects::merged_into.eq(&from)),
                    ),
            )
            .set(subjects::merged_into.eq(&into))
            .execute(conn)
            .await?;
            diesel::update(
                subject_identifiers::table
                    .filter(subject_identifiers::tenant_id.eq(&tenant_id))
                    .filter(subject_identifiers::subject_id.eq(&from)),
            )
            .set(subject_identifiers::subject_id.eq(&into))
            .execute(conn)
            .await?;
            diesel::update(
                customer_refs::table
                    .filter(customer_refs::tenant_id.eq(&tenant_id))
                    .filter(customer_refs::subject_id.eq(&from)),
            )
            .set(customer_refs::subject_id.eq(&into))
            .execute(conn)
            .await?;

            // The subscriptions that end with the merge (one that ended meanwhile stays as
            // it is, and logs nothing more).
            let mut events = vec![merge.event.clone()];
            for (ended, event) in &merge.ended {
                let n = diesel::update(
                    subscriptions::table
                        .find((&tenant_id, ended.id.to_string()))
                        .filter(subscriptions::status.ne("ended")),
                )
                .set((
                    subscriptions::status.eq("ended"),
                    subscriptions::ended_at.eq(ended.ended_at),
                    subscriptions::purge_after.eq(ended.purge_after),
                    subscriptions::next_run_at.eq(None::<DateTime<Utc>>),
                    subscriptions::claimed_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
                if n == 1 {
                    events.push(event.clone());
                }
            }
            // Every row naming one of the merged ids now names `into` (rows of an older
            // merge that still name an alias are caught up too).
            let moved = diesel::sql_query(
                "UPDATE subscriptions SET subject_id = $2 WHERE tenant_id = $1 AND subject_id IN \
                 (SELECT subject_id FROM subjects WHERE tenant_id = $1 AND merged_into = $2)",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&into)
            .execute(conn)
            .await;
            crate::convert::one_unended_per_subject(moved)?;
            for table in FOLLOWING_TABLES {
                diesel::sql_query(format!(
                    "UPDATE {table} SET subject_id = $2 WHERE tenant_id = $1 AND subject_id IN \
                     (SELECT subject_id FROM subjects WHERE tenant_id = $1 AND merged_into = $2)"
                ))
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&into)
                .execute(conn)
                .await?;
            }
            crate::events::append_within(conn, &tenant_id, &events).await?;
            Ok(())
        })
        .await?;
        Ok(())
    }

    async fn resolve_or_create_subject<'a>(
        &self,
        tenant: &TenantId,
        identifier: &ProtectedIdentifier,
        customer_ref: Option<&'a str>,
        fresh: &FreshSubject,
    ) -> Result<Resolution, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let lock_key = identifier_lock_key(&tenant_id, &identifier.blind_index.0);
        conn.transaction(async |conn| -> Result<Resolution, TxError> {
            diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                .bind::<BigInt, _>(lock_key)
                .execute(conn)
                .await?;
            let existing: Option<(String, String)> = subject_identifiers::table
                .filter(subject_identifiers::tenant_id.eq(&tenant_id))
                .filter(subject_identifiers::blind_index.eq(&identifier.blind_index.0))
                .select((
                    subject_identifiers::subject_id,
                    subject_identifiers::identifier_ref,
                ))
                .first(conn)
                .await
                .optional()?;
            let (subject_id, identifier_ref, created) = match existing {
                Some((subject_id, identifier_ref)) => (
                    canonical_of(conn, &tenant_id, &subject_id).await?,
                    identifier_ref,
                    false,
                ),
                None => {
                    let subject_id = fresh.subject_id.to_string();
                    let identifier_ref = fresh.identifier_ref.to_string();
                    let call_ref = fresh.sighting.call_ref().to_string();
                    if let FirstSighting::ConsumerIdentity { route, .. } = &fresh.sighting {
                        diesel::insert_into(call_records::table)
                            .values((
                                call_records::tenant_id.eq(&tenant_id),
                                call_records::call_ref.eq(&call_ref),
                                call_records::source
                                    .eq(EvidenceSource::CUSTOMER_IDENTITY_EVENT.as_str()),
                                call_records::route.eq(*route),
                                call_records::schema_version.eq(domain::evidence::SCHEMA_VERSION),
                                call_records::source_timestamp.eq(fresh.at),
                                call_records::retrieved_at.eq(fresh.at),
                            ))
                            .execute(conn)
                            .await?;
                    }
                    diesel::insert_into(subjects::table)
                        .values((
                            subjects::tenant_id.eq(&tenant_id),
                            subjects::subject_id.eq(&subject_id),
                            subjects::kind.eq(fresh.kind.as_str()),
                            subjects::call_ref.eq(&call_ref),
                            subjects::created_at.eq(fresh.at),
                        ))
                        .execute(conn)
                        .await?;
                    diesel::insert_into(subject_identifiers::table)
                        .values((
                            subject_identifiers::tenant_id.eq(&tenant_id),
                            subject_identifiers::identifier_ref.eq(&identifier_ref),
                            subject_identifiers::subject_id.eq(&subject_id),
                            subject_identifiers::id_type.eq(identifier.id_type.as_str()),
                            subject_identifiers::country.eq(identifier.country.code()),
                            subject_identifiers::blind_index.eq(&identifier.blind_index.0),
                            subject_identifiers::sealed_value.eq(&identifier.sealed),
                            subject_identifiers::valid_from.eq(fresh.at),
                        ))
                        .execute(conn)
                        .await?;
                    (subject_id, identifier_ref, true)
                }
            };

            if let Some(reference) = customer_ref {
                diesel::insert_into(customer_refs::table)
                    .values((
                        customer_refs::tenant_id.eq(&tenant_id),
                        customer_refs::ref_.eq(reference),
                        customer_refs::subject_id.eq(&subject_id),
                        customer_refs::created_at.eq(fresh.at),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                let owner: String = customer_refs::table
                    .find((&tenant_id, reference))
                    .select(customer_refs::subject_id)
                    .first(conn)
                    .await?;
                if canonical_of(conn, &tenant_id, &owner).await? != subject_id {
                    // Rolls back the whole transaction: a subject created above is undone.
                    return Err(StoreError::RefConflict.into());
                }
            }

            Ok(Resolution {
                aliases: aliases_of(conn, &tenant_id, &subject_id).await?,
                subject_id: parse_id(&subject_id, "subject id")?,
                identifier_ref: parse_id(&identifier_ref, "identifier ref")?,
                created,
            })
        })
        .await
        .map_err(StoreError::from)
    }

    async fn subject(
        &self,
        tenant: &TenantId,
        id: &SubjectId,
    ) -> Result<SubjectRecord, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        // One snapshot for the several reads: a merge committing between them would otherwise
        // give the canonical id before the merge and its identifiers after (none).
        conn.build_transaction()
            .repeatable_read()
            .read_only()
            .run(async |conn| -> Result<SubjectRecord, TxError> {
                Ok(read_subject(conn, &tenant_id, &id).await?)
            })
            .await
            .map_err(StoreError::from)
    }

    async fn identifier_holder(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<IdentifierHolder>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let row: Option<(String, String, String, Vec<u8>, String)> = subject_identifiers::table
            .inner_join(
                subjects::table.on(subjects::tenant_id
                    .eq(subject_identifiers::tenant_id)
                    .and(subjects::subject_id.eq(subject_identifiers::subject_id))),
            )
            .filter(subject_identifiers::tenant_id.eq(&tenant_id))
            .filter(subject_identifiers::identifier_ref.eq(identifier_ref.to_string()))
            .select((
                subject_identifiers::subject_id,
                subject_identifiers::id_type,
                subject_identifiers::country,
                subject_identifiers::sealed_value,
                subjects::kind,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        let Some((subject_id, id_type, country, sealed, kind)) = row else {
            return Ok(None);
        };
        Ok(Some(IdentifierHolder {
            subject: handle_of(&mut conn, &tenant_id, &subject_id).await?,
            kind: SubjectKind::parse(&kind).ok_or_else(|| corrupt("subject kind"))?,
            id_type: IdentifierType::parse(&id_type).ok_or_else(|| corrupt("identifier type"))?,
            country: Country::from_code(&country).ok_or_else(|| corrupt("country"))?,
            sealed,
        }))
    }
}
