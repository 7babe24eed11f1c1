//! `CompanyStore` on PostgreSQL: call records, the per-tenant profile cache, and the document
//! ids each tenant was handed.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::schema::{call_records, company_documents, company_profiles, paid_objects};
use crate::statements::{CachedCompany, RawJsonb};
use crate::subjects::handle_of;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Jsonb, Nullable, Text, Timestamptz};
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::companies::paid::{PaidKind, COMPANY_KINDS};
use domain::companies::ports::CompanyStore;
use domain::companies::profile::{CachedProfile, CompanyProfile};
use domain::companies::profile::{TaxGroup, UpstreamCall};
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::evidence::{Evidence, EvidenceSource};
use domain::ids::{CallRef, SubjectId, TenantId};
use domain::subjects::subject::SubjectHandle;
use storage_codec::companies::StoredProfile;

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
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let rows: Vec<_> = calls
            .iter()
            .map(|(call_ref, c)| {
                (
                    call_records::tenant_id.eq(tenant_id.clone()),
                    call_records::call_ref.eq(call_ref.to_string()),
                    call_records::source.eq(c.source.as_str()),
                    call_records::route.eq(route.to_owned()),
                    call_records::status.eq(c.status.map(i32::from)),
                    call_records::upstream_ref.eq(c.upstream_ref.clone()),
                    call_records::digest.eq(c.digest.clone()),
                    call_records::schema_version.eq(c.schema_version.clone()),
                    call_records::cost.eq(c.cost),
                    call_records::source_timestamp.eq(c.source_timestamp),
                    call_records::retrieved_at.eq(c.retrieved_at),
                    call_records::operation.eq(c.operation.clone()),
                    call_records::usable.eq(c.usable),
                )
            })
            .collect();
        diesel::insert_into(call_records::table)
            .values(rows)
            .execute(&mut conn)
            .await
            .map_err(backend)?;
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
    }

    async fn cached_profile(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
    ) -> Result<Option<CachedProfile>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let row: Option<CachedRow> = CachedCompany {
            tenant_id: &tenant_id,
            country: country.code(),
            orgnr,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(|row| row.into_domain(country)).transpose()
    }

    async fn save_profile(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
        profile: &CompanyProfile,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let subject_id = subject.to_string();
        let data = serde_json::to_value(StoredProfile::from_domain(
            &profile.data,
            profile.tax.as_ref().map(|t| &t.registrations),
            &profile.unchecked,
        ))
        .map_err(|e| StoreError::Backend(e.to_string()))?;
        conn.transaction(async |conn| -> Result<(), TxError> {
            diesel::insert_into(company_profiles::table)
                .values((
                    company_profiles::tenant_id.eq(&tenant_id),
                    company_profiles::country.eq(profile.country.code()),
                    company_profiles::orgnr.eq(&profile.data.orgnr),
                    company_profiles::subject_id.eq(&subject_id),
                    company_profiles::data.eq(&data),
                    company_profiles::main_call_ref.eq(profile.evidence.call_ref.to_string()),
                    company_profiles::tax_call_ref.eq(profile
                        .tax
                        .as_ref()
                        .map(|t| t.evidence.call_ref.to_string())),
                    company_profiles::fetched_at.eq(profile.fetched_at),
                ))
                .on_conflict((
                    company_profiles::tenant_id,
                    company_profiles::country,
                    company_profiles::orgnr,
                ))
                .do_update()
                .set((
                    company_profiles::subject_id.eq(excluded(company_profiles::subject_id)),
                    company_profiles::data.eq(excluded(company_profiles::data)),
                    company_profiles::main_call_ref.eq(excluded(company_profiles::main_call_ref)),
                    company_profiles::tax_call_ref.eq(excluded(company_profiles::tax_call_ref)),
                    company_profiles::fetched_at.eq(excluded(company_profiles::fetched_at)),
                ))
                .execute(conn)
                .await?;
            if let Some(report) = &profile.data.latest_annual_report {
                diesel::insert_into(company_documents::table)
                    .values((
                        company_documents::tenant_id.eq(&tenant_id),
                        company_documents::document_id.eq(&report.document_id),
                        company_documents::subject_id.eq(&subject_id),
                        company_documents::country.eq(profile.country.code()),
                        company_documents::seen_at.eq(profile.fetched_at),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
            }
            Ok(())
        })
        .await
        .map_err(StoreError::from)
    }

    async fn forget_company(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        conn.transaction(async |conn| -> Result<(), TxError> {
            diesel::delete(
                company_profiles::table
                    .filter(company_profiles::tenant_id.eq(&tenant_id))
                    .filter(company_profiles::country.eq(country.code()))
                    .filter(company_profiles::orgnr.eq(orgnr)),
            )
            .execute(conn)
            .await?;
            diesel::delete(
                paid_objects::table
                    .filter(paid_objects::tenant_id.eq(&tenant_id))
                    .filter(paid_objects::country.eq(country.code()))
                    .filter(paid_objects::key.eq(orgnr))
                    .filter(paid_objects::kind.eq_any(COMPANY_KINDS.map(PaidKind::as_str))),
            )
            .execute(conn)
            .await?;
            Ok(())
        })
        .await
        .map_err(StoreError::from)
    }

    async fn document_owner(
        &self,
        tenant: &TenantId,
        document_id: &str,
    ) -> Result<Option<(SubjectHandle, Country)>, StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = tenant.to_string();
        let row: Option<(String, String)> = company_documents::table
            .find((&tenant_id, document_id))
            .select((company_documents::subject_id, company_documents::country))
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        let Some((subject_id, country)) = row else {
            return Ok(None);
        };
        let country = Country::from_code(&country).ok_or_else(|| corrupt("country"))?;
        let subject = handle_of(&mut conn, &tenant_id, &subject_id).await?;
        Ok(Some((subject, country)))
    }
}

