#![doc = include_str!("../README.md")]

mod assistant;
mod audit;
mod companies;
mod convert;
mod database;
mod events;
mod grants;
mod health;
mod idempotency;
mod import;
mod oauth;
mod paid;
mod persons;
mod portal;
mod sanctions;
pub mod schema;
mod screening;
mod statements;
mod subjects;
mod subscriptions;
mod tenants;
mod webhooks;

pub use database::{
    ensure_database_exists, run_migrations, Database, DatabaseError, PoolSizes, MIGRATIONS,
};
