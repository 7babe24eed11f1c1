//! The forced refresh, `POST /v1/companies/{orgnr}/refresh` (`refresh_company`): always a
//! metered re-fetch, never an answer from the cache.
//!
//! 1. `kyb:refresh` (only), the company code and the country rules, a served country;
//! 2. one unit of the tenant's on-demand budget for the refresh itself (429 when spent);
//! 3. the profile from the registry (failure: 503, or 404 for an unknown company), stored;
//!    with the paid tier, officers and beneficial owners re-fetched too (each a metered paid
//!    call; one that the budget or the registry stops is "not checked", never "unchanged");
//! 4. under an active company subscription of the subject, what moved against the tenant's
//!    previous reading becomes events (`company.changed`, `company.status.changed`,
//!    `signatory.changed`, `ubo.changed`, trigger `on_demand`), then `refresh.completed`;
//!    without one, none. A first reading (nothing cached before) is the baseline: no change
//!    events.

use crate::access::Caller;
use crate::budget::{renews_at, Spend, Spender};
use crate::change::{profile_diff, signatory_diff, ubo_diff};
use crate::clock::Clock;
use crate::company::{CompanyProfile, RegistryFailure};
use crate::company_service::CompanyService;
use crate::error::{ErrorCode, Failure};
use crate::event::{EventData, EventType, NewEvent};
use crate::evidence::Evidence;
use crate::identifier::Identifier;
use crate::ids::EventId;
use crate::operation::Operation;
use crate::paid::{PaidData, PaidKey, PaidKind, ServedPaid};
use crate::paid_service::PaidCompanyService;
use crate::ports::{EventStore, PaidStore, SubscriptionStore};
use crate::subject::SubjectHandle;
use crate::subscription::{Subscription, SubscriptionKind};
use std::sync::Arc;

pub struct RefreshService {
    pub companies: Arc<CompanyService>,
    pub paid: Arc<PaidCompanyService>,
    /// The paid objects' cache (the previous reading) and the budget.
    pub paid_store: Arc<dyn PaidStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub events: Arc<dyn EventStore>,
    pub clock: Arc<dyn Clock>,
}

/// A refresh's answer.
#[derive(Clone, Debug)]
pub struct Refreshed {
    pub subject: SubjectHandle,
    pub profile: CompanyProfile,
    pub events_emitted: u32,
}

/// Who caused a change: the consumer's own refresh, or the monitoring cadence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    OnDemand,
    Scheduled,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::OnDemand => "on_demand",
            Trigger::Scheduled => "scheduled",
        }
    }
}

impl RefreshService {
    pub async fn refresh(&self, caller: &Caller, wire: &str) -> Result<Refreshed, Failure> {
        let op = Operation::RefreshCompany;
        caller.require_operation(op)?;
        let (orgnr, registry) = self.companies.admit(caller, wire)?;

        let now = self.clock.now();
        let spend = Spend::one_call(&caller.tenant.budget, Spender::OnDemand, now);
        let spent = self
            .paid_store
            .spend_budget(&caller.tenant_id, &spend)
            .await
            .map_err(Failure::internal)?;
        if !spent {
            return Err(Failure::new(
                ErrorCode::BudgetExceeded,
                format!(
                    "the tenant's daily paid-call budget for reads ({} calls) is spent; a refresh \
                     is never answered from the cache. It renews at {} (midnight \
                     Europe/Stockholm)",
                    spend.cap,
                    renews_at(spend.day).to_rfc3339()
                ),
            ));
        }

        let before = self.companies.cached(caller, &orgnr).await?;
        let (profile, subject) =
            match self
                .companies
                .fetch_and_save(caller, op, &orgnr, registry)
                .await?
            {
                Ok(fresh) => fresh,
                Err(RegistryFailure::NotFound) => return Err(Failure::not_found("company")),
                Err(_) => return Err(Failure::new(
                    ErrorCode::UpstreamUnavailable,
                    "the company register is unavailable; a refresh is never answered from the \
                     cache. Retry later",
                )),
            };

        let subscription = self
            .subscriptions
            .active_subscription(
                &caller.tenant_id,
                &subject.subject_id,
                SubscriptionKind::Company,
            )
            .await
            .map_err(Failure::internal)?;
        let paid = self.paid_readings(caller, &orgnr, wire).await?;

        let Some(subscription) = subscription else {
            return Ok(Refreshed {
                subject,
                profile,
                events_emitted: 0,
            });
        };
        let events = change_events(
            &subscription,
            &subject,
            Trigger::OnDemand,
            before.as_ref().map(|b| &b.profile),
            &profile,
            &paid,
            now,
        );
        let emitted = u32::try_from(events.len()).unwrap_or(u32::MAX);
        self.events
            .append_events(&caller.tenant_id, &events)
            .await
            .map_err(Failure::internal)?;
        Ok(Refreshed {
            subject,
            profile,
            events_emitted: emitted,
        })
    }

