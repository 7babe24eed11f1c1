//! `PersonStore` on PostgreSQL: the per-tenant person cache (profiles sealed under the
//! tenant's data key; this adapter only ever sees ciphertext) and the daily person-lookup
//! counters.

use crate::convert::{backend, corrupt, parse_id};
use crate::schema::{person_lookups, person_profiles};
use crate::statements::{CachedPersonProfile, CountPersonLookup};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bytea, Int8, Nullable, Text, Timestamptz};
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{CallRef, IdentifierRef, SubjectId, TenantId};
use domain::person::{CachedPerson, SealedPerson};
use domain::ports::{PersonStore, StoreError};
use domain::subject::SubjectHandle;

#[async_trait]
impl PersonStore for Database {
    async fn cached_person(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<CachedPerson>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let identifier_ref = identifier_ref.to_string();
        let row: Option<CachedPersonRow> = CachedPersonProfile {
            tenant_id: &tenant_id,
            identifier_ref: &identifier_ref,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(CachedPersonRow::into_domain).transpose()
    }

    async fn save_person(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
        subject: &SubjectId,
        sealed: &SealedPerson,
        call_ref: &CallRef,
        fetched_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(person_profiles::table)
            .values((
                person_profiles::tenant_id.eq(tenant.to_string()),
                person_profiles::identifier_ref.eq(identifier_ref.to_string()),
                person_profiles::subject_id.eq(subject.to_string()),
                person_profiles::sealed_profile.eq(&sealed.0),
                person_profiles::call_ref.eq(call_ref.to_string()),
                person_profiles::fetched_at.eq(fetched_at),
            ))
            .on_conflict((person_profiles::tenant_id, person_profiles::identifier_ref))
            .do_update()
            .set((
                person_profiles::subject_id.eq(excluded(person_profiles::subject_id)),
                person_profiles::sealed_profile.eq(excluded(person_profiles::sealed_profile)),
                person_profiles::call_ref.eq(excluded(person_profiles::call_ref)),
                person_profiles::fetched_at.eq(excluded(person_profiles::fetched_at)),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn spend_person_lookup(
        &self,
        tenant: &TenantId,
        day: NaiveDate,
        ceiling: i64,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let counted: Option<CountedRow> = CountPersonLookup {
            tenant_id: &tenant_id,
            day,
            ceiling,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        Ok(counted.is_some())
    }

    async fn person_lookups(&self, tenant: &TenantId, day: NaiveDate) -> Result<i64, StoreError> {
        let mut conn = self.conn().await?;
        let used: Option<i64> = person_lookups::table
            .find((tenant.to_string(), day))
            .select(person_lookups::used)
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        Ok(used.unwrap_or(0))
    }
}

#[derive(QueryableByName)]
struct CountedRow {
    #[diesel(sql_type = Int8)]
    #[allow(dead_code)]
    used: i64,
}

/// One row of the cached read: the sealed profile, the evidence of its call, its subject.
#[derive(QueryableByName)]
struct CachedPersonRow {
    #[diesel(sql_type = Bytea)]
    sealed_profile: Vec<u8>,
    #[diesel(sql_type = Timestamptz)]
    fetched_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    call_ref: String,
    #[diesel(sql_type = Text)]
    source: String,
    #[diesel(sql_type = Timestamptz)]
    source_timestamp: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    upstream_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    digest: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    schema_version: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    retrieved_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    canonical_id: String,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
}

impl CachedPersonRow {
    fn into_domain(self) -> Result<CachedPerson, StoreError> {
        Ok(CachedPerson {
            sealed: SealedPerson(self.sealed_profile),
            evidence: Evidence {
                call_ref: parse_id(&self.call_ref, "call ref")?,
                source: EvidenceSource::parse(&self.source)
                    .ok_or_else(|| corrupt("evidence source"))?,
                source_timestamp: self.source_timestamp,
                upstream_ref: self.upstream_ref,
                digest: self.digest,
                schema_version: self.schema_version,
                retrieved_at: self.retrieved_at,
            },
            fetched_at: self.fetched_at,
            subject: SubjectHandle {
                subject_id: parse_id(&self.canonical_id, "subject id")?,
                aliases: self
                    .aliases
                    .iter()
                    .map(|a| parse_id(a, "subject id"))
                    .collect::<Result<_, _>>()?,
            },
        })
    }
}
