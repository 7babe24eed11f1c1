//! `CompanyStore` on SQLite: call records, the per-tenant profile cache, and the document ids
//! each tenant was handed.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::schema::call_records;
use crate::subjects::handle_of;
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::companies::paid::COMPANY_KINDS;
use domain::companies::ports::CompanyStore;
use domain::companies::profile::{CachedProfile, CompanyProfile, TaxGroup, UpstreamCall};
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{CallRef, SubjectId, TenantId};
use domain::subjects::subject::SubjectHandle;
use storage_codec::companies::StoredProfile;

/// The evidence a recorded call gives.
pub(crate) fn evidence_of(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    call_ref: &str,
) -> Result<Evidence, TxError> {
    type CallRow = (
        String,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        i64,
    );
    let call: CallRow = call_records::table
        .find((tenant_id, call_ref))
        .select((
            call_records::source,
            call_records::source_timestamp,
            call_records::upstream_ref,
            call_records::digest,
            call_records::schema_version,
            call_records::retrieved_at,
        ))
        .first(conn)?;
    Ok(Evidence {
        source: EvidenceSource::parse(&call.0).ok_or_else(|| corrupt("evidence source"))?,
        source_timestamp: time(call.1)?,
        call_ref: parse_id(call_ref, "call ref")?,
        upstream_ref: call.2,
        digest: call.3,
        schema_version: call.4,
        retrieved_at: time(call.5)?,
    })
}

#[derive(QueryableByName)]
struct CachedRow {
    #[diesel(sql_type = Text)]
    subject_id: String,
    #[diesel(sql_type = Text)]
    data: String,
    #[diesel(sql_type = Text)]
    main_call_ref: String,
    #[diesel(sql_type = Nullable<Text>)]
    tax_call_ref: Option<String>,
    #[diesel(sql_type = BigInt)]
    fetched_at: i64,
}

