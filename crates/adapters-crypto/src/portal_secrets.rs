//! The portal's tokens: 32 bytes from the operating system's random source, base64url
//! without padding behind their kind's prefix; stored only as their SHA-256; and a session's
//! CSRF token, an HMAC of the session token under a key derived from the master key for that
//! purpose alone (so it is worthless without the session, and the same for its whole life).

use crate::vault::AesVault;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use domain::portal::ports::PortalSecrets;
use domain::portal::sign_in::{TokenDigest, TokenKind};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

const CSRF_INFO: &[u8] = b"idreg:portal-csrf:v1";

impl PortalSecrets for AesVault {
    fn new_token(&self, kind: TokenKind) -> String {
        let mut bytes = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut bytes[..]);
        format!("{}{}", kind.prefix(), URL_SAFE_NO_PAD.encode(&bytes[..]))
    }

    fn digest(&self, token: &str) -> TokenDigest {
        TokenDigest(Sha256::digest(token.as_bytes()).to_vec())
    }

    fn csrf_token(&self, session_token: &str) -> String {
        let mut key = Zeroizing::new([0u8; 32]);
        // HKDF-SHA256 expands to 32 bytes for any input key: this cannot fail.
        let _ = Hkdf::<Sha256>::new(None, &self.master_bytes()[..]).expand(CSRF_INFO, &mut key[..]);
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key[..])
            .expect("HMAC takes a key of any length");
        mac.update(session_token.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_fit_their_kind_and_never_repeat() {
        let v = AesVault::new([3u8; 32]);
        for kind in [TokenKind::Link, TokenKind::Binding, TokenKind::Session] {
            let (a, b) = (v.new_token(kind), v.new_token(kind));
            assert!(kind.fits(&a), "{a}");
            assert_ne!(a, b);
        }
    }

    #[test]
    fn digests_and_csrf_tokens_are_stable_and_keyed() {
        let v = AesVault::new([3u8; 32]);
        let t = v.new_token(TokenKind::Session);
        assert_eq!(v.digest(&t), v.digest(&t));
        assert_eq!(v.digest(&t).0.len(), 32);
        assert_ne!(v.digest(&t), v.digest(&v.new_token(TokenKind::Session)));
        assert_eq!(v.csrf_token(&t), v.csrf_token(&t));
        assert_ne!(v.csrf_token(&t), AesVault::new([4u8; 32]).csrf_token(&t));
        assert!(!v.csrf_token(&t).contains(&t));
    }
}
