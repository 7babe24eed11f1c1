//! The hook through which monitoring hands screening the people a reading found new on a
//! monitored company (an officer or a beneficial owner added). Monitoring does not know
//! screening: screening implements this (`screening::ongoing::service::OngoingScreening`),
//! and the wiring (`services`) hands it to the refresh and the scheduler.

use crate::access::caller::Caller;
use crate::companies::paid::Party;
use crate::error::Failure;
use crate::monitoring::event::Trigger;
use crate::monitoring::subscription::Subscription;
use async_trait::async_trait;

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PartyScreening: Send + Sync {
    /// Screens `newcomers`, found by the reading `reading_key` of the subscription's company
    /// (whose parties are now `parties`), at once: when a candidate concerning one of them
    /// counts, an ordinary check of the company is appended with a `screening.changed`
    /// event (`cause: party_added`). Answers whether an event was logged.
    ///
    /// # Errors
    /// A storage failure; a rule that keeps a subject from being screened is no error.
    async fn screen_newcomers(
        &self,
        caller: &Caller,
        subscription: &Subscription,
        parties: Vec<Party>,
        newcomers: Vec<Party>,
        reading_key: &str,
        trigger: Trigger,
    ) -> Result<bool, Failure>;
}
