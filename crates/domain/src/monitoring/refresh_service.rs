//! The forced refresh, `POST /v1/companies/{orgnr}/refresh` (`refresh_company`): always a
//! metered re-fetch, never an answer from the cache.
//!
//! 1. `kyb:refresh` (only), the company code and the country rules, a served country;
//! 2. one unit of the tenant's on-demand budget for the refresh itself (429 when spent);
//! 3. the profile from the registry (failure: 503, or 404 for an unknown company), stored;
//!    with the paid tier, officers and beneficial owners re-fetched too (each a metered paid
//!    call; one that the budget or the registry stops is "not checked", never "unchanged");
//! 4. under an active company subscription of the subject, what moved against what the
//!    subscription last saw (its baseline, which consumers' own reads never move) becomes
//!    events (`company.changed`, `company.status.changed`, `signatory.changed`,
//!    `ubo.changed`, trigger `on_demand`), then `refresh.completed`; the events and the new
//!    baseline are written in one transaction. Without one, none. The first reading under a
//!    subscription is its baseline: no change events.
//!
//! Scheduled monitoring (`scheduler`) takes its readings with the same functions
//! ([`RefreshService::read_company`], [`observe`]), so both triggers report changes alike.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, Spend, Spender};
use crate::companies::paid::{newcomers as new_parties, OfficerList, OwnerList, PaidData, Party};
use crate::companies::paid_service::{PaidCompanyService, PaidRead};
use crate::companies::ports::PaidStore;
use crate::companies::profile::{CompanyProfile, RegistryFailure};
use crate::companies::service::CompanyService;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::EventId;
use crate::monitoring::change::{carry_unchecked, profile_diff, signatory_diff, ubo_diff};
pub use crate::monitoring::event::Trigger;
use crate::monitoring::event::{EventData, EventType, NewEvent};
use crate::monitoring::ports::SubscriptionStore;
use crate::monitoring::subscription::{MonitoringBaseline, Subscription, SubscriptionKind};
use crate::operation::Operation;
use crate::subjects::identifier::Identifier;
use crate::subjects::subject::SubjectHandle;
use chrono::{DateTime, Utc};
use std::sync::Arc;

pub struct RefreshService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub companies: Arc<CompanyService>,
    pub paid: Arc<PaidCompanyService>,
    /// The paid objects' cache (the previous reading) and the budget.
    pub paid_store: Arc<dyn PaidStore>,
    /// Subscriptions, their baselines, and the log their readings' events go to.
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
    /// Screens the officers and owners a reading finds new (none wired: not screened).
    pub parties: Option<Arc<dyn crate::monitoring::party_screening::PartyScreening>>,
}

/// A refresh's answer.
#[derive(Clone, Debug)]
pub struct Refreshed {
    pub subject: SubjectHandle,
    pub profile: CompanyProfile,
    pub events_emitted: u32,
}

