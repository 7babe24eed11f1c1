//! The paid company-tier use cases: officers (and the signatory rule, the same object),
//! beneficial owners, and a person's engagements.
//!
//! Each read follows the profile's rules (per-tenant cache, revalidation window, stale
//! serving, every call recorded before its data is used) plus the budget: a cache miss or an
//! expired value is metered against the tenant's daily paid-call budget *before* the paid
//! call is made. When the budget is spent, a cached value is served with `stale: true`,
//! otherwise the read fails with 429 `budget_exceeded`.
//!
//! Every personal number the registry names is turned into the tenant's own
//! `identifier_ref` before anything is stored or served: the person is resolved to a subject
//! of this tenant, evidenced by the registry call that named it.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, Spend, Spender};
use crate::companies::profile::RegistryFailure;
use crate::meter::Budget;

use crate::companies::paid::{
    CachedPaid, EngagementList, NamedParty, Officer, OfficerList, Owner, OwnerList, PaidData,
    PaidKey, PaidKind, PaidObject, ServedPaid, MAX_ENGAGEMENT_PAGES,
};
use crate::companies::ports::{CompanyStore, PaidCompanyRegistry, PaidStore};
use crate::countries::registry::Countries;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::IdentifierRef;
use crate::operation::Operation;
use crate::subjects::identifier::{Identifier, SubjectKind};
use crate::subjects::service::SubjectService;
use crate::subjects::subject::{FirstSighting, SubjectHandle};
use chrono::Duration;
use std::sync::Arc;

/// How a paid read treats the cache and the budget.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PaidRead {
    /// A consumer's read: a fresh cached value as is; otherwise one unit of the on-demand
    /// budget, then the call (the cached value as stale when either fails).
    Cached,
    /// The forced refresh: never answered from the cache; one on-demand unit, then the call.
    Forced,
    /// Scheduled monitoring, which metered the whole run against the tenant's monitoring
    /// share before it began: never the cache, no further metering.
    Prepaid,
}

pub struct PaidCompanyService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    /// The served countries' connectors (the paid tier where a country declares one).
    pub countries: Arc<Countries>,
    pub store: Arc<dyn PaidStore>,
    /// Where call records are written.
    pub calls: Arc<dyn CompanyStore>,
    pub subjects: Arc<SubjectService>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
    /// How long a cached paid object is served without asking the registry again.
    pub revalidate_after: Duration,
}

/// What a read needs once it is admitted: where the object is cached, which registry
/// fetches it, and who it is about.
struct Admitted<'a> {
    key: PaidKey,
    registry: &'a Arc<dyn PaidCompanyRegistry>,
}

impl PaidCompanyService {
    /// The country rules of the company routes, then the tier.
    fn admit_company(
        &self,
        caller: &Caller,
        op: Operation,
        kind: PaidKind,
        wire: &str,
    ) -> Result<(Identifier, Admitted<'_>), Failure> {
        caller.require_operation(op)?;
        let orgnr = crate::companies::admission::company_code(caller, wire)?;
        let countries = self.countries.in_mode(caller.mode());
        let registry = match kind {
            PaidKind::BeneficialOwners => countries.owners(orgnr.country())?,
            _ => countries.paid(orgnr.country())?,
        };
        let key = PaidKey {
            kind,
            country: orgnr.country(),
            key: orgnr.expose_canonical().to_owned(),
        };
        Ok((orgnr, Admitted { key, registry }))
    }

    /// `GET /v1/companies/{orgnr}/officers` and `/signatories` (`op` says which route).
    pub async fn officers(
        &self,
        caller: &Caller,
        op: Operation,
        wire: &str,
    ) -> Result<ServedPaid, Failure> {
        debug_assert!(matches!(
            op,
            Operation::GetOfficers | Operation::GetSignatories
        ));
        self.officers_read(caller, op, wire, PaidRead::Cached).await
    }

