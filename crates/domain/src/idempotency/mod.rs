//! Idempotent writes: a consumer's `Idempotency-Key` on a POST makes a retry safe. The first
//! request with a key runs and its answer is kept (sealed under the tenant's key) for 24
//! hours; the same request again gets that answer back without running (so it never spends
//! a budget twice), the key with another request is refused, and a key whose first request
//! is still running is refused until it ends. Follows the IETF Idempotency-Key draft
//! (draft-ietf-httpapi-idempotency-key-header) where it speaks.

pub mod key;
pub mod ports;
pub mod service;

#[cfg(test)]
mod tests;
