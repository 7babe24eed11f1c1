//! Sanctions and PEP screening: the lists, the matcher, and checks of subjects against them.
//!
//! - Values: [`sanctions`] (list entries as the lists give them, immutable source versions;
//!   a list is of sanctions or of politically exposed persons, [`sanctions::ListKind`]),
//!   [`exposure`] (what a PEP list's entry means on a day under a policy: its reasons and
//!   the band it may reach),
//!   [`matcher`] (the pure, deterministic matcher), [`policy`] (the service's policy versions,
//!   tenants' overrides and their status moves), [`whitelist`] (entries, effective and
//!   covering rules), [`check`] (the request, the sealed stored check, the served check).
//! - Ports: [`ports`] (`SanctionsListStore`, `ScreeningStore`, `ScreeningVault`).
//! - Use cases: [`list_service`] (a list read becomes the active version, or a recorded
//!   failure), [`service`] (`ScreeningService`: a consumer's checks and reads), [`admin`]
//!   (`ScreeningAdmin`: the operator's policies, overrides and whitelists, four-eyes),
//!   [`ongoing`] (a list change re-screens the monitored subjects; `screening.changed`).

pub mod check;
pub mod exposure;
pub mod matcher;
pub mod policy;
pub mod sanctions;
pub mod whitelist;

pub mod ports;

pub mod admin;
pub mod list_service;
pub mod ongoing;
pub mod service;

#[cfg(test)]
pub(crate) mod tests;