    /// The officers read; `mode` says whether the cache may answer and who pays (`op` names
    /// the route or the monitoring run), so
    /// the answer is fresh or, when the budget or the registry stops it, stale.
    pub(crate) async fn officers_read(
        &self,
        caller: &Caller,
        op: Operation,
        wire: &str,
        mode: PaidRead,
    ) -> Result<ServedPaid, Failure> {
        let (orgnr, admitted) = self.admit_company(caller, op, PaidKind::Officers, wire)?;
        self.read(caller, op, &admitted, mode, || async move {
            let fetch = admitted.registry.fetch_officers(&orgnr).await;
            let Read {
                fetched,
                subject,
                evidence,
                sighting,
            } = match self.company_read(caller, op, &orgnr, fetch).await? {
                Ok(read) => read,
                Err(stop) => return Ok(Err(stop)),
            };
            let mut officers = Vec::with_capacity(fetched.officers.len());
            for o in fetched.officers {
                officers.push(Officer {
                    role: o.role,
                    role_code: o.role_code,
                    personal_number_ref: self.person_ref(caller, &o.party, &sighting).await?,
                    name: o.party.name,
                    appointed_at: o.appointed_at,
                });
            }
            let data = PaidData::Officers(OfficerList {
                orgnr: fetched.orgnr,
                officers,
                signatory_rule_text: fetched.signatory_rule_text,
            });
            Ok(Ok((subject, data, evidence)))
        })
        .await
    }

    /// `GET /v1/companies/{orgnr}/beneficial-owners`.
    pub async fn beneficial_owners(
        &self,
        caller: &Caller,
        wire: &str,
    ) -> Result<ServedPaid, Failure> {
        self.owners_read(
            caller,
            Operation::GetBeneficialOwners,
            wire,
            PaidRead::Cached,
        )
        .await
    }

    /// The owners read; `mode` as for [`PaidCompanyService::officers_read`].
    pub(crate) async fn owners_read(
        &self,
        caller: &Caller,
        op: Operation,
        wire: &str,
        mode: PaidRead,
    ) -> Result<ServedPaid, Failure> {
        let (orgnr, admitted) = self.admit_company(caller, op, PaidKind::BeneficialOwners, wire)?;
        self.read(caller, op, &admitted, mode, || async move {
            let fetch = admitted.registry.fetch_beneficial_owners(&orgnr).await;
            let Read {
                fetched,
                subject,
                evidence,
                sighting,
            } = match self.company_read(caller, op, &orgnr, fetch).await? {
                Ok(read) => read,
                Err(stop) => return Ok(Err(stop)),
            };
            let mut owners = Vec::with_capacity(fetched.owners.len());
            for o in fetched.owners {
                owners.push(Owner {
                    personal_number_ref: self.person_ref(caller, &o.party, &sighting).await?,
                    name: o.party.name,
                    nature_of_control: o.nature_of_control,
                    share_band: o.share_band,
                });
            }
            let data = PaidData::BeneficialOwners(OwnerList {
                orgnr: fetched.orgnr,
                owners,
                no_ubo_reported: fetched.no_ubo_reported,
            });
            Ok(Ok((subject, data, evidence)))
        })
        .await
    }

    /// `GET /v1/persons/{ref}/engagements`: `{ref}` is an `identifier_ref` of a person
    /// subject of this tenant. A ref is an opaque id: one that is unknown, not a person's,
    /// or outside the caller's countries is 404 alike.
    pub async fn engagements(
        &self,
        caller: &Caller,
        wire_ref: &str,
    ) -> Result<ServedPaid, Failure> {
        let op = Operation::GetPersonEngagements;
        caller.require_operation(op)?;
        let person_ref: IdentifierRef = wire_ref.trim().parse().map_err(|_| {
            Failure::invalid_identifier(
                "`ref`: not an identifier_ref (`idr_` followed by 26 characters)",
            )
        })?;
        let not_found = || Failure::not_found("person");
        let holder = self
            .subjects
            .holder(caller, &person_ref)
            .await?
            .filter(|h| h.kind == SubjectKind::Person)
            .filter(|h| caller.visible_countries().contains(h.country))
            .ok_or_else(not_found)?;
        let registry = self.countries.in_mode(caller.mode()).paid(holder.country)?;
        let admitted = Admitted {
            key: PaidKey {
                kind: PaidKind::Engagements,
                country: holder.country,
                key: person_ref.to_string(),
            },
            registry,
        };
        let subject = holder.subject.clone();
        self.read(caller, op, &admitted, PaidRead::Cached, || async move {
            let person = self.subjects.reveal(caller, &holder)?;
            let mut engagements = Vec::new();
            // The evidence names the first page's call; every page's call is recorded.
            let mut first_evidence = None;
            for page in 1..=MAX_ENGAGEMENT_PAGES {
                // The first page was metered by the read; each further page is its own
                // billable call, metered before it is made.
                if page > 1 && !self.spend(caller).await? {
                    return Ok(Err(Stop::BudgetSpent));
                }
                let fetch = admitted.registry.fetch_engagements(&person, page).await;
                let evidence = self.record(caller, op, fetch.calls).await?;
                let fetched = match fetch.outcome {
                    Ok(f) => f,
                    Err(f) => return Ok(Err(Stop::Registry(f))),
                };
                if first_evidence.is_none() {
                    first_evidence = Some(last_evidence(evidence)?);
                }
                engagements.extend(fetched.engagements);
                if !fetched.more {
                    let evidence = first_evidence
                        .ok_or_else(|| Failure::internal("no page of engagements was read"))?;
                    let data = PaidData::Engagements(EngagementList {
                        person_ref: Some(person_ref),
                        engagements,
                    });
                    return Ok(Ok((subject, data, evidence)));
                }
            }
            Ok(Err(Stop::Registry(RegistryFailure::Garbled(format!(
                "the person has more than {MAX_ENGAGEMENT_PAGES} pages of engagements"
            )))))
        })
        .await
    }

