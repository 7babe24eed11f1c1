//! The subscription use cases: create, read, list and end, each change logged as a
//! `subscription.*` event in the same transaction.
//!
//! Create checks, in order: the scope (`monitoring:subscribe`); the body (`kind`,
//! `legal_basis` (400 `legal_basis_invalid`), the cadences); the subject (404 when the tenant
//! has none visible to the caller; 400 when its kind is not the subscription's); the country
//! with a scheduled source (a subject identified only where none exists: 501); for kind
//! `person` the permit gate (403); then one unended subscription per subject and kind (409
//! `subscription_exists`).
//!
//! Reads: `monitoring:read` and `monitoring:subscribe` see every kind; `kyb:read` sees company
//! subscriptions and `kyc:read` person ones. A subscription of a kind the caller may not read,
//! or in a country outside its grant, is 404.

use crate::access::caller::Caller;
use crate::access::scope::Scope;
use crate::clock::Clock;
use crate::countries::country::{Country, CountrySet};
use crate::countries::registry::Countries;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::evidence::Evidence;
use crate::ids::{EventId, SubjectId, SubscriptionId};
use crate::monitoring::event::{EventData, EventType, NewEvent};
use crate::monitoring::ports::SubscriptionStore;
use crate::monitoring::subscription::{
    LegalBasis, SubscribeRequest, Subscription, SubscriptionFilter, SubscriptionKind,
    SubscriptionStatus, SubscriptionsRequest, DEFAULT_CHECK_DAYS, DEFAULT_FULL_REFRESH_DAYS,
    DEFAULT_LIST_LIMIT, MAX_CADENCE_DAYS, MAX_LIST_LIMIT,
};
use crate::operation::Operation;
use crate::persons::service::permit_gate;
use crate::subjects::identifier::SubjectKind;
use crate::subjects::ports::SubjectStore;
use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

pub struct SubscriptionService {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub store: Arc<dyn SubscriptionStore>,
    pub subjects: Arc<dyn SubjectStore>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: crate::companies::budget::BudgetCalendar,
    /// The served countries' connectors: which declare a scheduled source for each kind.
    pub countries: Arc<Countries>,
}

/// The kinds a caller may read.
fn readable_kinds(caller: &Caller) -> Vec<SubscriptionKind> {
    if caller
        .scopes
        .contains_any(&[Scope::MonitoringRead, Scope::MonitoringSubscribe])
    {
        return vec![SubscriptionKind::Company, SubscriptionKind::Person];
    }
    let mut kinds = Vec::new();
    if caller.scopes.contains_any(&[Scope::KybRead]) {
        kinds.push(SubscriptionKind::Company);
    }
    if caller.scopes.contains_any(&[Scope::KycRead]) {
        kinds.push(SubscriptionKind::Person);
    }
    kinds
}

/// A cadence in days: absent is the default, else a whole number from 1 to the bound.
fn cadence(field: &str, value: Option<i64>, default: u32) -> Result<u32, Failure> {
    match value {
        None => Ok(default),
        Some(v) => u32::try_from(v)
            .ok()
            .filter(|d| (1..=MAX_CADENCE_DAYS).contains(d))
            .ok_or_else(|| {
                Failure::bad_request(
                    field,
                    &format!("must be a whole number of days from 1 to {MAX_CADENCE_DAYS}"),
                )
            }),
    }
}

