//! The person use cases: a person's profile from the population register (`GET
//! /v1/persons/{ref}`, `get_person_profile`), the admission of `lookup_person`, and the
//! identity screening reads of a person subject.
//!
//! Every read follows one order:
//! 1. the scope (`kyc:read`: necessary, never sufficient), and the request's own form (a
//!    well-formed ref; for `lookup_person` a person's number and its country's rules);
//! 2. the permit gate: no permit in force is 403 `personreg_permit_required`, a suspended
//!    one 403 `personreg_permit_suspended`. Nothing is read from storage and nothing is
//!    called before it passes (the permit came with the grant in the guard's one read);
//! 3. the person and the tenant's cache, in one read: a ref of this tenant's person subject
//!    in the caller's countries (404 otherwise), a country whose register is served (501
//!    otherwise);
//! 4. the cached profile, within the revalidation window;
//! 5. the person-lookup ceiling, metered atomically before the register is asked
//!    (429 `budget_exceeded` when reached);
//! 6. the register; a call that fails is 503 `upstream_unavailable`: a person profile is
//!    never served stale, whatever is cached.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::companies::budget::BudgetCalendar;
use crate::companies::profile::RegistryFailure;

use crate::access::tenant::{Permit, PermitStanding};
use crate::companies::ports::CompanyStore;
use crate::countries::registry::Countries;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::{IdentifierRef, SubjectId};
use crate::operation::Operation;
use crate::persons::ports::{PersonStore, PersonVault};
use crate::persons::profile::{PersonAtRef, PersonProfile, ScreeningIdentity, ServedPerson};
use crate::subjects::identifier::{Identifier, IdentifierType, SubjectKind};
use crate::subjects::service::SubjectService;
use chrono::Duration;
use std::sync::Arc;

pub struct PersonService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    /// The served countries' connectors (the population register where one is declared).
    pub countries: Arc<Countries>,
    pub store: Arc<dyn PersonStore>,
    /// Where call records are written.
    pub calls: Arc<dyn CompanyStore>,
    pub vault: Arc<dyn PersonVault>,
    pub subjects: Arc<SubjectService>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the permit's day, the budget's day).
    pub calendar: BudgetCalendar,
    /// How long a cached profile is served without asking the register again.
    pub revalidate_after: Duration,
}

impl PersonService {
    /// The permit gate: the tenant's person-register permit must be in force today (the
    /// deployment's calendar day).
    pub fn require_permit(&self, caller: &Caller) -> Result<(), Failure> {
        permit_gate(caller, self.calendar.day(self.clock.now()))
    }

    /// `GET /v1/persons/{ref}`: `{ref}` is an `identifier_ref` of a person subject of this
    /// tenant. A ref that is unknown, not a person's, or outside the caller's countries is
    /// 404 alike.
    pub async fn profile(&self, caller: &Caller, wire_ref: &str) -> Result<ServedPerson, Failure> {
        caller.require_operation(Operation::GetPerson)?;
        let person_ref: IdentifierRef = wire_ref.trim().parse().map_err(|_| {
            Failure::invalid_identifier(
                "`ref`: not an identifier_ref (`idr_` followed by 26 characters)",
            )
        })?;
        self.require_permit(caller)?;
        let found = self.person_at_ref(caller, &person_ref).await?;
        self.read(caller, person_ref, found).await
    }

    /// The admission of `lookup_person`, before anything is resolved or stored: the scope,
    /// a well-formed personal or coordination number, its country's rules, a served
    /// country and the permit gate.
    pub fn admit_lookup(&self, caller: &Caller, id_type: &str, value: &str) -> Result<(), Failure> {
        caller.require_operation(Operation::GetPerson)?;
        let id_type = IdentifierType::parse(id_type)
            .filter(|t| t.subject_kind() == SubjectKind::Person)
            .ok_or_else(|| {
                Failure::bad_request(
                    "type",
                    "must be a person's identifier type: personnummer, samordningsnummer or \
                     asmens-kodas",
                )
            })?;
        let person = Identifier::parse(id_type, value, self.clock.now().date_naive())
            .map_err(|e| Failure::invalid_identifier(format!("`identifier`: {e}")))?;
        caller.require_country(person.country())?;
        self.require_permit(caller)?;
        self.countries
            .in_mode(caller.mode())
            .persons(person.country())
            .map(|_| ())
    }

