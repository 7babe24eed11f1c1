//! Unit tests of monitoring's use cases (the shared fixtures are `crate::fixtures`).

mod event_service;
mod scheduler;
