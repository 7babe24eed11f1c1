//! Webhooks: the tenant's event log pushed to the consumer's HTTPS endpoints, signed after
//! the Standard Webhooks convention, in order, retried, never skipping an event.
//!
//! - Values: [`endpoint`] (the endpoint, its address rule, its secret, a delivery attempt,
//!   the retry schedule).
//! - Ports: [`ports`] (`WebhookStore`, `WebhookVault`, `WebhookSender`).
//! - Use cases: [`service`] (the consumer's operations), [`dispatcher`] (the runner inside
//!   every replica that delivers).
//!
//! The log stays the source of truth: an endpoint is a cursor into it, and a consumer can
//! always catch up by reading `GET /v1/events` from the last `seq` it received.

pub mod endpoint;
pub mod ports;

pub mod dispatcher;
pub mod service;

#[cfg(test)]
mod tests;
