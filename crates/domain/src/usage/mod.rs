//! What a tenant may still spend today: the daily limits a consumer's requests are metered
//! against (the paid-call budget's on-demand part and the person-lookup ceiling), each with
//! what is left and when it renews. Surfaces state it on every metered answer (the IETF
//! `RateLimit-Policy` and `RateLimit` fields, an MCP tool's `structuredContent`) and in full
//! at `GET /v1/usage`, so an integrator sees a 429 coming.

pub mod quota;
pub mod service;

#[cfg(test)]
mod tests;
