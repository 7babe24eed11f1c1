//! The tenant portal: people at a tenant who sign in by one-time link (`docs/decisions.md`,
//! "The tenant portal").
//!
//! - Values: [`user`] (the portal user, the email address rule, roles), [`sign_in`] (the
//!   tokens' shapes and lifetimes, links, sessions, which code a link that does not sign in
//!   answers).
//! - Ports: [`ports`] (`PortalStore`, `PortalSecrets`, `Mailer`).
//! - Use cases: [`service`] (`PortalSignIn`: asking for a link, redeeming it, the session of
//!   a request, CSRF, sign-out), [`admin`] (`PortalAdmin`: a tenant's portal users),
//!   [`console`] (`PortalConsole`: what a signed-in user does at their tenant, through the
//!   operator's use cases, each action audited), [`four_eyes`] (who may approve another
//!   user's proposal: a user of another line, so one person's own accounts never suffice).
//! - [`action`]: what a portal user can do, as the audit log names it.

pub mod action;
pub mod sign_in;
pub mod user;

pub mod ports;

pub mod admin;
pub mod console;
pub mod four_eyes;
pub mod service;

#[cfg(test)]
mod console_tests;
#[cfg(test)]
mod tests;
