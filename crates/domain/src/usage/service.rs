//! Reading a tenant's standing against its daily limits, for the consumer who asks.

use crate::access::caller::Caller;
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, BudgetStatement};
use crate::companies::ports::PaidStore;
use crate::error::Failure;
use crate::persons::ports::PersonStore;
use crate::usage::quota::Usage;
use std::sync::Arc;

pub struct UsageService {
    pub paid: Arc<dyn PaidStore>,
    pub persons: Arc<dyn PersonStore>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
}

impl UsageService {
    /// The caller's tenant's standing today (the budget's calendar day): its limits, as the
    /// guard read them with the grant, and two reads of today's counters. Open to every
    /// admitted caller: a tenant's own limits are no secret from its own systems, and they
    /// name no subject.
    pub async fn today(&self, caller: &Caller) -> Result<Usage, Failure> {
        let at = self.clock.now();
        let day = self.calendar.day(at);
        let usage = self
            .paid
            .budget_usage(&caller.tenant_id, day)
            .await
            .map_err(Failure::internal)?;
        let person_lookups = self
            .persons
            .person_lookups(&caller.tenant_id, day)
            .await
            .map_err(Failure::internal)?;
        Ok(Usage {
            statement: BudgetStatement {
                day,
                time_zone: self.calendar.zone(),
                renews_at: self.calendar.renews_at(day),
                budget: caller.tenant.budget.clone(),
                usage,
                person_lookups,
            },
            at,
        })
    }
}
