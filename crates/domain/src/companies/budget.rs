//! The daily paid-call budget of a tenant (Limits 1-3 of the interface).
//!
//! Every paid upstream call is metered before it is made: one atomic "spend if it fits"
//! against a per-tenant, per-day counter, so concurrent requests can never overspend. A call
//! that then fails upstream still counts, because the upstream bills the transaction.
//!
//! The day is a calendar day in the deployment's time zone ([`BudgetCalendar`]; Stockholm's
//! unless the operator sets another): the budget renews at midnight there.
//!
//! The budget is split in two parts that share one counter row: scheduled monitoring may
//! take only the tenant's monitoring share (`floor(daily × share)`), and that share is
//! reserved for it, so on-demand reads may take the rest. Neither can starve the other, and
//! together they never exceed the daily budget.

use crate::access::tenant::Budget;
use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// The calendar the budget's day is kept in: a time zone the operator sets
/// (`IDREG_BUDGET_TIME_ZONE`, an IANA name), Europe/Stockholm unless set. Every tenant of a
/// deployment shares it, so a day's counter row means the same day to every replica.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BudgetCalendar(Tz);

impl Default for BudgetCalendar {
    fn default() -> Self {
        BudgetCalendar(chrono_tz::Europe::Stockholm)
    }
}

impl BudgetCalendar {
    pub fn new(zone: Tz) -> BudgetCalendar {
        BudgetCalendar(zone)
    }

    /// A calendar from an IANA time-zone name (`Europe/Oslo`, `UTC`).
    pub fn parse(name: &str) -> Result<BudgetCalendar, String> {
        name.trim()
            .parse::<Tz>()
            .map(BudgetCalendar)
            .map_err(|_| "not an IANA time-zone name such as Europe/Stockholm".to_owned())
    }

    /// The zone's IANA name.
    pub fn zone(self) -> &'static str {
        self.0.name()
    }

    /// The budget day `now` falls in.
    pub fn day(self, now: DateTime<Utc>) -> NaiveDate {
        now.with_timezone(&self.0).date_naive()
    }

    /// When the budget of `day` renews (the next midnight in the calendar's zone; where a
    /// clock change skips midnight, the first instant of the next day).
    pub fn renews_at(self, day: NaiveDate) -> DateTime<Utc> {
        let next = day.checked_add_days(Days::new(1)).unwrap_or(day);
        let midnight = next.and_hms_opt(0, 0, 0).unwrap_or_default();
        (0..=2)
            .find_map(|hours| {
                self.0
                    .from_local_datetime(&(midnight + chrono::Duration::hours(hours)))
                    .earliest()
            })
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| midnight.and_utc())
    }
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
    /// One paid call of `spender` on the budget day `day`, against the tenant's budget.
    pub fn one_call(budget: &Budget, spender: Spender, day: NaiveDate) -> Spend {
        Spend {
            day,
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
    fn the_day_is_stockholm_calendar_day_unless_set() {
        let stockholm = BudgetCalendar::default();
        assert_eq!(stockholm.zone(), "Europe/Stockholm");
        // 23:30 UTC on 2026-11-22 is 00:30 on 2026-11-23 in Stockholm (UTC+1 in winter).
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 23, 30, 0).unwrap();
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(stockholm.day(t), day(2026, 11, 23));
        // Summer time: UTC+2.
        let t = Utc.with_ymd_and_hms(2026, 6, 30, 21, 59, 0).unwrap();
        assert_eq!(stockholm.day(t), day(2026, 6, 30));
        let t = Utc.with_ymd_and_hms(2026, 6, 30, 22, 0, 0).unwrap();
        assert_eq!(stockholm.day(t), day(2026, 7, 1));
        assert_eq!(
            stockholm.renews_at(day(2026, 11, 23)),
            Utc.with_ymd_and_hms(2026, 11, 23, 23, 0, 0).unwrap()
        );
        // Another zone keeps its own day.
        let utc = BudgetCalendar::parse("UTC").unwrap();
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 23, 30, 0).unwrap();
        assert_eq!(utc.day(t), day(2026, 11, 22));
        assert_eq!(
            utc.renews_at(day(2026, 11, 22)),
            Utc.with_ymd_and_hms(2026, 11, 23, 0, 0, 0).unwrap()
        );
        assert!(BudgetCalendar::parse("Mars/Olympus").is_err());
        assert!(BudgetCalendar::parse("").is_err());
    }

    #[test]
    fn a_midnight_a_clock_change_skips_renews_at_the_days_first_instant() {
        // Santiago moved its clocks from 00:00 to 01:00 on 2026-09-06: that midnight never was.
        let santiago = BudgetCalendar::parse("America/Santiago").unwrap();
        let renews = santiago.renews_at(NaiveDate::from_ymd_opt(2026, 9, 5).unwrap());
        assert_eq!(
            santiago.day(renews),
            NaiveDate::from_ymd_opt(2026, 9, 6).unwrap()
        );
        assert_eq!(
            santiago.day(renews - chrono::Duration::seconds(1)),
            NaiveDate::from_ymd_opt(2026, 9, 5).unwrap()
        );
    }

    proptest::proptest! {
        #[test]
        fn every_instant_falls_in_the_day_before_its_renewal(secs in 0i64..4_000_000_000, zone in 0usize..5) {
            let cal = BudgetCalendar::parse(
                ["Europe/Stockholm", "UTC", "America/Santiago", "Asia/Kolkata", "Pacific/Apia"][zone],
            )
            .unwrap();
            let t = chrono::DateTime::from_timestamp(secs, 0).unwrap();
            let day = cal.day(t);
            let renews = cal.renews_at(day);
            proptest::prop_assert!(t < renews);
            proptest::prop_assert!(cal.day(renews) > day);
        }
    }
}
