//! `PersonStore` on PostgreSQL: the per-tenant person cache (profiles sealed under the
//! tenant's data key; this adapter only ever sees ciphertext) and the daily person-lookup
//! counters.

use crate::convert::{backend, corrupt, parse_id};
use crate::schema::{person_lookups, person_profiles};
use crate::statements::{CountPersonLookup, PersonAtRefRead};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bytea, Int8, Nullable, Text, Timestamptz};
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{CallRef, IdentifierRef, SubjectId, TenantId};
use domain::persons::ports::PersonStore;
use domain::persons::profile::{CachedPerson, PersonAtRef, SealedPerson};
use domain::subjects::identifier::{IdentifierType, SubjectKind};
use domain::subjects::subject::{IdentifierHolder, SubjectHandle};

#[async_trait]
impl PersonStore for Database {
    async fn person_at_ref(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<PersonAtRef>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let identifier_ref = identifier_ref.to_string();
        let row: Option<PersonAtRefRow> = PersonAtRefRead {
            tenant_id: &tenant_id,
            identifier_ref: &identifier_ref,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(PersonAtRefRow::into_domain).transpose()
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

/// The one row of `person_at_ref`: the holder, and the cached profile's columns (null when
/// nothing is cached).
#[derive(QueryableByName)]
struct PersonAtRefRow {
    #[diesel(sql_type = Text)]
    id_type: String,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = Bytea)]
    sealed_value: Vec<u8>,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Nullable<Bytea>)]
    sealed_profile: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    fetched_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    call_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    source: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    source_timestamp: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    upstream_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    digest: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    schema_version: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    retrieved_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    canonical_id: String,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
}

impl PersonAtRefRow {
    fn into_domain(self) -> Result<PersonAtRef, StoreError> {
        let holder = IdentifierHolder {
            subject: SubjectHandle {
                subject_id: parse_id(&self.canonical_id, "subject id")?,
                aliases: self
                    .aliases
                    .iter()
                    .map(|a| parse_id(a, "subject id"))
                    .collect::<Result<_, _>>()?,
            },
            kind: SubjectKind::parse(&self.kind).ok_or_else(|| corrupt("subject kind"))?,
            id_type: IdentifierType::parse(&self.id_type)
                .ok_or_else(|| corrupt("identifier type"))?,
            country: Country::from_code(&self.country).ok_or_else(|| corrupt("country"))?,
            sealed: self.sealed_value,
        };
        let cached = match (
            self.sealed_profile,
            self.fetched_at,
            self.call_ref,
            self.source,
            self.source_timestamp,
            self.retrieved_at,
        ) {
            (None, ..) => None,
            (
                Some(sealed),
                Some(fetched_at),
                Some(call_ref),
                Some(source),
                Some(source_timestamp),
                Some(retrieved_at),
            ) => Some(CachedPerson {
                sealed: SealedPerson(sealed),
                evidence: Evidence {
                    call_ref: parse_id(&call_ref, "call ref")?,
                    source: EvidenceSource::parse(&source)
                        .ok_or_else(|| corrupt("evidence source"))?,
                    source_timestamp,
                    upstream_ref: self.upstream_ref,
                    digest: self.digest,
                    schema_version: self.schema_version,
                    retrieved_at,
                },
                fetched_at,
            }),
            _ => return Err(corrupt("cached person profile without its call record")),
        };
        Ok(PersonAtRef { holder, cached })
    }
}
