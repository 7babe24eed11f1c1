//! The daily paid-call budget of a tenant (Limits 1-3 of the interface).
//!
//! Every paid upstream call is metered before it is made: one atomic "spend if it fits"
//! against a per-tenant, per-day counter, so concurrent requests can never overspend. A call
//! that then fails upstream still counts, because the upstream bills the transaction.
//!
//! The day is a calendar day in Sweden's time zone ([`BUDGET_TIME_ZONE`]): the budget
//! renews at midnight Stockholm time, the day the tenants and the registry keep.
//!
//! The budget is split in two parts that share one counter row: scheduled monitoring may
//! take only the tenant's monitoring share (`floor(daily × share)`), and that share is
//! reserved for it, so on-demand reads may take the rest. Neither can starve the other, and
//! together they never exceed the daily budget.

use crate::access::tenant::Budget;
use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// The time zone of the budget's calendar day.
pub const BUDGET_TIME_ZONE: Tz = chrono_tz::Europe::Stockholm;

/// The budget day `now` falls in.
pub fn budget_day(now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&BUDGET_TIME_ZONE).date_naive()
}

/// When the budget of `day` renews (the next midnight in [`BUDGET_TIME_ZONE`]).
pub fn renews_at(day: NaiveDate) -> DateTime<Utc> {
    let next = day.checked_add_days(Days::new(1)).unwrap_or(day);
    let midnight = next.and_hms_opt(0, 0, 0).unwrap_or_default();
    BUDGET_TIME_ZONE
        .from_local_datetime(&midnight)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| midnight.and_utc())
}

/// Who spends: a consumer's read, or scheduled monitoring work.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Spender {
    OnDemand,
    Scheduled,
}

impl Spender {
    pub fn as_str(self) -> &'static str {
        match self {
            Spender::OnDemand => "on_demand",
            Spender::Scheduled => "scheduled",
        }
    }
}

impl Budget {
    /// The part of the daily budget scheduled monitoring may take.
    pub fn scheduled_cap(&self) -> i64 {
        let share = self.monitoring_share.clamp(0.0, 1.0);
        // The product of a non-negative count and a share within 0..=1 fits an i64.
        #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
        let cap = (self.daily_paid_calls as f64 * share).floor() as i64;
        cap.clamp(0, self.daily_paid_calls.max(0))
    }

    /// The part of the daily budget a spender may take.
    pub fn cap(&self, spender: Spender) -> i64 {
        match spender {
            Spender::Scheduled => self.scheduled_cap(),
            Spender::OnDemand => self.daily_paid_calls.max(0) - self.scheduled_cap(),
        }
    }
}

/// One metering request: spend `units` of `spender`'s part of `day`'s budget, but only if
/// that part's use stays within `cap`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spend {
    pub day: NaiveDate,
    pub spender: Spender,
    pub units: i64,
    pub cap: i64,
}

impl Spend {
    /// One paid call of `spender` now, against the tenant's budget.
    pub fn one_call(budget: &Budget, spender: Spender, now: DateTime<Utc>) -> Spend {
        Spend {
            day: budget_day(now),
            spender,
            units: 1,
            cap: budget.cap(spender),
        }
    }
}

/// A tenant's use of one day's budget.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BudgetUsage {
    pub on_demand: i64,
    pub scheduled: i64,
}

/// What the operator sees of a tenant's budget on a day.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetStatement {
    pub day: NaiveDate,
    pub time_zone: &'static str,
    pub renews_at: DateTime<Utc>,
    pub budget: Budget,
    pub usage: BudgetUsage,
    /// Person lookups counted against the day's person-lookup ceiling.
    pub person_lookups: i64,
}

impl BudgetStatement {
    pub fn remaining(&self, spender: Spender) -> i64 {
        let used = match spender {
            Spender::OnDemand => self.usage.on_demand,
            Spender::Scheduled => self.usage.scheduled,
        };
        (self.budget.cap(spender) - used).max(0)
    }

    /// Person lookups left today under the ceiling.
    pub fn person_lookups_remaining(&self) -> i64 {
        (self.budget.person_lookup_ceiling - self.person_lookups).max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(daily: i64, share: f64) -> Budget {
        Budget {
            daily_paid_calls: daily,
            monitoring_share: share,
            person_lookup_ceiling: 0,
        }
    }

    #[test]
    fn the_parts_never_exceed_the_budget() {
        for daily in [0, 1, 2, 3, 7, 10, 1000] {
            for share in [0.0, 0.1, 0.25, 0.5, 0.75, 0.999, 1.0] {
                let b = budget(daily, share);
                assert_eq!(
                    b.cap(Spender::OnDemand) + b.cap(Spender::Scheduled),
                    daily,
                    "{daily} {share}"
                );
                assert!(b.cap(Spender::OnDemand) >= 0 && b.cap(Spender::Scheduled) >= 0);
            }
        }
        assert_eq!(budget(10, 0.5).cap(Spender::OnDemand), 5);
        assert_eq!(budget(7, 0.5).cap(Spender::OnDemand), 4);
        assert_eq!(budget(10, 0.0).cap(Spender::OnDemand), 10);
        assert_eq!(budget(10, 1.0).cap(Spender::OnDemand), 0);
    }

    #[test]
    fn the_day_is_stockholm_calendar_day() {
        // 23:30 UTC on 2026-11-22 is 00:30 on 2026-11-23 in Stockholm (UTC+1 in winter).
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 23, 30, 0).unwrap();
        assert_eq!(
            budget_day(t),
            NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
        );
        // Summer time: UTC+2.
        let t = Utc.with_ymd_and_hms(2026, 6, 30, 21, 59, 0).unwrap();
        assert_eq!(budget_day(t), NaiveDate::from_ymd_opt(2026, 6, 30).unwrap());
        let t = Utc.with_ymd_and_hms(2026, 6, 30, 22, 0, 0).unwrap();
        assert_eq!(budget_day(t), NaiveDate::from_ymd_opt(2026, 7, 1).unwrap());
        assert_eq!(
            renews_at(NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()),
            Utc.with_ymd_and_hms(2026, 11, 23, 23, 0, 0).unwrap()
        );
    }
}