impl RefreshService {
    pub async fn refresh(&self, caller: &Caller, wire: &str) -> Result<Refreshed, Failure> {
        let op = Operation::RefreshCompany;
        caller.require_operation(op)?;
        let (orgnr, _) = self.companies.admit(caller, wire)?;

        let now = self.clock.now();
        let spend = Spend::one_call(
            &caller.tenant.budget,
            Spender::OnDemand,
            self.calendar.day(now),
        );
        let spent = self
            .paid_store
            .spend_budget(&caller.tenant_id, &spend)
            .await
            .map_err(Failure::internal)?;
        self.meter
            .budget(crate::meter::Budget::Paid(Spender::OnDemand), spent);
        if !spent {
            return Err(Failure::new(
                ErrorCode::BudgetExceeded,
                format!(
                    "the tenant's daily paid-call budget for reads ({} calls) is spent; a refresh \
                     is never answered from the cache. It renews at {} (midnight {})",
                    spend.cap,
                    self.calendar.renews_at(spend.day).to_rfc3339(),
                    self.calendar.zone()
                ),
            ));
        }

        let (profile, subject) =
            match self.read_profile(caller, op, &orgnr).await? {
                Ok(fresh) => fresh,
                Err(RegistryFailure::NotFound | RegistryFailure::Withdrawn) => {
                    return Err(Failure::not_found("company"))
                }
                Err(_) => return Err(Failure::new(
                    ErrorCode::UpstreamUnavailable,
                    "the company register is unavailable; a refresh is never answered from the \
                     cache. Retry later",
                )),
            };
        let paid = self.read_paid(caller, op, &orgnr, PaidRead::Forced).await?;
        let subscription = self
            .subscriptions
            .active_subscription(
                &caller.tenant_id,
                &subject.subject_id,
                SubscriptionKind::Company,
            )
            .await
            .map_err(Failure::internal)?;
        let Some(subscription) = subscription else {
            return Ok(Refreshed {
                subject,
                profile,
                events_emitted: 0,
            });
        };
        let baseline = self
            .subscriptions
            .baseline(&caller.tenant_id, &subscription.id)
            .await
            .map_err(Failure::internal)?;
        // Each forced refresh is its own reading, named by its register call.
        let reading = Reading {
            trigger: Trigger::OnDemand,
            key: format!("call-{}", profile.evidence.call_ref),
            scope: ReadingScope::Full,
            profile: &profile,
            paid: &paid,
            deferred_until: None,
        };
        let (events, kept) = observe(&subscription, &subject, &baseline, &reading, now);
        self.screen_newcomers(caller, &subscription, &baseline, &reading)
            .await?;
        let written = self
            .subscriptions
            .record_reading(&caller.tenant_id, &subscription.id, None, &kept, &events)
            .await
            .map_err(Failure::internal)?;
        if written.is_some() {
            crate::monitoring::event::meter_appended(self.meter.as_ref(), &events);
        }
        // Ended between the read and the write: the reading logged nothing.
        let emitted = written.map_or(0, |seqs| u32::try_from(seqs.len()).unwrap_or(u32::MAX));
        Ok(Refreshed {
            subject,
            profile,
            events_emitted: emitted,
        })
    }

    /// Screens the officers and owners the reading names that the subscription's previous
    /// reading did not, before the reading is written: a failure leaves the reading unwritten
    /// (a scheduled run is redone, with the same event keys), so a newcomer is never missed.
    pub(crate) async fn screen_newcomers(
        &self,
        caller: &Caller,
        subscription: &Subscription,
        baseline: &MonitoringBaseline,
        reading: &Reading<'_>,
    ) -> Result<(), Failure> {
        let Some(hook) = &self.parties else {
            return Ok(());
        };
        let (parties, newcomers) = parties_after(baseline, reading.paid);
        if newcomers.is_empty() {
            return Ok(());
        }
        hook.screen_newcomers(
            caller,
            subscription,
            parties,
            newcomers,
            &reading.key,
            reading.trigger,
        )
        .await?;
        Ok(())
    }

    /// A fresh profile from the register (never the cache), recorded and cached.
    pub(crate) async fn read_profile(
        &self,
        caller: &Caller,
        op: Operation,
        orgnr: &Identifier,
    ) -> Result<Result<(CompanyProfile, SubjectHandle), RegistryFailure>, Failure> {
        let (_, registry) = self.companies.admit(caller, &orgnr.company_wire())?;
        self.companies
            .fetch_and_save(caller, op, orgnr, registry)
            .await
    }

    /// Whether the paid tier serves the company's country (a full reading reads it too).
    pub(crate) fn paid_serves(&self, orgnr: &Identifier) -> bool {
        self.companies.countries.serves_paid(orgnr.country())
    }

    /// Whether reading the company's roles is metered against the paid budget (a free
    /// register's officers are not).
    pub(crate) fn paid_charges(&self, orgnr: &Identifier) -> bool {
        self.companies.countries.charges(orgnr.country())
    }