impl SubscriptionService {
    /// `POST /v1/subscriptions` (`subscribe_monitoring`).
    pub async fn create(
        &self,
        caller: &Caller,
        request: SubscribeRequest,
    ) -> Result<Subscription, Failure> {
        caller.require_operation(Operation::CreateSubscription)?;
        let kind = SubscriptionKind::parse(&request.kind)
            .ok_or_else(|| Failure::bad_request("kind", "must be `person` or `company`"))?;
        let legal_basis = LegalBasis::parse(&request.legal_basis).ok_or_else(|| {
            Failure::new(
                ErrorCode::LegalBasisInvalid,
                "`legal_basis` must be one of aml_cdd, contract, legal_obligation, consent, \
                 legitimate_interest",
            )
        })?;
        let check_days = cadence("check_days", request.check_days, DEFAULT_CHECK_DAYS)?;
        let full_refresh_days = cadence(
            "full_refresh_days",
            request.full_refresh_days,
            DEFAULT_FULL_REFRESH_DAYS.max(check_days),
        )?;
        if full_refresh_days < check_days {
            return Err(Failure::bad_request(
                "full_refresh_days",
                "must not be shorter than check_days",
            ));
        }
        let legal_basis_ref = match request.legal_basis_ref {
            Some(r) if r.chars().count() > 500 => {
                return Err(Failure::bad_request(
                    "legal_basis_ref",
                    "must be at most 500 characters",
                ))
            }
            Some(r) if crate::subjects::identifier::shape::holds_personal_number(&r) => {
                return Err(Failure::bad_request(
                    "legal_basis_ref",
                    crate::subjects::identifier::shape::IN_FREE_TEXT,
                ))
            }
            other => other,
        };

        let not_found = || Failure::not_found("subject");
        let subject_id: SubjectId = request.subject_id.trim().parse().map_err(|_| not_found())?;
        let record = match self.subjects.subject(&caller.tenant_id, &subject_id).await {
            Ok(r) => r,
            Err(StoreError::NotFound) => return Err(not_found()),
            Err(e) => return Err(Failure::internal(e)),
        };
        let visible = caller.visible_countries();
        let countries: Vec<Country> = record
            .identifiers
            .iter()
            .filter(|i| i.valid_to.is_none() && visible.contains(i.country))
            .map(|i| i.country)
            .collect();
        if countries.is_empty() {
            return Err(not_found());
        }
        let subject_kind = match kind {
            SubscriptionKind::Company => SubjectKind::Company,
            SubscriptionKind::Person => SubjectKind::Person,
        };
        if record.kind != subject_kind {
            return Err(Failure::bad_request(
                "kind",
                &format!(
                    "the subject is a {}, not a {}",
                    match record.kind {
                        SubjectKind::Company => "company",
                        SubjectKind::Person => "person",
                    },
                    kind.as_str()
                ),
            ));
        }
        // A subject also identified where a scheduled source exists is served from there.
        let monitored = self.countries.monitored(subject_kind);
        let country = countries
            .iter()
            .copied()
            .find(|c| monitored.contains(*c))
            .ok_or_else(|| Countries::not_monitored(subject_kind, countries[0]))?;
        let now = self.clock.now();
        if kind == SubscriptionKind::Person {
            permit_gate(caller, self.calendar.day(now))?;
        }

        let subscription = Subscription {
            id: SubscriptionId::generate(),
            subject_id: record.subject_id,
            aliases: record.aliases.clone(),
            kind,
            legal_basis,
            legal_basis_ref,
            status: SubscriptionStatus::Active,
            check_days,
            full_refresh_days,
            country,
            created_at: now,
            suspended_at: None,
            suspension_reason: None,
            ended_at: None,
            purge_after: None,
            // Due at once: the first run takes the baseline.
            next_run_at: Some(now),
        };
        let event = lifecycle_event(&subscription, "created", now);
        match self
            .store
            .create_subscription(&caller.tenant_id, &subscription, &event)
            .await
        {
            Ok(stored) => {
                crate::monitoring::event::meter_appended(self.meter.as_ref(), [&event]);
                Ok(stored)
            }
            Err(StoreError::SubscriptionExists) => Err(Failure::new(
                ErrorCode::SubscriptionExists,
                format!(
                    "a {} subscription of this subject is already active (or suspended); end it \
                     to start a new one",
                    kind.as_str()
                ),
            )),
            Err(e) => Err(Failure::internal(e)),
        }
    }

    /// `GET /v1/subscriptions/{id}` (`get_subscription`).
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<Subscription, Failure> {
        caller.require_operation(Operation::GetSubscription)?;
        self.readable(caller, id).await
    }

    /// A subscription the caller may read, or 404.
    async fn readable(&self, caller: &Caller, id: &str) -> Result<Subscription, Failure> {
        let not_found = || Failure::not_found("subscription");
        let id: SubscriptionId = id.trim().parse().map_err(|_| not_found())?;
        self.store
            .subscription(&caller.tenant_id, &id)
            .await
            .map_err(Failure::internal)?
            .filter(|s| readable_kinds(caller).contains(&s.kind))
            .filter(|s| caller.visible_countries().contains(s.country))
            .ok_or_else(not_found)
    }

