#![doc = include_str!("../README.md")]

mod assistant_vault;
mod idempotency_vault;
mod keys;
mod oauth_secrets;
mod person_vault;
mod portal_secrets;
mod screening_vault;
mod secrets;
mod token;
pub mod token_admission;
mod vault;
mod verified_tokens;
pub mod webhook_vault;

pub use keys::{KeyError, KeyMaterial, MasterKey, SigningKey};
pub use secrets::{Argon2Config, Argon2Hasher, MAX_PRESENTED_LEN, SECRET_PREFIX};
pub use token::{BiscuitTokens, MAX_TOKEN_LEN};
pub use vault::{AesVault, WRAPPED_KEY_LEN};

// The layers: `keys` (key material) at the bottom; `token`, `vault` and `secrets` each use
// keys and nothing of each other; the wiring of keys into adapters sits here, on top.
impl KeyMaterial {
    /// The token authority signing with this material's key.
    pub fn token_authority(&self) -> BiscuitTokens {
        BiscuitTokens::new(self.signing_key().clone())
    }

    /// The identifier vault under this material's master key.
    pub fn vault(&self) -> AesVault {
        AesVault::from_master_key(self.master_key())
    }
}

/// Re-exported so that callers can tune [`BiscuitTokens::with_limits`] without depending on
/// biscuit-auth themselves.
pub use biscuit_auth::AuthorizerLimits;

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them, for
/// the tests that read identifiers or country codes.
#[cfg(test)]
fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}
