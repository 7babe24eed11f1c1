#![doc = include_str!("../README.md")]

// Shared values (and the clock and meter ports) every capability uses.
pub mod clock;
pub mod error;
pub mod evidence;
pub mod ids;
pub mod meter;
pub mod operation;
pub mod pattern;
pub mod text;

// Capabilities: each folder holds its values, its ports and its use cases.
pub mod access;
pub mod assistant;
pub mod companies;
pub mod countries;
pub mod health;
pub mod idempotency;
pub mod monitoring;
pub mod oauth;
pub mod persons;
pub mod portal;
pub mod screening;
pub mod subjects;
pub mod usage;
pub mod webhooks;

// The wiring of use cases to ports.
pub mod services;
pub mod storage;

pub use error::{ErrorCode, Failure};
#[cfg(test)]
mod fixtures;