    /// The name and birth date of a person subject, for screening: under the same permit
    /// gate, cache and ceiling as the profile. The subject must be a person with an
    /// identifier in the caller's countries.
    pub async fn screening_identity(
        &self,
        caller: &Caller,
        subject_id: &SubjectId,
    ) -> Result<ScreeningIdentity, Failure> {
        self.require_permit(caller)?;
        let not_found = || Failure::not_found("subject");
        let record = match self
            .subjects
            .store
            .subject(&caller.tenant_id, subject_id)
            .await
        {
            Ok(r) => r,
            Err(StoreError::NotFound) => return Err(not_found()),
            Err(e) => return Err(Failure::internal(e)),
        };
        if record.kind != SubjectKind::Person {
            return Err(Failure::bad_request(
                "subject_id",
                "names a company; a person's identity is read for person subjects only",
            ));
        }
        let visible = caller.visible_countries();
        let mut identifiers: Vec<_> = record
            .identifiers
            .iter()
            .filter(|i| i.valid_to.is_none() && visible.contains(i.country))
            .collect();
        // A country whose persons are screened first, then the newest identifier.
        identifiers.sort_by_key(|i| {
            (
                !self.countries.screens(SubjectKind::Person, i.country),
                std::cmp::Reverse(i.valid_from),
            )
        });
        let chosen = identifiers.first().ok_or_else(not_found)?;
        if !self.countries.screens(SubjectKind::Person, chosen.country) {
            return Err(Countries::not_screened(SubjectKind::Person, chosen.country));
        }
        let found = self.person_at_ref(caller, &chosen.identifier_ref).await?;
        let served = self.read(caller, chosen.identifier_ref, found).await?;
        Ok(ScreeningIdentity {
            subject: served.subject,
            country: served.country,
            name: served.profile.full_name(),
            birth_date: served.profile.birth_date(),
            protection: served.profile.markers().protected,
        })
    }

    /// The person subject behind a ref (if the caller may see it) with the tenant's cached
    /// profile, in one read. Only after the permit gate.
    async fn person_at_ref(
        &self,
        caller: &Caller,
        person_ref: &IdentifierRef,
    ) -> Result<PersonAtRef, Failure> {
        self.store
            .person_at_ref(&caller.tenant_id, person_ref)
            .await
            .map_err(Failure::internal)?
            .filter(|p| p.holder.kind == SubjectKind::Person)
            .filter(|p| caller.visible_countries().contains(p.holder.country))
            .ok_or_else(|| Failure::not_found("person"))
    }

