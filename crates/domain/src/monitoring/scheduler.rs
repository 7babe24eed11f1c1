//! Scheduled monitoring: the runner inside every replica.
//!
//! A pass ([`Scheduler::tick`]) claims a batch of due subscriptions from the shared queue
//! (`SubscriptionStore::claim_due`: `FOR UPDATE SKIP LOCKED` with a lease, so replicas share
//! the work and none does a run twice), works each, completes it with its next due time, and
//! then purges what retention allows. Time comes from the clock port, so tests drive days in
//! milliseconds.
//!
//! A company subscription's run is a *light check* (the free register data) every
//! `check_days`, and a *full refresh* (officers and beneficial owners too, paid) every
//! `full_refresh_days`. A full refresh is metered before any paid call, against the tenant's
//! monitoring share of the day's budget, in one atomic spend for all its paid calls: when the
//! share cannot pay, the light check still runs, `refresh.deferred` is logged, and the run is
//! due again when the next budget day begins. The reading is compared with the subscription's
//! baseline ([`super::refresh_service::observe`], shared with the forced refresh), and its
//! events and the new baseline are written in one transaction. A register that cannot answer
//! logs nothing (nothing was checked) and the run is retried after [`RETRY_AFTER_MINUTES`].
//!
//! A person subscription tracks the tenant's permit, not the person: its run checks the
//! permit and suspends the subscription (`permit_lapsed`) when it is no longer in force; it
//! makes no upstream call and emits no `person.changed`.
//!
//! Ending a subscription clears its next run in the same statement, so the queue never
//! hands it out again; a run already under way checks the subscription right before its
//! first upstream call and writes nothing once it has ended (the store refuses a reading of a
//! subscription that is not active).

use crate::access::caller::Caller;
use crate::access::ports::TenantStore;
use crate::access::tenant::{Permit, PermitStanding, TenantStatus};
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, Spend, Spender};
use crate::companies::paid_service::PaidRead;
use crate::companies::ports::PaidStore;
use crate::error::Failure;
use crate::error::StoreError;
use crate::monitoring::ports::SubscriptionStore;
use crate::monitoring::refresh_service::{
    observe, PaidReadings, Reading, ReadingScope, RefreshService, Trigger,
};
use crate::monitoring::subscription::{
    ClaimedRun, RunOutcome, Subscription, SubscriptionKind, SubscriptionStatus, SuspensionReason,
};
use crate::monitoring::subscription_service::lifecycle_event;
use crate::operation::Operation;
use crate::subjects::identifier::{Identifier, SubjectKind};
use crate::subjects::ports::SubjectStore;
use crate::subjects::service::SubjectService;
use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

/// How long after a register failure a run is tried again.
pub const RETRY_AFTER_MINUTES: i64 = 60;
/// The paid calls of one full refresh (officers, beneficial owners), metered together.
pub const PAID_CALLS_PER_FULL_REFRESH: i64 = 2;

/// How the scheduler claims work.
#[derive(Clone, Debug)]
pub struct SchedulerSettings {
    /// How long a claimed run is held before another replica may take it over.
    pub lease: Duration,
    /// Runs claimed per pass.
    pub batch: u32,
}

impl Default for SchedulerSettings {
    fn default() -> Self {
        SchedulerSettings {
            lease: Duration::minutes(5),
            batch: 50,
        }
    }
}

