#![doc = include_str!("../README.md")]
//! The idreg binary's library: configuration, wiring and commands. `main.rs` only parses
//! the command line and calls in here, so tests can drive the same code in process.

pub mod app;
pub mod background;
pub mod cli;
pub mod config;
pub mod countries;
pub mod demo;
pub mod keys;
pub mod list_schedule;
pub mod lists;
pub mod metrics;
pub mod screening;
pub mod server;
pub mod store;
pub mod telemetry;
