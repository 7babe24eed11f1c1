//! The company use cases: the profile (per-tenant cache, evidence, stale serving) and
//! annual-report documents.
//!
//! Every upstream call is recorded before its data is used; evidence points at those records.
//! The cache is per tenant (no cross-tenant store). A fresh cached value is served as is; past
//! the revalidation window the registry is asked again, and when it cannot deliver the cached
//! value is served with `stale: true`. A failed or garbled answer never replaces good data.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::companies::profile::{
    CompanyProfile, RegistryFailure, ServedDocument, ServedProfile, TaxGroup, UpstreamCall,
};

use crate::companies::ports::{CompanyRegistry, CompanyStore};
use crate::countries::registry::Countries;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::CallRef;
use crate::meter::Meter;
use crate::operation::Operation;
use crate::subjects::identifier::Identifier;
use crate::subjects::service::SubjectService;
use crate::subjects::subject::FirstSighting;
use chrono::Duration;
use std::sync::Arc;

pub struct CompanyService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    /// The served countries' connectors.
    pub countries: Arc<Countries>,
    pub store: Arc<dyn CompanyStore>,
    pub subjects: Arc<SubjectService>,
    pub clock: Arc<dyn Clock>,
    /// How long a cached profile is served without asking the registry again.
    pub revalidate_after: Duration,
}

impl CompanyService {
    /// Records every call of a fetch for the tenant, before any of its data is used, and
    /// returns the evidence of each (in the order of `calls`).
    async fn record(
        &self,
        caller: &Caller,
        op: Operation,
        calls: Vec<UpstreamCall>,
    ) -> Result<Vec<Evidence>, Failure> {
        record_calls(self.store.as_ref(), self.meter.as_ref(), caller, op, calls).await
    }

    /// The country rules every company route shares: a well-formed identifier, a country the
    /// tenant is provisioned for and the grant carries, and a country that is served.
    fn admit_company(
        &self,
        caller: &Caller,
        wire: &str,
    ) -> Result<(Identifier, &Arc<dyn CompanyRegistry>), Failure> {
        let orgnr = crate::companies::admission::company_code(caller, wire)?;
        let registry = self
            .countries
            .in_mode(caller.mode())
            .company(orgnr.country())?;
        Ok((orgnr, registry))
    }

    /// `GET /v1/companies/{orgnr}`.
    ///
    /// A fresh cached profile is answered from its one cached read (which also names its
    /// subject). Past the revalidation window the registry is asked; when it cannot deliver,
    /// the cached profile is served with `stale: true`.
    pub async fn profile(&self, caller: &Caller, wire: &str) -> Result<ServedProfile, Failure> {
        caller.require_operation(Operation::GetCompany)?;
        let (orgnr, registry) = self.admit_company(caller, wire)?;
        self.serve_profile(caller, &orgnr, registry).await
    }

    /// The profile of a company subject for a screening check: the same cache and registry
    /// rules as `GET /v1/companies/{orgnr}`, under `screening:run` (the check route's scope)
    /// rather than `kyb:read`. The caller has already seen the subject in its countries.
    pub async fn screening_profile(
        &self,
        caller: &Caller,
        orgnr: &Identifier,
    ) -> Result<ServedProfile, Failure> {
        let registry = self
            .countries
            .in_mode(caller.mode())
            .company(orgnr.country())?;
        self.serve_profile(caller, orgnr, registry).await
    }

    async fn serve_profile(
        &self,
        caller: &Caller,
        orgnr: &Identifier,
        registry: &Arc<dyn CompanyRegistry>,
    ) -> Result<ServedProfile, Failure> {
        let orgnr = orgnr.clone();
        let cached = self
            .store
            .cached_profile(&caller.tenant_id, orgnr.country(), orgnr.expose_canonical())
            .await
            .map_err(Failure::internal)?;
        let now = self.clock.now();
        let cached = match cached {
            Some(c) if now - c.profile.fetched_at < self.revalidate_after => {
                return Ok(ServedProfile {
                    stale: false,
                    subject: c.subject,
                    profile: c.profile,
                });
            }
            other => other,
        };

        match self
            .fetch_and_save(caller, Operation::GetCompany, &orgnr, registry)
            .await?
        {
            Ok((profile, subject)) => Ok(ServedProfile {
                stale: false,
                subject,
                profile,
            }),
            Err(RegistryFailure::NotFound | RegistryFailure::Withdrawn) => {
                Err(Failure::not_found("company"))
            }
            Err(RegistryFailure::Unavailable(_) | RegistryFailure::Garbled(_)) => match cached {
                Some(cached) => Ok(ServedProfile {
                    stale: true,
                    subject: cached.subject,
                    profile: cached.profile,
                }),
                None => Err(Failure::new(
                    ErrorCode::UpstreamUnavailable,
                    "the company register is unavailable and no cached value exists; retry later",
                )),
            },
        }
    }

    /// Drops what the tenant keeps of a company the register withdrew from its open data.
    pub(crate) async fn forget(&self, caller: &Caller, orgnr: &Identifier) -> Result<(), Failure> {
        self.store
            .forget_company(&caller.tenant_id, orgnr.country(), orgnr.expose_canonical())
            .await
            .map_err(Failure::internal)
    }

