//! Tokens already verified, with their claims: a bounded memo that spares every request of a
//! token after its first the signature checks and the Datalog run (a fifth of a cached read's
//! CPU when measured).
//!
//! Only a token made of the authority block alone, holding the one check this service mints
//! (its expiry), is kept: its verdict then depends on its exact bytes, the key and the clock
//! only, and the clock's part is the expiry, which is checked again on every hit. A token a
//! holder attenuated carries checks of its own and is verified in full every time. Keys are
//! SHA-256 digests of the presented token, so the memo holds no bearer token. Revocation,
//! expiry of the grant and rotation are never answered here: the guard reads the grant record
//! on every request.

use chrono::{DateTime, Utc};
use domain::access::token::{TokenClaims, TokenRejection};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// How many verified tokens are remembered. A token lives minutes, a consumer holds one or a
/// few at a time: this covers thousands of active consumers at about 200 bytes each.
pub(crate) const CAPACITY: usize = 8192;

#[derive(Default)]
pub(crate) struct VerifiedTokens {
    entries: Mutex<HashMap<[u8; 32], TokenClaims>>,
}

impl VerifiedTokens {
    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], TokenClaims>> {
        // The map holds only complete entries: a panic elsewhere cannot leave it inconsistent.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The verdict for a token verified before: its claims, or `Expired` from its expiry on
    /// (at second precision, as the token's own Datalog check decides).
    pub(crate) fn verdict(
        &self,
        token: &str,
        now: DateTime<Utc>,
    ) -> Option<Result<TokenClaims, TokenRejection>> {
        let claims = self.lock().get(&Self::key(token)).cloned()?;
        Some(if now.timestamp() >= claims.expires_at.timestamp() {
            Err(TokenRejection::Expired(Box::new(claims)))
        } else {
            Ok(claims)
        })
    }

    /// Remembers a token that verified with these claims. When full, tokens past their expiry
    /// go first, and if that frees nothing, everything (a memo, not a record).
    pub(crate) fn remember(&self, token: &str, claims: &TokenClaims, now: DateTime<Utc>) {
        let mut entries = self.lock();
        if entries.len() >= CAPACITY {
            entries.retain(|_, c| c.expires_at > now);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(Self::key(token), claims.clone());
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}