    /// Officers and owners read fresh, where the paid tier serves the country. A reading
    /// the budget or the registry stopped is not checked.
    pub(crate) async fn read_paid(
        &self,
        caller: &Caller,
        op: Operation,
        orgnr: &Identifier,
        mode: PaidRead,
    ) -> Result<PaidReadings, Failure> {
        if !self.paid_serves(orgnr) {
            return Ok(PaidReadings::default());
        }
        let wire = orgnr.company_wire();
        let fresh = |read: Result<crate::companies::paid::ServedPaid, Failure>| match read {
            Ok(served) if !served.stale => Ok(Some(served)),
            Ok(_) => Ok(None),
            Err(f) if f.code == ErrorCode::InternalError => Err(f),
            Err(_) => Ok(None),
        };
        let officers = fresh(self.paid.officers_read(caller, op, &wire, mode).await)?;
        let owners = fresh(self.paid.owners_read(caller, op, &wire, mode).await)?;
        Ok(PaidReadings {
            officers: match officers {
                Some(s) => match s.object.data {
                    PaidData::Officers(list) => Part::Fresh(list, s.object.evidence),
                    _ => Part::NotChecked,
                },
                None => Part::NotChecked,
            },
            owners: match owners {
                Some(s) => match s.object.data {
                    PaidData::BeneficialOwners(list) => Part::Fresh(list, s.object.evidence),
                    _ => Part::NotChecked,
                },
                None => Part::NotChecked,
            },
        })
    }
}

/// The company's parties after a reading (a part read fresh, else the part as last seen),
/// and those a fresh part names that its previous reading did not (a part never read before
/// is a baseline: no newcomers).
pub(crate) fn parties_after(
    baseline: &MonitoringBaseline,
    paid: &PaidReadings,
) -> (Vec<Party>, Vec<Party>) {
    let mut parties = Vec::new();
    let mut newcomers = Vec::new();
    let officers_before = baseline.officers.as_ref().map(OfficerList::parties);
    match &paid.officers {
        Part::Fresh(list, _) => {
            let now = list.parties();
            if let Some(before) = &officers_before {
                newcomers.extend(new_parties(before, &now));
            }
            parties.extend(now);
        }
        _ => parties.extend(officers_before.unwrap_or_default()),
    }
    let owners_before = baseline.owners.as_ref().map(OwnerList::parties);
    match &paid.owners {
        Part::Fresh(list, _) => {
            let now = list.parties();
            if let Some(before) = &owners_before {
                newcomers.extend(new_parties(before, &now));
            }
            parties.extend(now);
        }
        _ => parties.extend(owners_before.unwrap_or_default()),
    }
    (parties, newcomers)
}

/// One part of a reading.
#[derive(Clone, Debug, Default)]
pub(crate) enum Part<T> {
    /// Not part of this reading (a light check, or no paid tier for the country).
    #[default]
    NotRead,
    /// Attempted, but the budget or the registry stopped it: reported as not checked.
    NotChecked,
    /// Read fresh, with the evidence of its call.
    Fresh(T, Evidence),
}

/// The paid parts of a reading.
#[derive(Clone, Debug, Default)]
pub(crate) struct PaidReadings {
    pub officers: Part<OfficerList>,
    pub owners: Part<OwnerList>,
}

/// How much a reading covers: the free register data only (a light check), or the paid
/// parts too.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReadingScope {
    Light,
    Full,
}

impl ReadingScope {
    fn as_str(self) -> &'static str {
        match self {
            ReadingScope::Light => "light",
            ReadingScope::Full => "full",
        }
    }
}

/// One reading of a subscription's company, as [`observe`] compares it.
pub(crate) struct Reading<'a> {
    pub trigger: Trigger,
    /// The reading's identity in its events' idempotency keys: a scheduled run's due time
    /// (a run redone after a crash has the same), or a forced refresh's register call.
    pub key: String,
    pub scope: ReadingScope,
    pub profile: &'a CompanyProfile,
    pub paid: &'a PaidReadings,
    /// A full reading the monitoring share could not pay for: its paid parts resume then.
    pub deferred_until: Option<DateTime<Utc>>,
}