    /// Spends one paid call of the caller's on-demand budget; false when it is spent.
    async fn spend(&self, caller: &Caller) -> Result<bool, Failure> {
        let spend = Spend::one_call(
            &caller.tenant.budget,
            Spender::OnDemand,
            self.calendar.day(self.clock.now()),
        );
        let spent = self
            .store
            .spend_budget(&caller.tenant_id, &spend)
            .await
            .map_err(Failure::internal)?;
        self.meter.budget(Budget::Paid(Spender::OnDemand), spent);
        Ok(spent)
    }

    /// The shared read: a fresh cached value as is; otherwise meter one paid call and fetch;
    /// when the budget is spent or the registry cannot deliver, the cached value as stale.
    ///
    /// `fetch` makes the call, records it and builds the object, answering the registry's
    /// failure as `Ok(Err(..))` (so the cache can still serve) and its own as `Err`.
    async fn read<'a, F, Fut>(
        &'a self,
        caller: &'a Caller,
        op: Operation,
        admitted: &'a Admitted<'a>,
        mode: PaidRead,
        fetch: F,
    ) -> Result<ServedPaid, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<
            Output = Result<Result<(SubjectHandle, PaidData, Evidence), Stop>, Failure>,
        >,
    {
        let cached = self
            .store
            .cached_paid(&caller.tenant_id, &admitted.key)
            .await
            .map_err(Failure::internal)?;
        let now = self.clock.now();
        let cached = match cached {
            Some(c)
                if mode == PaidRead::Cached
                    && now - c.object.fetched_at < self.revalidate_after =>
            {
                return Ok(served(false, c));
            }
            other => other,
        };

        // Metered before the call is made, atomically with the check.
        let spend = Spend::one_call(
            &caller.tenant.budget,
            Spender::OnDemand,
            self.calendar.day(now),
        );
        let budget_spent = || {
            Failure::new(
                ErrorCode::BudgetExceeded,
                format!(
                    "the tenant's daily paid-call budget for reads ({} calls) is spent; it renews \
                 at {} (midnight {})",
                    spend.cap,
                    self.calendar.renews_at(spend.day).to_rfc3339(),
                    self.calendar.zone()
                ),
            )
        };
        // A free register's roles are not metered.
        let charged = self
            .countries
            .in_mode(caller.mode())
            .charges(admitted.key.country);
        if mode != PaidRead::Prepaid && charged && !self.spend(caller).await? {
            return match cached {
                Some(c) => Ok(served(true, c)),
                None => Err(budget_spent()),
            };
        }

        match fetch().await? {
            Ok((subject, data, evidence)) => {
                let object = PaidObject {
                    country: admitted.key.country,
                    data,
                    evidence,
                    fetched_at: now,
                };
                self.store
                    .save_paid(
                        &caller.tenant_id,
                        &admitted.key,
                        &subject.subject_id,
                        &object,
                    )
                    .await
                    .map_err(Failure::internal)?;
                Ok(ServedPaid {
                    stale: false,
                    subject,
                    object,
                })
            }
            Err(Stop::BudgetSpent) => match cached {
                Some(c) => Ok(served(true, c)),
                None => Err(budget_spent()),
            },
            Err(Stop::Registry(RegistryFailure::Withdrawn)) => {
                // Only a company is ever withdrawn (a person's engagements are not read from
                // open data): what the tenant keeps of it goes.
                self.calls
                    .forget_company(&caller.tenant_id, admitted.key.country, &admitted.key.key)
                    .await
                    .map_err(Failure::internal)?;
                Err(Failure::not_found("company"))
            }
            Err(Stop::Registry(RegistryFailure::NotFound)) => Err(Failure::not_found(match op {
                Operation::GetPersonEngagements => "person",
                _ => "company",
            })),
            Err(Stop::Registry(RegistryFailure::Unavailable(_) | RegistryFailure::Garbled(_))) => {
                match cached {
                    Some(c) => Ok(served(true, c)),
                    None => Err(Failure::new(
                        ErrorCode::UpstreamUnavailable,
                        "the company register's paid tier is unavailable and no cached value \
                     exists; retry later",
                    )),
                }
            }
        }
    }

    /// Records every call of a fetch, before any of its data is used.
    async fn record(
        &self,
        caller: &Caller,
        op: Operation,
        calls: Vec<crate::companies::profile::UpstreamCall>,
    ) -> Result<Vec<Evidence>, Failure> {
        crate::companies::service::record_calls(
            self.calls.as_ref(),
            self.meter.as_ref(),
            caller,
            op,
            calls,
        )
        .await
    }

    /// The company's subject (created on first sight, evidenced by the registry call).
    /// What a company read of the tier does with its fetch: records every call before its
    /// data is used, stops on the registry's failure, and names the company's subject
    /// (created on first sight, from the call that read it).
    async fn company_read<T>(
        &self,
        caller: &Caller,
        op: Operation,
        orgnr: &Identifier,
        fetch: crate::companies::profile::Fetch<T>,
    ) -> Result<Result<Read<T>, Stop>, Failure> {
        let evidence = self.record(caller, op, fetch.calls).await?;
        let fetched = match fetch.outcome {
            Ok(f) => f,
            Err(f) => return Ok(Err(Stop::Registry(f))),
        };
        let evidence = last_evidence(evidence)?;
        let sighting = FirstSighting::RegistryRead(evidence.call_ref);
        let subject = self.company_subject(caller, orgnr, &sighting).await?;
        Ok(Ok(Read {
            fetched,
            subject,
            evidence,
            sighting,
        }))
    }

    async fn company_subject(
        &self,
        caller: &Caller,
        orgnr: &Identifier,
        sighting: &FirstSighting,
    ) -> Result<SubjectHandle, Failure> {
        Ok(self
            .subjects
            .resolve_identifier(caller, orgnr, None, sighting.clone())
            .await?
            .handle())
    }

    /// The tenant's ref of a person the registry named (resolved to a subject, created on
    /// first sight); `None` for an organisation or a person named without a number.
    async fn person_ref(
        &self,
        caller: &Caller,
        party: &NamedParty,
        sighting: &FirstSighting,
    ) -> Result<Option<IdentifierRef>, Failure> {
        let Some(person) = &party.person else {
            return Ok(None);
        };
        let resolution = self
            .subjects
            .resolve_identifier(caller, person, None, sighting.clone())
            .await?;
        Ok(Some(resolution.identifier_ref))
    }
}

/// Why a fetch delivered no object.
/// A company's object as the registry delivered it, with its subject, the evidence of the
/// call that delivered it, and that call as the first sighting of the parties it names.
struct Read<T> {
    fetched: T,
    subject: SubjectHandle,
    evidence: Evidence,
    sighting: FirstSighting,
}

enum Stop {
    /// The registry could not deliver (or does not know the subject).
    Registry(RegistryFailure),
    /// A further billable call did not fit the budget.
    BudgetSpent,
}

fn served(stale: bool, cached: CachedPaid) -> ServedPaid {
    ServedPaid {
        stale,
        subject: cached.subject,
        object: cached.object,
    }
}

/// The evidence of the call the data rests on (the last one).
fn last_evidence(evidence: Vec<Evidence>) -> Result<Evidence, Failure> {
    evidence
        .into_iter()
        .last()
        .ok_or_else(|| Failure::internal("the registry delivered data without a recorded call"))
}
