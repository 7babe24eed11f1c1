//! Access: who may call, with what, and what is recorded of each call.
//!
//! - Values: [`tenant`] (tenants, permits, budgets, data keys), [`grant`] (grants and their
//!   client secrets), [`scope`], [`token`] (claims, requests, issued tokens), [`audit`]
//!   (records, `AuditPolicy`, `AuditTrail`).
//! - Ports: [`ports`] (`TenantStore`, `GrantStore`, `AuditSink`, `TokenAuthority`,
//!   `CredentialHasher`).
//! - The caller: [`caller`] (`Caller`: an admitted consumer, or the service's own principal).
//! - Use cases: [`gate`] (the `Gate`: the one path every request takes),
//!   [`token_issuer`] (the client-credentials grant), [`admin`] (the operator's: tenants,
//!   permits, budgets, grants).

pub mod audit;
pub mod caller;
pub mod grant;
pub mod scope;
pub mod tenant;
pub mod token;

pub mod ports;

pub mod admin;
pub mod gate;
pub mod token_issuer;

#[cfg(test)]
mod tests;