    /// The country rules of the company routes (public to the refresh).
    pub(crate) fn admit(
        &self,
        caller: &Caller,
        wire: &str,
    ) -> Result<(Identifier, &Arc<dyn CompanyRegistry>), Failure> {
        self.admit_company(caller, wire)
    }

    /// Asks the registry (never the cache), records every call before using its data, and
    /// on success stores the profile in the tenant's cache with its subject (created on first
    /// sight). The registry's failure is answered as `Ok(Err(..))`.
    pub(crate) async fn fetch_and_save(
        &self,
        caller: &Caller,
        op: Operation,
        orgnr: &Identifier,
        registry: &Arc<dyn CompanyRegistry>,
    ) -> Result<
        Result<(CompanyProfile, crate::subjects::subject::SubjectHandle), RegistryFailure>,
        Failure,
    > {
        let now = self.clock.now();
        let fetch = registry.fetch_profile(orgnr).await;
        let evidence = self.record(caller, op, fetch.calls).await?;
        let fetched = match fetch.outcome {
            Ok(f) => f,
            Err(RegistryFailure::Withdrawn) => {
                self.forget(caller, orgnr).await?;
                return Ok(Err(RegistryFailure::Withdrawn));
            }
            Err(failure) => return Ok(Err(failure)),
        };
        let Some(main) = evidence.get(fetched.main_call) else {
            return Err(Failure::internal("registry named a call it did not report"));
        };
        let tax = match fetched.tax {
            Some((registrations, call)) => Some(TaxGroup {
                registrations,
                evidence: evidence
                    .get(call)
                    .cloned()
                    .ok_or_else(|| Failure::internal("registry named a call it did not report"))?,
            }),
            None => None,
        };
        let profile = CompanyProfile::read(
            orgnr.country(),
            fetched.data,
            tax,
            &fetched.unchecked,
            main.clone(),
            now,
        );
        // A subject first seen here is evidenced by the register call that found it.
        let sighting = FirstSighting::RegistryRead(main.call_ref);
        let subject = self
            .subjects
            .resolve_identifier(caller, orgnr, None, sighting)
            .await?;
        self.store
            .save_profile(&caller.tenant_id, &subject.subject_id, &profile)
            .await
            .map_err(Failure::internal)?;
        Ok(Ok((profile, subject.handle())))
    }

    /// `GET /v1/documents/{id}`: a filing whose id this tenant was handed in a company
    /// profile, from the archive of that profile's country.
    ///
    /// The caller must hold a country with an archive (else the first country's refusal, 403,
    /// or 501 in a deployment without one, before anything is looked up); an id the tenant was never handed,
    /// or one filed under a country the caller cannot see, is 404 alike.
    pub async fn document(
        &self,
        caller: &Caller,
        document_id: &str,
    ) -> Result<ServedDocument, Failure> {
        caller.require_operation(Operation::GetDocument)?;
        let mut readable = Vec::new();
        let mut refusal = None;
        for country in self.countries.in_mode(caller.mode()).archives() {
            match caller.require_country(country) {
                Ok(()) => readable.push(country),
                Err(f) => refusal = refusal.or(Some(f)),
            }
        }
        if readable.is_empty() {
            return Err(refusal.unwrap_or_else(Countries::no_archive));
        }
        let owner = self
            .store
            .document_owner(&caller.tenant_id, document_id)
            .await
            .map_err(Failure::internal)?;
        let Some((subject, country)) = owner.filter(|(_, c)| readable.contains(c)) else {
            return Err(Failure::not_found("document"));
        };
        let archive = self.countries.in_mode(caller.mode()).documents(country)?;
        let fetch = archive.fetch_document(document_id).await;
        let evidence = self
            .record(caller, Operation::GetDocument, fetch.calls)
            .await?;
        match fetch.outcome {
            Ok(document) => Ok(ServedDocument {
                country,
                subject,
                evidence: evidence
                    .last()
                    .cloned()
                    .ok_or_else(|| Failure::internal("registry reported no call for a document"))?,
                document_id: document.document_id,
                filename: document.filename,
                content_type: document.content_type,
                bytes: document.bytes,
            }),
            Err(RegistryFailure::NotFound) => Err(Failure::not_found("document")),
            Err(_) => Err(Failure::new(
                ErrorCode::UpstreamUnavailable,
                "the document archive is unavailable; retry later",
            )),
        }
    }
}

/// Records every call of a fetch under fresh call refs, filed under `op`'s route template,
/// before any of its data is used; their evidence, in the calls' order. Every use case that
/// calls an upstream records through this.
pub(crate) async fn record_calls(
    store: &dyn CompanyStore,
    meter: &dyn Meter,
    caller: &Caller,
    op: Operation,
    calls: Vec<UpstreamCall>,
) -> Result<Vec<Evidence>, Failure> {
    for call in &calls {
        meter.upstream_call(
            call.source.as_str(),
            &call.operation,
            call.outcome(),
            call.elapsed,
        );
    }
    let refs: Vec<(CallRef, UpstreamCall)> = calls
        .into_iter()
        .map(|c| (CallRef::generate(), c))
        .collect();
    store
        .record_calls(&caller.tenant_id, op.route_template(), &refs)
        .await
        .map_err(Failure::internal)
}
