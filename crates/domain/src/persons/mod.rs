//! Persons: what a population register says about a person, and the canonical object served.
//!
//! - Values: [`profile`] (`RegisterPerson` as a connector reads it, `PersonProfile` with its
//!   one constructor that drops protected addresses, the cached and served forms).
//! - Ports: [`ports`] (`PersonRegistry`, `PersonStore`, `PersonVault`).
//! - Use case: [`service`] (`PersonService`: scope, permit gate, cache, ceiling, register;
//!   never stale).

pub mod profile;

pub mod ports;

pub mod service;

#[cfg(test)]
mod tests;