/// Compares a reading with the subscription's baseline: the events to log (a change event
/// per kind of move, `refresh.deferred` when the paid parts were put off, then
/// `refresh.completed` naming what was not checked) and the baseline to keep. A part that
/// was not checked is never reported as changed nor unchanged, and keeps its old baseline.
pub(crate) fn observe(
    subscription: &Subscription,
    subject: &SubjectHandle,
    baseline: &MonitoringBaseline,
    reading: &Reading<'_>,
    at: DateTime<Utc>,
) -> (Vec<NewEvent>, MonitoringBaseline) {
    let after = reading.profile;
    let mut events = Vec::new();
    let mut not_checked: Vec<&'static str> = Vec::new();
    let mut kept = MonitoringBaseline::default();
    let event = |t: EventType, mut data: Vec<(String, EventData)>, evidence: &Evidence| {
        let mut head = vec![
            (
                "trigger".to_owned(),
                EventData::Text(reading.trigger.as_str().to_owned()),
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
            idempotency_key: format!("{}:{}:{}", subscription.id, reading.key, t.name()),
            type_name: t.name().to_owned(),
            // Filed under the country of the source that produced it.
            country: after.country,
            subject_id: Some(subject.subject_id),
            subject_ref: None,
            subscription_id: Some(subscription.id),
            occurred_at: at,
            data: EventData::Object(head),
            evidence: evidence.clone(),
        }
    };
    let texts = |names: &[&'static str]| {
        EventData::List(
            names
                .iter()
                .map(|u| EventData::Text((*u).to_owned()))
                .collect(),
        )
    };

    if let Some(before) = &baseline.profile {
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
                    ("not_checked".to_owned(), texts(&unchecked)),
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
    } else {
        not_checked.extend(after.unchecked.iter().map(|g| g.as_str()));
    }
    kept.profile = Some(carry_unchecked(baseline.profile.as_ref(), after));

    match &reading.paid.officers {
        Part::Fresh(new, evidence) => {
            if let Some(diff) = baseline
                .officers
                .as_ref()
                .and_then(|old| signatory_diff(old, new))
            {
                events.push(event(
                    EventType::SignatoryChanged,
                    vec![("changes".to_owned(), diff)],
                    evidence,
                ));
            }
            kept.officers = Some(new.clone());
        }
        Part::NotChecked => not_checked.push("officers"),
        Part::NotRead => {}
    }
    match &reading.paid.owners {
        Part::Fresh(new, evidence) => {
            if let Some(diff) = baseline.owners.as_ref().and_then(|old| ubo_diff(old, new)) {
                events.push(event(
                    EventType::UboChanged,
                    vec![("changes".to_owned(), diff)],
                    evidence,
                ));
            }
            kept.owners = Some(new.clone());
        }
        Part::NotChecked => not_checked.push("beneficial_owners"),
        Part::NotRead => {}
    }
    let changes = events.len();
    if let Some(until) = reading.deferred_until {
        events.push(event(
            EventType::RefreshDeferred,
            vec![
                (
                    "reason".to_owned(),
                    EventData::Text("monitoring_share_reached".to_owned()),
                ),
                (
                    "deferred".to_owned(),
                    texts(&["officers", "beneficial_owners"]),
                ),
                (
                    "resumes_at".to_owned(),
                    EventData::Text(until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                ),
            ],
            &after.evidence,
        ));
    }
    events.push(event(
        EventType::RefreshCompleted,
        vec![
            (
                "scope".to_owned(),
                EventData::Text(reading.scope.as_str().to_owned()),
            ),
            (
                "baseline".to_owned(),
                EventData::Bool(baseline.profile.is_none()),
            ),
            (
                "changes".to_owned(),
                EventData::Int(i64::try_from(changes).unwrap_or(i64::MAX)),
            ),
            ("not_checked".to_owned(), texts(&not_checked)),
        ],
        &after.evidence,
    ));
    (events, kept)
}
