//! `SubjectStore` on SQLite. A first sighting and a merge each run in one write transaction,
//! which holds the store's write lock throughout: two resolves of one new identifier cannot
//! both create it, and no write naming a subject interleaves with its merge.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::schema::{call_records, customer_refs, subject_identifiers, subjects};
use crate::subject_ids::aliases_query;
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::SqliteConnection;
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

/// Tables whose rows name a subject and follow it when it is merged (as in PostgreSQL: the
/// tenant's cache and its records of what it was handed; subscriptions move apart, screening
/// checks are append-only, the event log keeps what it recorded).
const FOLLOWING_TABLES: [&str; 5] = [
    "company_profiles",
    "company_documents",
    "paid_objects",
    "person_profiles",
    "screening_whitelist_entries",
];

/// Follows a merge one hop: the canonical id of `subject_id`.
pub(crate) fn canonical_of(
    conn: &mut SqliteConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<String, TxError> {
    let merged: Option<String> = subjects::table
        .find((tenant, subject_id))
        .select(subjects::merged_into)
        .first(conn)?;
    Ok(merged.unwrap_or_else(|| subject_id.to_owned()))
}

pub(crate) fn aliases_of(
    conn: &mut SqliteConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<Vec<SubjectId>, TxError> {
    let ids: Vec<String> = aliases_query(tenant, subject_id).load(conn)?;
    Ok(ids
        .iter()
        .map(|i| parse_id(i, "subject id"))
        .collect::<Result<_, _>>()?)
}

/// The canonical id of a subject (one merge hop followed) and its aliases.
pub(crate) fn handle_of(
    conn: &mut SqliteConnection,
    tenant: &str,
    subject_id: &str,
) -> Result<SubjectHandle, TxError> {
    let canonical = canonical_of(conn, tenant, subject_id)?;
    Ok(SubjectHandle {
        aliases: aliases_of(conn, tenant, &canonical)?,
        subject_id: parse_id(&canonical, "subject id")?,
    })
}

fn read_subject(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<SubjectRecord, TxError> {
    let subject_id = canonical_of(conn, tenant_id, id)?;
    let (kind, created_at, call_ref): (String, i64, String) = subjects::table
        .find((tenant_id, &subject_id))
        .select((subjects::kind, subjects::created_at, subjects::call_ref))
        .first(conn)?;
    let identifier_rows: Vec<(String, String, String, i64, Option<i64>)> =
        subject_identifiers::table
            .filter(subject_identifiers::tenant_id.eq(tenant_id))
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
            .load(conn)?;
    let identifiers = identifier_rows
        .into_iter()
        .map(|(r, t, c, from, to)| {
            Ok(SubjectIdentifier {
                identifier_ref: parse_id(&r, "identifier ref")?,
                id_type: IdentifierType::parse(&t).ok_or_else(|| corrupt("identifier type"))?,
                country: Country::from_code(&c).ok_or_else(|| corrupt("country"))?,
                valid_from: time(from)?,
                valid_to: to.map(time).transpose()?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let refs: Vec<(String, i64)> = customer_refs::table
        .filter(customer_refs::tenant_id.eq(tenant_id))
        .filter(customer_refs::subject_id.eq(&subject_id))
        .order((customer_refs::created_at, customer_refs::ref_))
        .select((customer_refs::ref_, customer_refs::created_at))
        .load(conn)?;
    let call: (
        String,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        i64,
    ) = call_records::table
        .find((tenant_id, &call_ref))
        .select((
            call_records::source,
            call_records::source_timestamp,
            call_records::upstream_ref,
            call_records::digest,
            call_records::schema_version,
            call_records::retrieved_at,
        ))
        .first(conn)?;
    Ok(SubjectRecord {
        subject_id: parse_id(&subject_id, "subject id")?,
        kind: SubjectKind::parse(&kind).ok_or_else(|| corrupt("subject kind"))?,
        created_at: time(created_at)?,
        identifiers,
        refs: refs
            .into_iter()
            .map(|(value, created_at)| {
                Ok(CustomerRef {
                    value,
                    created_at: time(created_at)?,
                })
            })
            .collect::<Result<_, StoreError>>()?,
        aliases: aliases_of(conn, tenant_id, &subject_id)?,
        evidence: Evidence {
            source: EvidenceSource::parse(&call.0).ok_or_else(|| corrupt("evidence source"))?,
            source_timestamp: time(call.1)?,
            call_ref: parse_id(&call_ref, "call ref")?,
            upstream_ref: call.2,
            digest: call.3,
            schema_version: call.4,
            retrieved_at: time(call.5)?,
        },
    })
}

#[async_trait]
impl SubjectStore for Database {
    async fn merge_subjects(
        &self,
        tenant: &TenantId,
        merge: &SubjectMerge,
    ) -> Result<(), StoreError> {
        let (tenant_id, merge) = (tenant.to_string(), merge.clone());
        self.write(move |conn| {
            let (from, into) = (merge.from.to_string(), merge.into.to_string());
            let found: i64 = subjects::table
                .filter(subjects::tenant_id.eq(&tenant_id))
                .filter(subjects::subject_id.eq_any([&from, &into]))
                .count()
                .get_result(conn)?;
            if found != 2 {
                return Err(StoreError::NotFound.into());
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
            .execute(conn)?;
            diesel::update(
                subject_identifiers::table
                    .filter(subject_identifiers::tenant_id.eq(&tenant_id))
                    .filter(subject_identifiers::subject_id.eq(&from)),
            )
            .set(subject_identifiers::subject_id.eq(&into))
            .execute(conn)?;
            diesel::update(
                customer_refs::table
                    .filter(customer_refs::tenant_id.eq(&tenant_id))
                    .filter(customer_refs::subject_id.eq(&from)),
            )
            .set(customer_refs::subject_id.eq(&into))
            .execute(conn)?;
            // The subscriptions that end with the merge (one that ended meanwhile stays as it
            // is, and logs nothing more).
            let mut events = vec![merge.event.clone()];
            for (ended, event) in &merge.ended {
                let n = diesel::sql_query(
                    "UPDATE subscriptions SET status = 'ended', ended_at = ?, purge_after = ?, \
                     next_run_at = NULL, claimed_until = NULL \
                     WHERE tenant_id = ? AND subscription_id = ? AND status <> 'ended'",
                )
                .bind::<Nullable<BigInt>, _>(ended.ended_at.map(micros))
                .bind::<Nullable<BigInt>, _>(ended.purge_after.map(micros))
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(ended.id.to_string())
                .execute(conn)?;
                if n == 1 {
                    events.push(event.clone());
                }
            }
            // Every row naming one of the merged ids now names `into` (rows of an older
            // merge that still name an alias are caught up too).
            let moved = diesel::sql_query(
                "UPDATE subscriptions SET subject_id = ?2 WHERE tenant_id = ?1 AND subject_id IN \
                 (SELECT subject_id FROM subjects WHERE tenant_id = ?1 AND merged_into = ?2)",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&into)
            .execute(conn);
            match moved {
                Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                    return Err(StoreError::SubscriptionExists.into())
                }
                other => {
                    other?;
                }
            }
            for table in FOLLOWING_TABLES {
                diesel::sql_query(format!(
                    "UPDATE {table} SET subject_id = ?2 WHERE tenant_id = ?1 AND subject_id IN \
                     (SELECT subject_id FROM subjects WHERE tenant_id = ?1 AND merged_into = ?2)"
                ))
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&into)
                .execute(conn)?;
            }
            crate::events::append_within(conn, &tenant_id, &events)?;
            Ok(())
        })
        .await
    }

    async fn resolve_or_create_subject<'a>(
        &self,
        tenant: &TenantId,
        identifier: &ProtectedIdentifier,
        customer_ref: Option<&'a str>,
        fresh: &FreshSubject,
    ) -> Result<Resolution, StoreError> {
        let tenant_id = tenant.to_string();
        let (identifier, fresh) = (identifier.clone(), fresh.clone());
        let customer_ref = customer_ref.map(str::to_owned);
        self.write(move |conn| {
            let existing: Option<(String, String)> = subject_identifiers::table
                .filter(subject_identifiers::tenant_id.eq(&tenant_id))
                .filter(subject_identifiers::blind_index.eq(&identifier.blind_index.0))
                .select((
                    subject_identifiers::subject_id,
                    subject_identifiers::identifier_ref,
                ))
                .first(conn)
                .optional()?;
            let (subject_id, identifier_ref, created) = match existing {
                Some((subject_id, identifier_ref)) => (
                    canonical_of(conn, &tenant_id, &subject_id)?,
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
                                call_records::source_timestamp.eq(micros(fresh.at)),
                                call_records::retrieved_at.eq(micros(fresh.at)),
                            ))
                            .execute(conn)?;
                    }
                    diesel::insert_into(subjects::table)
                        .values((
                            subjects::tenant_id.eq(&tenant_id),
                            subjects::subject_id.eq(&subject_id),
                            subjects::kind.eq(fresh.kind.as_str()),
                            subjects::call_ref.eq(&call_ref),
                            subjects::created_at.eq(micros(fresh.at)),
                        ))
                        .execute(conn)?;
                    diesel::insert_into(subject_identifiers::table)
                        .values((
                            subject_identifiers::tenant_id.eq(&tenant_id),
                            subject_identifiers::identifier_ref.eq(&identifier_ref),
                            subject_identifiers::subject_id.eq(&subject_id),
                            subject_identifiers::id_type.eq(identifier.id_type.as_str()),
                            subject_identifiers::country.eq(identifier.country.code()),
                            subject_identifiers::blind_index.eq(&identifier.blind_index.0),
                            subject_identifiers::sealed_value.eq(&identifier.sealed),
                            subject_identifiers::valid_from.eq(micros(fresh.at)),
                        ))
                        .execute(conn)?;
                    (subject_id, identifier_ref, true)
                }
            };
            if let Some(reference) = &customer_ref {
                diesel::insert_into(customer_refs::table)
                    .values((
                        customer_refs::tenant_id.eq(&tenant_id),
                        customer_refs::ref_.eq(reference),
                        customer_refs::subject_id.eq(&subject_id),
                        customer_refs::created_at.eq(micros(fresh.at)),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)?;
                let owner: String = customer_refs::table
                    .find((&tenant_id, reference))
                    .select(customer_refs::subject_id)
                    .first(conn)?;
                if canonical_of(conn, &tenant_id, &owner)? != subject_id {
                    // Rolls back the whole transaction: a subject created above is undone.
                    return Err(StoreError::RefConflict.into());
                }
            }
            Ok(Resolution {
                aliases: aliases_of(conn, &tenant_id, &subject_id)?,
                subject_id: parse_id(&subject_id, "subject id")?,
                identifier_ref: parse_id(&identifier_ref, "identifier ref")?,
                created,
            })
        })
        .await
    }

    async fn subject(
        &self,
        tenant: &TenantId,
        id: &SubjectId,
    ) -> Result<SubjectRecord, StoreError> {
        let (tenant_id, id) = (tenant.to_string(), id.to_string());
        // One snapshot for the several reads.
        self.read(move |conn| read_subject(conn, &tenant_id, &id))
            .await
    }

    async fn identifier_holder(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<IdentifierHolder>, StoreError> {
        let (tenant_id, identifier_ref) = (tenant.to_string(), identifier_ref.to_string());
        self.read(move |conn| holder(conn, &tenant_id, &identifier_ref))
            .await
    }
}

/// The subject holding an identifier ref, with the sealed identifier; `None` for a ref the
/// tenant does not have.
pub(crate) fn holder(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    identifier_ref: &str,
) -> Result<Option<IdentifierHolder>, TxError> {
    let row: Option<(String, String, String, Vec<u8>, String)> = subject_identifiers::table
        .inner_join(
            subjects::table.on(subjects::tenant_id
                .eq(subject_identifiers::tenant_id)
                .and(subjects::subject_id.eq(subject_identifiers::subject_id))),
        )
        .filter(subject_identifiers::tenant_id.eq(tenant_id))
        .filter(subject_identifiers::identifier_ref.eq(identifier_ref))
        .select((
            subject_identifiers::subject_id,
            subject_identifiers::id_type,
            subject_identifiers::country,
            subject_identifiers::sealed_value,
            subjects::kind,
        ))
        .first(conn)
        .optional()?;
    let Some((subject_id, id_type, country, sealed, kind)) = row else {
        return Ok(None);
    };
    Ok(Some(IdentifierHolder {
        subject: handle_of(conn, tenant_id, &subject_id)?,
        kind: SubjectKind::parse(&kind).ok_or_else(|| corrupt("subject kind"))?,
        id_type: IdentifierType::parse(&id_type).ok_or_else(|| corrupt("identifier type"))?,
        country: Country::from_code(&country).ok_or_else(|| corrupt("country"))?,
        sealed,
    }))
}
