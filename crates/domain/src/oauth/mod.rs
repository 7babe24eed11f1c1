//! Agent platforms connecting as people do: the OAuth 2.1 authorization-code flow with PKCE,
//! a person's consent in the portal, and the connection it makes (an ordinary grant of the
//! tenant, bound to one client, with a rotating family of refresh tokens).
//!
//! - `client`: a client, its redirect URIs and the rule that compares them;
//! - `registration`: client metadata (dynamic registration, metadata documents) and its bounds;
//! - `authorization`: the authorization endpoint's checks and the request kept for the person;
//! - `consent`: what a portal role may hand an agent;
//! - `connection`: what consent made, its code and refresh family;
//! - `ports`, `service`, `token_grants`: the store, the documents, the secrets; the use cases
//!   (registration, the request, the person's decision; the token endpoint's two grants).

pub mod authorization;
pub mod client;
pub mod connection;
pub mod consent;
pub mod ports;
pub mod registration;
pub mod service;
pub mod token_grants;
