//! A merge of two subjects as the store carries it out: a value above the subject, its
//! subscriptions and the event log, which it names together (so none of them names another
//! through it). The operator's use case that plans and runs one is
//! [`crate::subjects::merge_service`].

use crate::ids::SubjectId;
use crate::monitoring::event::NewEvent;
use crate::monitoring::subscription::Subscription;

/// A merge of subject `from` into `into` as the store carries it out, in one transaction.
///
/// Everything keyed by `from` follows it to `into`: its identifiers, customer references,
/// unended and ended subscriptions (with their baselines), cached data, document ids and
/// whitelist entries. One unended subscription per subject and kind holds across the merge:
/// where both had one of a kind, `into`'s survives and `from`'s is in `ended`, each as it
/// ends, with its `subscription.ended` event. Screening checks are append-only and stay as
/// they are; reads resolve them through the alias.
#[derive(Clone, Debug, PartialEq)]
pub struct SubjectMerge {
    pub from: SubjectId,
    pub into: SubjectId,
    /// The `subject.merged` event.
    pub event: NewEvent,
    pub ended: Vec<(Subscription, NewEvent)>,
}
