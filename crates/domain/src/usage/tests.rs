//! The usage read (every port mocked, time fixed) and the quota arithmetic.

use super::quota::{Limit, Usage};
use super::service::UsageService;
use crate::access::tenant::Budget;
use crate::companies::budget::{BudgetCalendar, BudgetStatement, BudgetUsage};
use crate::companies::ports::MockPaidStore;
use crate::error::{ErrorCode, StoreError};
use crate::fixtures::{caller, clock, now};
use crate::persons::ports::MockPersonStore;
use chrono::{NaiveDate, TimeZone, Utc};
use std::sync::Arc;

fn statement(budget: Budget, on_demand: i64, scheduled: i64, lookups: i64) -> BudgetStatement {
    let day = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    BudgetStatement {
        day,
        time_zone: "Europe/Stockholm",
        renews_at: BudgetCalendar::default().renews_at(day),
        budget,
        usage: BudgetUsage {
            on_demand,
            scheduled,
        },
        person_lookups: lookups,
    }
}

fn budget(daily: i64, share: f64, ceiling: i64) -> Budget {
    Budget {
        daily_paid_calls: daily,
        monitoring_share: share,
        person_lookup_ceiling: ceiling,
    }
}

#[tokio::test]
async fn today_reads_the_counters_of_the_stockholm_day_under_the_guards_limits() {
    let mut c = caller("SE", "events:read", "SE");
    c.tenant.budget = budget(10, 0.5, 3);
    let tenant = c.tenant_id;
    // 12:00 UTC on 2026-11-21 is the 21st in Stockholm.
    let day = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    let mut paid = MockPaidStore::new();
    paid.expect_budget_usage()
        .withf(move |t, d| *t == tenant && *d == day)
        .times(1)
        .return_once(|_, _| {
            Ok(BudgetUsage {
                on_demand: 2,
                scheduled: 4,
            })
        });
    let mut persons = MockPersonStore::new();
    persons
        .expect_person_lookups()
        .withf(move |t, d| *t == tenant && *d == day)
        .times(1)
        .return_once(|_, _| Ok(3));
    let service = UsageService {
        calendar: Default::default(),
        paid: Arc::new(paid),
        persons: Arc::new(persons),
        clock: clock(),
    };
    let usage = service.today(&c).await.unwrap();
    assert_eq!(usage.at, now());
    let paid = usage.line(Limit::PaidCalls);
    assert_eq!((paid.quota, paid.used, paid.remaining), (5, 2, 3));
    let persons = usage.line(Limit::PersonLookups);
    assert_eq!((persons.quota, persons.used, persons.remaining), (3, 3, 0));
    // Midnight in Stockholm (UTC+1 in November) is 23:00 UTC: eleven hours from noon.
    assert_eq!(usage.reset_seconds(), 11 * 3600);
    assert_eq!(paid.reset_seconds, 11 * 3600);
}

#[tokio::test]
async fn a_store_that_cannot_answer_is_a_failure_not_a_guess() {
    let c = caller("SE", "kyb:read", "SE");
    let mut paid = MockPaidStore::new();
    paid.expect_budget_usage()
        .return_once(|_, _| Err(StoreError::Unavailable("down".into())));
    let service = UsageService {
        calendar: Default::default(),
        paid: Arc::new(paid),
        persons: Arc::new(MockPersonStore::new()),
        clock: clock(),
    };
    let failure = service.today(&c).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::UpstreamUnavailable);
}

#[test]
fn reset_is_rounded_up_and_never_zero() {
    let s = statement(budget(10, 0.5, 3), 0, 0, 0);
    let just_before = s.renews_at - chrono::Duration::milliseconds(1);
    let usage = Usage {
        statement: s.clone(),
        at: just_before,
    };
    assert_eq!(usage.reset_seconds(), 1);
    let usage = Usage {
        statement: s.clone(),
        at: s.renews_at,
    };
    assert_eq!(usage.reset_seconds(), 1);
    let usage = Usage {
        statement: s.clone(),
        at: s.renews_at - chrono::Duration::milliseconds(1_001),
    };
    assert_eq!(usage.reset_seconds(), 2);
}

#[test]
fn the_day_of_a_clock_change_resets_at_its_own_midnight() {
    // 2026-10-25 is 25 hours long in Stockholm; at 00:30 local (22:30 UTC the day before)
    // the limits renew at 23:00 UTC on the 25th.
    let day = NaiveDate::from_ymd_opt(2026, 10, 25).unwrap();
    let mut s = statement(budget(10, 0.5, 3), 0, 0, 0);
    s.day = day;
    s.renews_at = BudgetCalendar::default().renews_at(day);
    let usage = Usage {
        statement: s,
        at: Utc.with_ymd_and_hms(2026, 10, 24, 22, 30, 0).unwrap(),
    };
    assert_eq!(usage.reset_seconds(), 24 * 3600 + 30 * 60);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the budget and whatever was spent (counters may exceed a limit that
        /// the operator lowered during the day), a line is consistent: nothing left below
        /// zero or above the quota, and the paid quota is the on-demand part alone.
        #[test]
        fn a_line_is_consistent_for_every_budget_and_spend(
            daily in 0i64..100_000,
            share in 0.0f64..=1.0,
            ceiling in 0i64..100_000,
            on_demand in 0i64..200_000,
            scheduled in 0i64..200_000,
            lookups in 0i64..200_000,
            seconds_before in 0i64..90_000,
        ) {
            let s = statement(budget(daily, share, ceiling), on_demand, scheduled, lookups);
            let at = s.renews_at - chrono::Duration::seconds(seconds_before);
            let usage = Usage { statement: s.clone(), at };
            for limit in Limit::ALL {
                let line = usage.line(limit);
                prop_assert!(line.remaining >= 0);
                prop_assert!(line.remaining <= line.quota);
                prop_assert!(line.quota >= 0);
                prop_assert!(line.reset_seconds >= 1);
                prop_assert_eq!(line.remaining, (line.quota - line.used).max(0));
            }
            let paid = usage.line(Limit::PaidCalls);
            prop_assert_eq!(paid.quota + s.budget.scheduled_cap(), daily);
            prop_assert_eq!(usage.line(Limit::PersonLookups).quota, ceiling);
        }
    }
}