pub struct Scheduler {
    /// Where what this use case does is counted for operators.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub refresh: Arc<RefreshService>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub tenants: Arc<dyn TenantStore>,
    pub subjects: Arc<SubjectService>,
    pub subject_store: Arc<dyn SubjectStore>,
    /// The daily paid-call budget (the monitoring share).
    pub budget: Arc<dyn PaidStore>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
    pub settings: SchedulerSettings,
}

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickReport {
    pub claimed: u32,
    /// Runs that read their subject (or checked their permit) and were completed.
    pub checked: u32,
    /// Full refreshes whose paid parts the monitoring share could not pay for.
    pub deferred: u32,
    /// Runs whose register could not answer; retried later.
    pub retried: u32,
    /// Subscriptions suspended by their run (`permit_lapsed`, `country_deprovisioned`).
    pub suspended: u32,
    /// Runs of subscriptions that ended (or were suspended) while the run was under way,
    /// or whose lease another replica took over.
    pub cancelled: u32,
    /// Runs with nothing to read yet (a tenant not active, a subject without a company code
    /// in the subscription's country), due again one cadence later.
    pub postponed: u32,
    /// Ended subscriptions purged after their retention.
    pub purged: u32,
    /// Runs that failed in the service itself (storage); their lease runs out and another
    /// pass takes them again with the same due time.
    pub failed: u32,
    /// The first such failure's message, for the operator's log (never personal data: the
    /// failures of this service name no identifier).
    pub first_failure: Option<String>,
}

/// How one run ended.
enum RunEnd {
    Checked { deferred: bool },
    Retry,
    Suspended,
    Cancelled,
    Postponed,
}

impl Scheduler {
    /// One pass: claim due runs, work them, complete them; then purge.
    ///
    /// # Errors
    /// Only a storage failure of the claim or the purge; a run that fails is counted in the
    /// report and its lease left to expire, so another pass takes it again.
    pub async fn tick(&self) -> Result<TickReport, Failure> {
        let now = self.clock.now();
        let claimed = self
            .subscriptions
            .claim_due(now, now + self.settings.lease, self.settings.batch)
            .await
            .map_err(Failure::internal)?;
        let mut report = TickReport {
            claimed: u32::try_from(claimed.len()).unwrap_or(u32::MAX),
            ..TickReport::default()
        };
        for run in &claimed {
            match self.work(run).await {
                Ok(RunEnd::Checked { deferred }) => {
                    report.checked += 1;
                    report.deferred += u32::from(deferred);
                }
                Ok(RunEnd::Retry) => report.retried += 1,
                Ok(RunEnd::Suspended) => report.suspended += 1,
                Ok(RunEnd::Cancelled) => report.cancelled += 1,
                Ok(RunEnd::Postponed) => report.postponed += 1,
                // The lease runs out and the run is claimed again with the same due time.
                Err(f) => {
                    report.failed += 1;
                    report.first_failure.get_or_insert(f.message);
                }
            }
        }
        let purged = self
            .subscriptions
            .purge_due(self.clock.now(), self.settings.batch)
            .await
            .map_err(Failure::internal)?;
        report.purged = u32::try_from(purged.len()).unwrap_or(u32::MAX);
        if !claimed.is_empty() {
            self.meter.scheduler_pass(&crate::meter::SchedulerPass {
                lags: claimed
                    .iter()
                    .map(|run| (now - run.due_at).to_std().unwrap_or_default())
                    .collect(),
                deferred: report.deferred,
            });
        }
        Ok(report)
    }

    async fn work(&self, run: &ClaimedRun) -> Result<RunEnd, Failure> {
        let now = self.clock.now();
        let sub = &run.subscription;
        let (tenant, data_key) = self
            .tenants
            .tenant_with_key(&run.tenant_id)
            .await
            .map_err(Failure::internal)?;
        let next_check = next_due(run.due_at, sub.check_days, now);
        if tenant.status != TenantStatus::Active {
            // A tenant not (yet) active is not worked for; its subscriptions wait.
            return self
                .complete(run, next_check, None, None, RunEnd::Postponed)
                .await;
        }
        if !tenant.provisioned.contains(sub.country) {
            return self
                .suspend(run, SuspensionReason::CountryDeprovisioned, now)
                .await;
        }
        match sub.kind {
            SubscriptionKind::Person => {
                if Permit::standing(tenant.permit.as_ref(), self.calendar.day(now))
                    != PermitStanding::InForce
                {
                    return self.suspend(run, SuspensionReason::PermitLapsed, now).await;
                }
                let checked = RunEnd::Checked { deferred: false };
                self.complete(run, next_check, Some(now), None, checked)
                    .await
            }
            SubscriptionKind::Company => {
                let caller = Caller::monitoring(tenant, data_key, now);
                self.company_run(&caller, run, now, next_check).await
            }
        }
    }