    /// Steps 3 (the country served) to 6 of the module's order.
    async fn read(
        &self,
        caller: &Caller,
        person_ref: IdentifierRef,
        found: PersonAtRef,
    ) -> Result<ServedPerson, Failure> {
        let PersonAtRef { holder, cached } = found;
        let registry = self
            .countries
            .in_mode(caller.mode())
            .persons(holder.country)?;

        let now = self.clock.now();
        if let Some(c) = cached.filter(|c| now - c.fetched_at < self.revalidate_after) {
            let profile = self
                .vault
                .open_person(&caller.tenant_id, &caller.data_key, &c.sealed)
                .map_err(Failure::internal)?;
            return Ok(ServedPerson {
                country: holder.country,
                subject: holder.subject,
                person_ref,
                profile,
                evidence: c.evidence,
            });
        }

        // Metered before the register is asked, atomically with the check.
        let day = self.calendar.day(now);
        let ceiling = caller.tenant.budget.person_lookup_ceiling;
        let counted = self
            .store
            .spend_person_lookup(&caller.tenant_id, day, ceiling)
            .await
            .map_err(Failure::internal)?;
        self.meter
            .budget(crate::meter::Budget::PersonLookups, counted);
        if !counted {
            return Err(Failure::new(
                ErrorCode::BudgetExceeded,
                format!(
                    "the tenant's daily person-lookup ceiling ({ceiling} lookups) is reached; it \
                     renews at {} (midnight {})",
                    self.calendar.renews_at(day).to_rfc3339(),
                    self.calendar.zone()
                ),
            ));
        }

        let person = self.subjects.reveal(caller, &holder)?;
        let fetch = registry.fetch_person(&person, &end_user(caller)).await;
        let evidence = self.record(caller, fetch.calls).await?;
        let unavailable = || {
            Failure::new(
                ErrorCode::UpstreamUnavailable,
                "the population register could not answer; person data is never served from a \
                 lapsed cache. Retry later",
            )
        };
        let register = match fetch.outcome {
            Ok(r) => r,
            // A population register withdraws no one from open data; a connector saying so
            // is answered as not found.
            Err(RegistryFailure::NotFound | RegistryFailure::Withdrawn) => {
                return Err(Failure::not_found("person"))
            }
            Err(RegistryFailure::Unavailable(_) | RegistryFailure::Garbled(_)) => {
                return Err(unavailable())
            }
        };
        if !register.id_number.is(&person) {
            // An answer about someone else is garbled: never stored, never served. (Its call
            // is recorded as made; the connector checks the same and marks it unusable.)
            return Err(unavailable());
        }
        let evidence = evidence
            .into_iter()
            .last()
            .ok_or_else(|| Failure::internal("the register answered without a recorded call"))?;
        let profile = PersonProfile::from_register(register);
        let sealed = self
            .vault
            .seal_person(&caller.tenant_id, &caller.data_key, &profile)
            .map_err(Failure::internal)?;
        self.store
            .save_person(
                &caller.tenant_id,
                &person_ref,
                &holder.subject.subject_id,
                &sealed,
                &evidence.call_ref,
                now,
            )
            .await
            .map_err(Failure::internal)?;
        Ok(ServedPerson {
            country: holder.country,
            subject: holder.subject,
            person_ref,
            profile,
            evidence,
        })
    }

    /// Records every call of a fetch, before any of its data is used.
    async fn record(
        &self,
        caller: &Caller,
        calls: Vec<crate::companies::profile::UpstreamCall>,
    ) -> Result<Vec<Evidence>, Failure> {
        crate::companies::service::record_calls(
            self.calls.as_ref(),
            self.meter.as_ref(),
            caller,
            Operation::GetPerson,
            calls,
        )
        .await
    }
}

/// The end-user id sent to the register: the consumer's grant, which the tenant can trace to
/// its own system and user, and which says nothing about any person.
fn end_user(caller: &Caller) -> String {
    format!("idreg-grant:{}", caller.grant_id)
}

/// The permit gate on `today` (the deployment's calendar day, [`BudgetCalendar`]): the
/// tenant's person-register permit must be in force. Every use case that touches person data
/// (reads, lookups, person subscriptions, screening) passes it first.
pub fn permit_gate(caller: &Caller, today: chrono::NaiveDate) -> Result<(), Failure> {
    match Permit::standing(caller.tenant.permit.as_ref(), today) {
        PermitStanding::InForce => Ok(()),
        PermitStanding::Suspended => Err(Failure::new(
            ErrorCode::PersonregPermitSuspended,
            "the tenant's person-register permit is suspended; nothing was done. A reinstated \
             permit is recorded by the operator as a new permit",
        )),
        PermitStanding::Missing => Err(Failure::new(
            ErrorCode::PersonregPermitRequired,
            "the tenant has no person-register permit in force (none recorded, not yet valid, \
             or past its validity); nothing was done",
        )),
    }
}
