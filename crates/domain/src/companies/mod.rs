//! Companies: the register profile, the paid tier and its daily budget.
//!
//! - Values: [`profile`] (the canonical profile in its fetched, cached and served forms, and
//!   the record of every upstream call, `UpstreamCall`, `Fetch`, `RegistryFailure`, which the
//!   person register's connectors use too), [`paid`] (officers, owners, engagements: fetched
//!   and served forms), [`budget`] (the daily paid-call budget on the Stockholm calendar day).
//! - Ports: [`ports`] (`CompanyRegistry`, `DocumentArchive`, `CompanyStore`,
//!   `PaidCompanyRegistry`, `PaidStore`).
//! - Rules: [`admission`] (the company code and country every company route admits).
//! - Use cases: [`service`] (`CompanyService`: country rules, cache, call records, evidence,
//!   stale serving), [`paid_service`] (`PaidCompanyService`: the paid reads, metered).

pub mod admission;
pub mod budget;
pub mod paid;
pub mod profile;

pub mod ports;

pub mod paid_service;
pub mod service;

#[cfg(test)]
mod tests;