    /// `GET /v1/subscriptions` (`list_subscriptions`): newest first.
    pub async fn list(
        &self,
        caller: &Caller,
        request: &SubscriptionsRequest,
    ) -> Result<Vec<Subscription>, Failure> {
        caller.require_operation(Operation::ListSubscriptions)?;
        let limit = match request.limit.as_deref() {
            None => DEFAULT_LIST_LIMIT,
            Some(v) => v
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_LIST_LIMIT).contains(n))
                .ok_or_else(|| {
                    Failure::bad_request(
                        "limit",
                        &format!("must be a whole number from 1 to {MAX_LIST_LIMIT}"),
                    )
                })?,
        };
        let status = request
            .status
            .as_deref()
            .map(|s| {
                SubscriptionStatus::parse(s.trim()).ok_or_else(|| {
                    Failure::bad_request("status", "must be `active`, `suspended` or `ended`")
                })
            })
            .transpose()?;
        let filter = SubscriptionFilter {
            kinds: readable_kinds(caller),
            status,
            limit,
        };
        let visible = caller.visible_countries();
        let mut list = self
            .store
            .subscriptions(&caller.tenant_id, &filter)
            .await
            .map_err(Failure::internal)?;
        list.retain(|s| visible.contains(s.country));
        Ok(list)
    }

    /// `POST /v1/subscriptions/{id}/end` (`end_subscription`): one way; queued work is
    /// cancelled with it (no next run); the second time 409 `subscription_ended`. A suspended
    /// subscription ends the same way.
    pub async fn end(&self, caller: &Caller, id: &str) -> Result<Subscription, Failure> {
        caller.require_operation(Operation::EndSubscription)?;
        let current = self.readable(caller, id).await?;
        let already = || {
            Failure::new(
                ErrorCode::SubscriptionEnded,
                "the subscription has already ended; create a new one to monitor again",
            )
        };
        if current.status == SubscriptionStatus::Ended {
            return Err(already());
        }
        let now = self.clock.now();
        let ended = current.ended(now, Duration::days(i64::from(caller.tenant.retention_days)));
        let event = lifecycle_event(&ended, "ended", now);
        match self
            .store
            .end_subscription(&caller.tenant_id, &ended, &event)
            .await
            .map_err(Failure::internal)?
        {
            Some((stored, true)) => {
                crate::monitoring::event::meter_appended(self.meter.as_ref(), [&event]);
                Ok(stored)
            }
            Some((_, false)) => Err(already()),
            None => Err(Failure::not_found("subscription")),
        }
    }
}

/// The `subscription.<what>` event of a subscription's change.
pub(crate) fn lifecycle_event(s: &Subscription, what: &str, at: DateTime<Utc>) -> NewEvent {
    debug_assert!(EventType::ALL
        .iter()
        .any(|t| t.name() == format!("subscription.{what}") || t.name() == "subscription.*"));
    let mut data = vec![
        (
            "subscription_id".to_owned(),
            EventData::Text(s.id.to_string()),
        ),
        (
            "kind".to_owned(),
            EventData::Text(s.kind.as_str().to_owned()),
        ),
        (
            "status".to_owned(),
            EventData::Text(s.status.as_str().to_owned()),
        ),
    ];
    if let Some(r) = s.suspension_reason {
        data.push(("reason".to_owned(), EventData::Text(r.as_str().to_owned())));
    }
    NewEvent {
        id: EventId::generate(),
        idempotency_key: format!("{}:{what}:{}", s.id, at.timestamp_micros()),
        type_name: format!("subscription.{what}"),
        country: s.country,
        subject_id: Some(s.subject_id),
        subject_ref: None,
        subscription_id: Some(s.id),
        occurred_at: at,
        data: EventData::Object(data),
        evidence: Evidence::derived(at),
    }
}