    async fn company_run(
        &self,
        caller: &Caller,
        run: &ClaimedRun,
        now: DateTime<Utc>,
        next_check: DateTime<Utc>,
    ) -> Result<RunEnd, Failure> {
        let sub = &run.subscription;
        let Some(orgnr) = self.watched_identifier(caller, sub).await? else {
            // The subject holds no company code in the subscription's country any more
            // (moved by a merge): nothing to read until one is there again.
            return self
                .complete(run, next_check, None, None, RunEnd::Postponed)
                .await;
        };
        // The last look before an upstream call: an ended subscription makes none.
        if !self.still_active(run).await? {
            return Ok(RunEnd::Cancelled);
        }
        let op = Operation::MonitoringRun;
        let (profile, subject) = match self.refresh.read_profile(caller, op, &orgnr).await? {
            Ok(read) => read,
            Err(_) => {
                let retry = now + Duration::minutes(RETRY_AFTER_MINUTES);
                return self
                    .complete(run, retry.min(next_check), None, None, RunEnd::Retry)
                    .await;
            }
        };

        let full_due = run
            .last_full_refresh_at
            .is_none_or(|at| now - at >= Duration::days(i64::from(sub.full_refresh_days)));
        let mut paid = PaidReadings::default();
        let mut scope = ReadingScope::Light;
        let mut deferred_until = None;
        if full_due {
            // A full reading spends the monitoring share only where the roles are charged.
            let free = !self.refresh.paid_serves(&orgnr) || !self.refresh.paid_charges(&orgnr);
            if free || self.meter_full_refresh(caller, now).await? {
                scope = ReadingScope::Full;
                paid = self
                    .refresh
                    .read_paid(caller, op, &orgnr, PaidRead::Prepaid)
                    .await?;
            } else {
                deferred_until = Some(self.calendar.renews_at(self.calendar.day(now)));
            }
        }

        let baseline = self
            .subscriptions
            .baseline(&caller.tenant_id, &sub.id)
            .await
            .map_err(Failure::internal)?;
        let reading = Reading {
            trigger: Trigger::Scheduled,
            key: format!("run-{}", run.due_at.timestamp_micros()),
            scope,
            profile: &profile,
            paid: &paid,
            deferred_until,
        };
        let (events, kept) = observe(sub, &subject, &baseline, &reading, now);
        self.refresh
            .screen_newcomers(caller, sub, &baseline, &reading)
            .await?;
        let written = self
            .subscriptions
            .record_reading(
                &caller.tenant_id,
                &sub.id,
                Some(run.lease_until),
                &kept,
                &events,
            )
            .await
            .map_err(Failure::internal)?;
        if written.is_none() {
            return Ok(RunEnd::Cancelled);
        }
        crate::monitoring::event::meter_appended(self.meter.as_ref(), &events);
        let next = deferred_until.map_or(next_check, |resume| resume.min(next_check));
        let full_at = (scope == ReadingScope::Full).then_some(now);
        let checked = RunEnd::Checked {
            deferred: deferred_until.is_some(),
        };
        self.complete(run, next, Some(now), full_at, checked).await
    }

    /// Spends the paid calls of one full refresh from the monitoring share, atomically;
    /// false when the share cannot pay for them.
    async fn meter_full_refresh(
        &self,
        caller: &Caller,
        now: DateTime<Utc>,
    ) -> Result<bool, Failure> {
        let mut spend = Spend::one_call(
            &caller.tenant.budget,
            Spender::Scheduled,
            self.calendar.day(now),
        );
        spend.units = PAID_CALLS_PER_FULL_REFRESH;
        let spent = self
            .budget
            .spend_budget(&caller.tenant_id, &spend)
            .await
            .map_err(Failure::internal)?;
        self.meter
            .budget(crate::meter::Budget::Paid(Spender::Scheduled), spent);
        Ok(spent)
    }

