//! Monitoring: subscriptions, the per-tenant event log, and the runs that watch for changes.
//!
//! - Values: [`subscription`] (statuses, moves, runs, baselines), [`event`] (the event types,
//!   the log's values, the cursor, limit and type rules), [`change`] (the field diffs between
//!   two readings of a company).
//! - Ports: [`ports`] (`EventStore`, `SubscriptionStore`); [`party_screening`] (the hook
//!   screening implements, so a reading that finds a new officer or owner screens them).
//! - Use cases: [`subscription_service`] (the subscription transitions), [`event_service`]
//!   (event pages), [`refresh_service`] (a fresh reading compared with the baseline),
//!   [`scheduler`] (the runner inside every replica).

pub mod change;
pub mod event;
pub mod subscription;

pub mod party_screening;
pub mod ports;

pub mod event_service;
pub mod refresh_service;
pub mod scheduler;
pub mod subscription_service;

#[cfg(test)]
mod tests;