/// One row of the cached read: the profile, the evidence of its two calls, its subject.
#[derive(QueryableByName)]
struct CachedRow {
    #[diesel(sql_type = Jsonb)]
    data: RawJsonb,
    #[diesel(sql_type = Timestamptz)]
    fetched_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    main_call_ref: String,
    #[diesel(sql_type = Text)]
    main_source: String,
    #[diesel(sql_type = Timestamptz)]
    main_source_timestamp: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    main_upstream_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    main_digest: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    main_schema_version: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    main_retrieved_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    tax_call_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tax_source: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    tax_source_timestamp: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    tax_upstream_ref: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tax_digest: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tax_schema_version: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    tax_retrieved_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    canonical_id: String,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
}

impl CachedRow {
    fn into_domain(self, country: Country) -> Result<CachedProfile, StoreError> {
        let stored: StoredProfile =
            serde_json::from_slice(&self.data.0).map_err(|_| corrupt("cached profile"))?;
        let (data, tax, unchecked) = stored.into_domain()?;
        let evidence = |call_ref: &str,
                        source: &str,
                        source_timestamp,
                        upstream_ref,
                        digest,
                        schema_version,
                        retrieved_at| {
            Ok::<_, StoreError>(Evidence {
                call_ref: parse_id(call_ref, "call ref")?,
                source: EvidenceSource::parse(source).ok_or_else(|| corrupt("evidence source"))?,
                source_timestamp,
                upstream_ref,
                digest,
                schema_version,
                retrieved_at,
            })
        };
        let tax = match (
            tax,
            self.tax_call_ref,
            self.tax_source,
            self.tax_source_timestamp,
            self.tax_retrieved_at,
        ) {
            (Some(registration), Some(call_ref), Some(source), Some(at), Some(retrieved_at)) => {
                Some(TaxGroup {
                    registrations: registration,
                    evidence: evidence(
                        &call_ref,
                        &source,
                        at,
                        self.tax_upstream_ref,
                        self.tax_digest,
                        self.tax_schema_version,
                        retrieved_at,
                    )?,
                })
            }
            (None, None, ..) => None,
            _ => return Err(corrupt("tax evidence")),
        };
        Ok(CachedProfile {
            profile: CompanyProfile {
                country,
                data,
                tax,
                unchecked,
                evidence: evidence(
                    &self.main_call_ref,
                    &self.main_source,
                    self.main_source_timestamp,
                    self.main_upstream_ref,
                    self.main_digest,
                    self.main_schema_version,
                    self.main_retrieved_at,
                )?,
                fetched_at: self.fetched_at,
            },
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