    /// The company code the subscription watches: the subject's current code of the
    /// subscription's country, revealed for the upstream call only.
    async fn watched_identifier(
        &self,
        caller: &Caller,
        sub: &Subscription,
    ) -> Result<Option<Identifier>, Failure> {
        let record = match self
            .subject_store
            .subject(&caller.tenant_id, &sub.subject_id)
            .await
        {
            Ok(r) => r,
            Err(StoreError::NotFound) => return Ok(None),
            Err(e) => return Err(Failure::internal(e)),
        };
        // The country's company code (a company subject's other identifiers are aliases).
        let Some(stored) = record.identifiers.iter().find(|i| {
            i.valid_to.is_none()
                && i.country == sub.country
                && i.id_type.subject_kind() == SubjectKind::Company
        }) else {
            return Ok(None);
        };
        let Some(holder) = self.subjects.holder(caller, &stored.identifier_ref).await? else {
            return Ok(None);
        };
        self.subjects.reveal(caller, &holder).map(Some)
    }

    async fn still_active(&self, run: &ClaimedRun) -> Result<bool, Failure> {
        Ok(self
            .subscriptions
            .subscription(&run.tenant_id, &run.subscription.id)
            .await
            .map_err(Failure::internal)?
            .is_some_and(|s| s.status == SubscriptionStatus::Active))
    }

    async fn suspend(
        &self,
        run: &ClaimedRun,
        reason: SuspensionReason,
        now: DateTime<Utc>,
    ) -> Result<RunEnd, Failure> {
        let mut updated = run.subscription.clone();
        updated.status = SubscriptionStatus::Suspended;
        updated.suspended_at = Some(now);
        updated.suspension_reason = Some(reason);
        updated.next_run_at = None;
        let event = lifecycle_event(&updated, "suspended", now);
        let moved = self
            .subscriptions
            .transition_subscription(&run.tenant_id, SubscriptionStatus::Active, &updated, &event)
            .await
            .map_err(Failure::internal)?;
        if moved {
            crate::monitoring::event::meter_appended(self.meter.as_ref(), [&event]);
        }
        Ok(if moved {
            RunEnd::Suspended
        } else {
            RunEnd::Cancelled
        })
    }

    /// Completes the run with its next due time and dates; answers `done`, or `Cancelled`
    /// when the claim no longer held (another replica took the run over, or it ended).
    async fn complete(
        &self,
        run: &ClaimedRun,
        next_run_at: DateTime<Utc>,
        checked_at: Option<DateTime<Utc>>,
        full_refresh_at: Option<DateTime<Utc>>,
        done: RunEnd,
    ) -> Result<RunEnd, Failure> {
        let outcome = RunOutcome {
            next_run_at,
            checked_at,
            full_refresh_at,
        };
        let held = self
            .subscriptions
            .complete_run(run, &outcome)
            .await
            .map_err(Failure::internal)?;
        Ok(if held { done } else { RunEnd::Cancelled })
    }
}

/// The next due time after a run that was due at `due_at`: one cadence later, or, when the
/// service was down past that, one cadence from now (missed runs are not replayed one by one).
pub fn next_due(due_at: DateTime<Utc>, cadence_days: u32, now: DateTime<Utc>) -> DateTime<Utc> {
    let cadence = Duration::days(i64::from(cadence_days));
    let next = due_at + cadence;
    if next > now {
        next
    } else {
        now + cadence
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_next_run_keeps_the_cadence_and_never_replays_missed_runs() {
        let due = Utc.with_ymd_and_hms(2026, 11, 1, 6, 0, 0).unwrap();
        assert_eq!(
            next_due(due, 1, due + Duration::minutes(3)),
            due + Duration::days(1)
        );
        let late = due + Duration::days(5);
        assert_eq!(next_due(due, 1, late), late + Duration::days(1));
        assert_eq!(
            next_due(due, 7, due + Duration::days(2)),
            due + Duration::days(7)
        );
    }
}
