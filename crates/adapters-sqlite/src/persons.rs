//! `PersonStore` on SQLite: the per-tenant person cache (profiles sealed under the tenant's
//! data key; this adapter only ever sees ciphertext) and the daily person-lookup counters.

use crate::companies::evidence_of;
use crate::convert::{day, micros, time};
use crate::subjects::holder;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Text};
use domain::error::StoreError;
use domain::ids::{CallRef, IdentifierRef, SubjectId, TenantId};
use domain::persons::ports::PersonStore;
use domain::persons::profile::{CachedPerson, PersonAtRef, SealedPerson};

#[derive(QueryableByName)]
struct CachedRow {
    #[diesel(sql_type = Binary)]
    sealed_profile: Vec<u8>,
    #[diesel(sql_type = Text)]
    call_ref: String,
    #[diesel(sql_type = BigInt)]
    fetched_at: i64,
}

#[derive(QueryableByName)]
struct Used {
    #[diesel(sql_type = BigInt)]
    used: i64,
}

#[async_trait]
impl PersonStore for Database {
    async fn person_at_ref(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<PersonAtRef>, StoreError> {
        let (tenant_id, identifier_ref) = (tenant.to_string(), identifier_ref.to_string());
        // One snapshot: the holder and the cached profile as of the same moment.
        self.read(move |conn| {
            let Some(holder) = holder(conn, &tenant_id, &identifier_ref)? else {
                return Ok(None);
            };
            let row: Option<CachedRow> = diesel::sql_query(
                "SELECT sealed_profile, call_ref, fetched_at FROM person_profiles \
                 WHERE tenant_id = ? AND identifier_ref = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&identifier_ref)
            .get_result(conn)
            .optional()?;
            let cached = match row {
                None => None,
                Some(row) => Some(CachedPerson {
                    sealed: SealedPerson(row.sealed_profile),
                    evidence: evidence_of(conn, &tenant_id, &row.call_ref)?,
                    fetched_at: time(row.fetched_at)?,
                }),
            };
            Ok(Some(PersonAtRef { holder, cached }))
        })
        .await
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
        let (tenant_id, identifier_ref, subject_id) = (
            tenant.to_string(),
            identifier_ref.to_string(),
            subject.to_string(),
        );
        let (sealed, call_ref) = (sealed.0.clone(), call_ref.to_string());
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO person_profiles (tenant_id, identifier_ref, subject_id, \
                   sealed_profile, call_ref, fetched_at) VALUES (?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (tenant_id, identifier_ref) DO UPDATE SET \
                   subject_id = excluded.subject_id, sealed_profile = excluded.sealed_profile, \
                   call_ref = excluded.call_ref, fetched_at = excluded.fetched_at",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&identifier_ref)
            .bind::<Text, _>(&subject_id)
            .bind::<Binary, _>(&sealed)
            .bind::<Text, _>(&call_ref)
            .bind::<BigInt, _>(micros(fetched_at))
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn spend_person_lookup(
        &self,
        tenant: &TenantId,
        on: NaiveDate,
        ceiling: i64,
    ) -> Result<bool, StoreError> {
        let tenant_id = tenant.to_string();
        // One write transaction: the check against the ceiling and the count are one step.
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO person_lookups (tenant_id, day) VALUES (?, ?) ON CONFLICT DO NOTHING",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(on))
            .execute(conn)?;
            let counted = diesel::sql_query(
                "UPDATE person_lookups SET used = used + 1 \
                 WHERE tenant_id = ? AND day = ? AND used + 1 <= ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(on))
            .bind::<BigInt, _>(ceiling)
            .execute(conn)?;
            Ok(counted == 1)
        })
        .await
    }

    async fn person_lookups(&self, tenant: &TenantId, on: NaiveDate) -> Result<i64, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            let used: Option<Used> = diesel::sql_query(
                "SELECT used FROM person_lookups WHERE tenant_id = ? AND day = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(day(on))
            .get_result(conn)
            .optional()?;
            Ok(used.map_or(0, |u| u.used))
        })
        .await
    }
}
