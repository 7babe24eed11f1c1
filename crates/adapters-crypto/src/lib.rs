#![doc = include_str!("../README.md")]

mod keys;
mod secrets;
mod token;
mod vault;

pub use keys::{KeyError, KeyMaterial, MasterKey, SigningKey};
pub use secrets::{Argon2Config, Argon2Hasher, MAX_PRESENTED_LEN, SECRET_PREFIX};
pub use token::{BiscuitTokens, MAX_TOKEN_LEN};
pub use vault::{AesVault, WRAPPED_KEY_LEN};

/// Re-exported so that callers can tune [`BiscuitTokens::with_limits`] without depending on
/// biscuit-auth themselves.
pub use biscuit_auth::AuthorizerLimits;
