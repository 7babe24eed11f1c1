//! Unit tests of access's use cases (the shared fixtures are `crate::fixtures`).

mod admin;
mod caller;
mod gate;
mod token_issuer;
