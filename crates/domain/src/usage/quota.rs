//! The daily limits a consumer's requests spend, and a tenant's standing against them.

use crate::companies::budget::{BudgetStatement, Spender};
use chrono::{DateTime, Utc};

/// A daily limit a consumer's request may spend. Each is one quota policy of the
/// `RateLimit-Policy` field, named by [`Limit::policy`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// The on-demand part of the tenant's daily paid-call budget (paid tier and refresh):
    /// the daily budget less the share reserved for scheduled monitoring.
    PaidCalls,
    /// The tenant's daily person-lookup ceiling (person reads).
    PersonLookups,
}

impl Limit {
    pub const ALL: [Limit; 2] = [Limit::PaidCalls, Limit::PersonLookups];

    /// The policy's name on the wire.
    pub fn policy(self) -> &'static str {
        match self {
            Limit::PaidCalls => "paid",
            Limit::PersonLookups => "person_lookups",
        }
    }
}

/// Every limit renews at the next midnight of the budget's time zone: a window of one day.
pub const WINDOW_SECONDS: i64 = 86_400;

/// One limit as a consumer sees it now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaLine {
    pub limit: Limit,
    /// What the limit allows a day.
    pub quota: i64,
    /// Spent today.
    pub used: i64,
    /// Left today (never negative).
    pub remaining: i64,
    /// Seconds until the limit renews (rounded up; at least 1).
    pub reset_seconds: i64,
}

/// A tenant's standing against its daily limits at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage {
    pub statement: BudgetStatement,
    pub at: DateTime<Utc>,
}

impl Usage {
    /// Seconds until the day's limits renew, rounded up, at least 1 (a client waiting that
    /// long finds the new day).
    pub fn reset_seconds(&self) -> i64 {
        let millis = (self.statement.renews_at - self.at).num_milliseconds();
        ((millis + 999) / 1000).max(1)
    }

    /// The standing against one limit.
    pub fn line(&self, limit: Limit) -> QuotaLine {
        let s = &self.statement;
        let (quota, used, remaining) = match limit {
            Limit::PaidCalls => (
                s.budget.cap(Spender::OnDemand),
                s.usage.on_demand,
                s.remaining(Spender::OnDemand),
            ),
            Limit::PersonLookups => (
                s.budget.person_lookup_ceiling.max(0),
                s.person_lookups,
                s.person_lookups_remaining(),
            ),
        };
        QuotaLine {
            limit,
            quota,
            used,
            remaining,
            reset_seconds: self.reset_seconds(),
        }
    }

    /// The lines of `limits`, in that order.
    pub fn lines(&self, limits: &[Limit]) -> Vec<QuotaLine> {
        limits.iter().map(|l| self.line(*l)).collect()
    }
}