/// What a change of the tenant's provisioned countries does to its subscriptions: those in a
/// withdrawn country are suspended (`country_deprovisioned`); those suspended for that reason
/// in a restored country are resumed (due at once). Each move is logged with its event.
pub(crate) async fn follow_countries(
    store: &dyn SubscriptionStore,
    meter: &dyn crate::meter::Meter,
    tenant: &crate::ids::TenantId,
    before: &CountrySet,
    after: &CountrySet,
    now: DateTime<Utc>,
) -> Result<(), Failure> {
    use crate::monitoring::subscription::SuspensionReason;
    let withdrawn: Vec<Country> = before.iter().filter(|c| !after.contains(*c)).collect();
    let restored: Vec<Country> = after.iter().filter(|c| !before.contains(*c)).collect();
    if withdrawn.is_empty() && restored.is_empty() {
        return Ok(());
    }
    let all = SubscriptionFilter {
        kinds: vec![SubscriptionKind::Company, SubscriptionKind::Person],
        status: None,
        limit: u32::MAX,
    };
    let subscriptions = store
        .subscriptions(tenant, &all)
        .await
        .map_err(Failure::internal)?;
    for s in subscriptions {
        let (expected, updated, what) =
            if s.status == SubscriptionStatus::Active && withdrawn.contains(&s.country) {
                let mut u = s.clone();
                u.status = SubscriptionStatus::Suspended;
                u.suspended_at = Some(now);
                u.suspension_reason = Some(SuspensionReason::CountryDeprovisioned);
                u.next_run_at = None;
                (SubscriptionStatus::Active, u, "suspended")
            } else if s.status == SubscriptionStatus::Suspended
                && s.suspension_reason == Some(SuspensionReason::CountryDeprovisioned)
                && restored.contains(&s.country)
            {
                let mut u = s.clone();
                u.status = SubscriptionStatus::Active;
                u.suspended_at = None;
                u.suspension_reason = None;
                u.next_run_at = Some(now);
                (SubscriptionStatus::Suspended, u, "resumed")
            } else {
                continue;
            };
        let event = lifecycle_event(&updated, what, now);
        if store
            .transition_subscription(tenant, expected, &updated, &event)
            .await
            .map_err(Failure::internal)?
        {
            crate::monitoring::event::meter_appended(meter, [&event]);
        }
    }
    Ok(())
}

/// What a newly recorded permit does to the tenant's person subscriptions (they track the
/// permit): when it is not in force today, the active ones are suspended (`permit_lapsed`);
/// when it is, those suspended for a lapsed permit resume (due at once). A permit that lapses
/// by its dates alone is seen by the subscription's next scheduled run. Each move is logged
/// with its event.
pub(crate) async fn follow_permit(
    store: &dyn SubscriptionStore,
    meter: &dyn crate::meter::Meter,
    tenant: &crate::access::tenant::Tenant,
    today: chrono::NaiveDate,
    now: DateTime<Utc>,
) -> Result<(), Failure> {
    use crate::access::tenant::{Permit, PermitStanding};
    use crate::monitoring::subscription::SuspensionReason;
    let in_force = Permit::standing(tenant.permit.as_ref(), today) == PermitStanding::InForce;
    let person = SubscriptionFilter {
        kinds: vec![SubscriptionKind::Person],
        status: Some(if in_force {
            SubscriptionStatus::Suspended
        } else {
            SubscriptionStatus::Active
        }),
        limit: u32::MAX,
    };
    let subscriptions = store
        .subscriptions(&tenant.id, &person)
        .await
        .map_err(Failure::internal)?;
    for s in subscriptions {
        let mut u = s.clone();
        let (expected, what) = if in_force {
            if s.suspension_reason != Some(SuspensionReason::PermitLapsed)
                || !tenant.provisioned.contains(s.country)
            {
                continue;
            }
            u.status = SubscriptionStatus::Active;
            u.suspended_at = None;
            u.suspension_reason = None;
            u.next_run_at = Some(now);
            (SubscriptionStatus::Suspended, "resumed")
        } else {
            u.status = SubscriptionStatus::Suspended;
            u.suspended_at = Some(now);
            u.suspension_reason = Some(SuspensionReason::PermitLapsed);
            u.next_run_at = None;
            (SubscriptionStatus::Active, "suspended")
        };
        let event = lifecycle_event(&u, what, now);
        if store
            .transition_subscription(&tenant.id, expected, &u, &event)
            .await
            .map_err(Failure::internal)?
        {
            crate::monitoring::event::meter_appended(meter, [&event]);
        }
    }
    Ok(())
}