    /// Officers and owners before and after a forced re-fetch, where the paid tier serves
    /// the country. A reading the budget or the registry stopped comes back as `None`.
    async fn paid_readings(
        &self,
        caller: &Caller,
        orgnr: &Identifier,
        wire: &str,
    ) -> Result<PaidReadings, Failure> {
        let mut readings = PaidReadings::default();
        if !self.paid.serves(orgnr.country()) {
            return Ok(readings);
        }
        let key = |kind| PaidKey {
            kind,
            country: orgnr.country(),
            key: orgnr.expose_canonical().to_owned(),
        };
        for kind in [PaidKind::Officers, PaidKind::BeneficialOwners] {
            let before = self
                .paid_store
                .cached_paid(&caller.tenant_id, &key(kind))
                .await
                .map_err(Failure::internal)?;
            let read = match kind {
                PaidKind::Officers => {
                    self.paid
                        .officers_read(caller, Operation::RefreshCompany, wire, true)
                        .await
                }
                _ => {
                    self.paid
                        .owners_read(caller, Operation::RefreshCompany, wire, true)
                        .await
                }
            };
            // A reading that could not be made fresh is not checked.
            let after = match read {
                Ok(served) if !served.stale => Some(served),
                Ok(_) => None,
                Err(f) if f.code == ErrorCode::InternalError => return Err(f),
                Err(_) => None,
            };
            let pair = (before.map(|b| b.object.data), after);
            match kind {
                PaidKind::Officers => readings.officers = Some(pair),
                _ => readings.owners = Some(pair),
            }
        }
        Ok(readings)
    }
}

/// The paid readings of a refresh: (before, after) per kind; `None` when the tier does not
/// serve the country.
#[derive(Default)]
pub(crate) struct PaidReadings {
    officers: Option<(Option<PaidData>, Option<ServedPaid>)>,
    owners: Option<(Option<PaidData>, Option<ServedPaid>)>,
}

/// The events of one reading under a subscription: a change event per kind of move, then
/// `refresh.completed` naming what was not checked.
pub(crate) fn change_events(
    subscription: &Subscription,
    subject: &SubjectHandle,
    trigger: Trigger,
    before: Option<&CompanyProfile>,
    after: &CompanyProfile,
    paid: &PaidReadings,
    at: chrono::DateTime<chrono::Utc>,
) -> Vec<NewEvent> {
    let mut events = Vec::new();
    let mut not_checked: Vec<&'static str> = Vec::new();
    let event = |t: EventType, mut data: Vec<(String, EventData)>, evidence: &Evidence| {
        let mut head = vec![
            (
                "trigger".to_owned(),
                EventData::Text(trigger.as_str().to_owned()),
            ),
            (
                "subscription_id".to_owned(),
                EventData::Text(subscription.id.to_string()),
            ),
            (
                "aliases".to_owned(),
                EventData::List(
                    subject
                        .aliases
                        .iter()
                        .map(|a| EventData::Text(a.to_string()))
                        .collect(),
                ),
            ),
        ];
        head.append(&mut data);
        NewEvent {
            id: EventId::generate(),
            idempotency_key: format!("{}:{}:{}", subscription.id, evidence.call_ref, t.name()),
            type_name: t.name().to_owned(),
            country: after.country,
            subject_id: Some(subject.subject_id),
            subject_ref: None,
            occurred_at: at,
            data: EventData::Object(head),
            evidence: evidence.clone(),
        }
    };

    if let Some(before) = before {
        let (changes, status, unchecked) = profile_diff(before, after);
        not_checked.extend(unchecked.iter());
        if !changes.is_empty() {
            events.push(event(
                EventType::CompanyChanged,
                vec![
                    (
                        "changes".to_owned(),
                        EventData::List(changes.iter().map(|c| c.data()).collect()),
                    ),
                    (
                        "not_checked".to_owned(),
                        EventData::List(
                            unchecked
                                .iter()
                                .map(|u| EventData::Text((*u).to_owned()))
                                .collect(),
                        ),
                    ),
                ],
                &after.evidence,
            ));
        }
        if let Some(s) = status {
            events.push(event(
                EventType::CompanyStatusChanged,
                vec![("old".to_owned(), s.old), ("new".to_owned(), s.new)],
                &after.evidence,
            ));
        }
    }
    if let Some((before, after_paid)) = &paid.officers {
        match (before, after_paid) {
            (Some(PaidData::Officers(old)), Some(new)) => {
                if let PaidData::Officers(new_list) = &new.object.data {
                    if let Some(diff) = signatory_diff(old, new_list) {
                        events.push(event(
                            EventType::SignatoryChanged,
                            vec![("changes".to_owned(), diff)],
                            &new.object.evidence,
                        ));
                    }
                }
            }
            (_, None) => not_checked.push("officers"),
            _ => {}
        }
    }
    if let Some((before, after_paid)) = &paid.owners {
        match (before, after_paid) {
            (Some(PaidData::BeneficialOwners(old)), Some(new)) => {
                if let PaidData::BeneficialOwners(new_list) = &new.object.data {
                    if let Some(diff) = ubo_diff(old, new_list) {
                        events.push(event(
                            EventType::UboChanged,
                            vec![("changes".to_owned(), diff)],
                            &new.object.evidence,
                        ));
                    }
                }
            }
            (_, None) => not_checked.push("beneficial_owners"),
            _ => {}
        }
    }
    let changes = events.len();
    events.push(event(
        EventType::RefreshCompleted,
        vec![
            ("baseline".to_owned(), EventData::Bool(before.is_none())),
            (
                "changes".to_owned(),
                EventData::Int(i64::try_from(changes).unwrap_or(i64::MAX)),
            ),
            (
                "not_checked".to_owned(),
                EventData::List(
                    not_checked
                        .iter()
                        .map(|u| EventData::Text((*u).to_owned()))
                        .collect(),
                ),
            ),
        ],
        &after.evidence,
    ));
    events
}
