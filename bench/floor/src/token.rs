//! The floor's bearer token: `f1.<claims>.<signature>`, the claims a base64url JSON object
//! `{"tenant":..,"grant":..,"exp":..}` and the signature Ed25519 over `f1.<claims>`. As much
//! as any signed token costs to check (one signature verification, one small JSON parse),
//! and nothing more.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

const PREFIX: &str = "f1.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub tenant: i64,
    pub grant: i64,
    /// Seconds since the Unix epoch after which the token is refused.
    pub exp: i64,
}

pub fn mint(key: &SigningKey, claims: &Claims) -> String {
    let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialise"));
    let signed = format!("{PREFIX}{body}");
    let signature = key.sign(signed.as_bytes());
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
}

/// The claims of a token signed by `key` and not expired at `now`; `None` for anything else.
pub fn verify(key: &VerifyingKey, token: &str, now: i64) -> Option<Claims> {
    let (signed, signature) = token.rsplit_once('.')?;
    let body = signed.strip_prefix(PREFIX)?;
    let mut raw = [0u8; 64];
    if URL_SAFE_NO_PAD.decode_slice(signature, &mut raw).ok()? != 64 {
        return None;
    }
    key.verify_strict(signed.as_bytes(), &Signature::from_bytes(&raw))
        .ok()?;
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).ok()?).ok()?;
    (claims.exp > now).then_some(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u8) -> SigningKey {
        SigningKey::from_bytes(&[seed; 32])
    }

    const CLAIMS: Claims = Claims {
        tenant: 1,
        grant: 1,
        exp: 2_000,
    };

    #[test]
    fn a_minted_token_verifies_until_it_expires() {
        let token = mint(&key(7), &CLAIMS);
        assert_eq!(verify(&key(7).verifying_key(), &token, 1_999), Some(CLAIMS));
        assert_eq!(verify(&key(7).verifying_key(), &token, 2_000), None);
    }

    #[test]
    fn another_key_or_a_changed_claim_is_refused() {
        let token = mint(&key(7), &CLAIMS);
        assert_eq!(verify(&key(8).verifying_key(), &token, 0), None);
        let forged = mint(
            &key(7),
            &Claims {
                tenant: 2,
                ..CLAIMS
            },
        );
        let (_, forged_signature) = forged.rsplit_once('.').unwrap();
        let (signed, _) = token.rsplit_once('.').unwrap();
        let spliced = format!("{signed}.{forged_signature}");
        assert_eq!(verify(&key(7).verifying_key(), &spliced, 0), None);
        assert_eq!(verify(&key(7).verifying_key(), "f1.e30", 0), None);
        assert_eq!(verify(&key(7).verifying_key(), "", 0), None);
    }
}