#[async_trait]
impl CompanyStore for Database {
    async fn record_calls(
        &self,
        tenant: &TenantId,
        route: &str,
        calls: &[(CallRef, UpstreamCall)],
    ) -> Result<Vec<Evidence>, StoreError> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let (tenant_id, route, calls) = (tenant.to_string(), route.to_owned(), calls.to_vec());
        self.write(move |conn| {
            for (call_ref, c) in &calls {
                diesel::insert_into(call_records::table)
                    .values((
                        call_records::tenant_id.eq(&tenant_id),
                        call_records::call_ref.eq(call_ref.to_string()),
                        call_records::source.eq(c.source.as_str()),
                        call_records::route.eq(&route),
                        call_records::status.eq(c.status.map(i32::from)),
                        call_records::upstream_ref.eq(&c.upstream_ref),
                        call_records::digest.eq(&c.digest),
                        call_records::schema_version.eq(&c.schema_version),
                        call_records::cost.eq(c.cost),
                        call_records::source_timestamp.eq(micros(c.source_timestamp)),
                        call_records::retrieved_at.eq(micros(c.retrieved_at)),
                        call_records::operation.eq(&c.operation),
                        call_records::usable.eq(i32::from(c.usable)),
                    ))
                    .execute(conn)?;
            }
            Ok(calls
                .iter()
                .map(|(call_ref, c)| Evidence {
                    source: c.source,
                    source_timestamp: c.source_timestamp,
                    call_ref: *call_ref,
                    upstream_ref: c.upstream_ref.clone(),
                    digest: c.digest.clone(),
                    schema_version: c.schema_version.clone(),
                    retrieved_at: c.retrieved_at,
                })
                .collect())
        })
        .await
    }

    async fn cached_profile(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
    ) -> Result<Option<CachedProfile>, StoreError> {
        let (tenant_id, orgnr) = (tenant.to_string(), orgnr.to_owned());
        self.read(move |conn| {
            let row: Option<CachedRow> = diesel::sql_query(
                "SELECT subject_id, data, main_call_ref, tax_call_ref, fetched_at \
                 FROM company_profiles WHERE tenant_id = ? AND country = ? AND orgnr = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(country.code())
            .bind::<Text, _>(&orgnr)
            .get_result(conn)
            .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let stored: StoredProfile =
                serde_json::from_str(&row.data).map_err(|_| corrupt("cached profile"))?;
            let (data, tax, unchecked) = stored.into_domain()?;
            let tax = match (tax, &row.tax_call_ref) {
                (Some(registration), Some(call_ref)) => Some(TaxGroup {
                    registrations: registration,
                    evidence: evidence_of(conn, &tenant_id, call_ref)?,
                }),
                (None, None) => None,
                _ => return Err(corrupt("tax evidence").into()),
            };
            Ok(Some(CachedProfile {
                profile: CompanyProfile {
                    country,
                    data,
                    tax,
                    unchecked,
                    evidence: evidence_of(conn, &tenant_id, &row.main_call_ref)?,
                    fetched_at: time(row.fetched_at)?,
                },
                subject: handle_of(conn, &tenant_id, &row.subject_id)?,
            }))
        })
        .await
    }

    async fn save_profile(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
        profile: &CompanyProfile,
    ) -> Result<(), StoreError> {
        let (tenant_id, subject_id) = (tenant.to_string(), subject.to_string());
        let data = serde_json::to_string(&StoredProfile::from_domain(
            &profile.data,
            profile.tax.as_ref().map(|t| &t.registrations),
            &profile.unchecked,
        ))
        .map_err(|e| StoreError::Backend(e.to_string()))?;
        let profile = profile.clone();
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO company_profiles (tenant_id, country, orgnr, subject_id, data, \
                   main_call_ref, tax_call_ref, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (tenant_id, country, orgnr) DO UPDATE SET \
                   subject_id = excluded.subject_id, data = excluded.data, \
                   main_call_ref = excluded.main_call_ref, tax_call_ref = excluded.tax_call_ref, \
                   fetched_at = excluded.fetched_at",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(profile.country.code())
            .bind::<Text, _>(&profile.data.orgnr)
            .bind::<Text, _>(&subject_id)
            .bind::<Text, _>(&data)
            .bind::<Text, _>(profile.evidence.call_ref.to_string())
            .bind::<Nullable<Text>, _>(
                profile
                    .tax
                    .as_ref()
                    .map(|t| t.evidence.call_ref.to_string()),
            )
            .bind::<BigInt, _>(micros(profile.fetched_at))
            .execute(conn)?;
            if let Some(report) = &profile.data.latest_annual_report {
                diesel::sql_query(
                    "INSERT INTO company_documents (tenant_id, document_id, subject_id, country, \
                       seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(&report.document_id)
                .bind::<Text, _>(&subject_id)
                .bind::<Text, _>(profile.country.code())
                .bind::<BigInt, _>(micros(profile.fetched_at))
                .execute(conn)?;
            }
            Ok(())
        })
        .await
    }

    async fn forget_company(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
    ) -> Result<(), StoreError> {
        let (tenant_id, orgnr) = (tenant.to_string(), orgnr.to_owned());
        self.write(move |conn| {
            diesel::sql_query(
                "DELETE FROM company_profiles WHERE tenant_id = ? AND country = ? AND orgnr = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(country.code())
            .bind::<Text, _>(&orgnr)
            .execute(conn)?;
            for kind in COMPANY_KINDS {
                diesel::sql_query(
                    "DELETE FROM paid_objects \
                     WHERE tenant_id = ? AND kind = ? AND country = ? AND key = ?",
                )
                .bind::<Text, _>(&tenant_id)
                .bind::<Text, _>(kind.as_str())
                .bind::<Text, _>(country.code())
                .bind::<Text, _>(&orgnr)
                .execute(conn)?;
            }
            Ok(())
        })
        .await
    }

    async fn document_owner(
        &self,
        tenant: &TenantId,
        document_id: &str,
    ) -> Result<Option<(SubjectHandle, Country)>, StoreError> {
        let (tenant_id, document_id) = (tenant.to_string(), document_id.to_owned());
        self.read(move |conn| {
            #[derive(QueryableByName)]
            struct Owner {
                #[diesel(sql_type = Text)]
                subject_id: String,
                #[diesel(sql_type = Text)]
                country: String,
            }
            let row: Option<Owner> = diesel::sql_query(
                "SELECT subject_id, country FROM company_documents \
                 WHERE tenant_id = ? AND document_id = ?",
            )
            .bind::<Text, _>(&tenant_id)
            .bind::<Text, _>(&document_id)
            .get_result(conn)
            .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let country = Country::from_code(&row.country).ok_or_else(|| corrupt("country"))?;
            Ok(Some((
                handle_of(conn, &tenant_id, &row.subject_id)?,
                country,
            )))
        })
        .await
    }
}
