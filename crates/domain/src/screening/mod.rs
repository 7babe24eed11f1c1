//! Sanctions screening's values: policies and tenants' overrides of them ([`policy`]),
//! whitelists ([`whitelist`]) and checks ([`check`]). The use cases are in
//! `screening_service` (consumers) and `screening_admin` (the operator).

pub mod check;
pub mod policy;
pub mod whitelist;

pub use check::*;
pub use policy::*;
pub use whitelist::*;
