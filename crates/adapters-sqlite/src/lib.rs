#![doc = include_str!("../README.md")]

mod assistant;
mod audit;
mod companies;
mod convert;
mod database;
mod events;
mod export;
mod grants;
mod health;
mod idempotency;
mod oauth;
mod paid;
mod persons;
mod portal;
mod sanctions;
mod schema;
mod screening;
mod subject_ids;
mod subjects;
mod subscriptions;
mod tenants;
mod webhooks;

pub use database::{audit_path, connect, Database, DatabaseError};
