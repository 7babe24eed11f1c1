//! Black-box tests over real HTTP against the fully wired app and real PostgreSQL.
//! One binary (one link), one module per area of the interface.

mod admin;
mod client_text;
mod companies;
mod contract;
mod discovery;
mod errors;
mod events;
mod generated_clients;
mod guard;
mod hardening;
mod health;
mod idempotency;
mod lithuania;
mod mcp;
mod merges;
mod metrics;
mod monitoring;
mod oauth;
mod ongoing_screening;
mod paid;
mod persons;
mod portal;
mod portal_browser;
mod privacy;
mod problem;
mod quota;
mod refresh;
mod repository;
mod screening;
mod storage_conformance;
mod subjects;
mod subscriptions;
mod tenant_distribution;
mod test_mode;
mod webhooks;
