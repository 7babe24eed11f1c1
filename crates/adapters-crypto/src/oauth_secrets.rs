//! The secrets of agent connections (`domain::oauth`):
//!
//! - a pending request's id: `ar_` and 32 random bytes (base64url); the store keeps its SHA-256;
//! - an authorization code: `ac_` and base64url of the connection's tenant and grant ids and
//!   32 random bytes; the store keeps its SHA-256, so the ids only say where to look;
//! - a refresh token: `rt_` and base64url of the tenant and grant ids, the generation, and an
//!   HMAC-SHA256 of those under a key derived from the master key for this purpose alone. The
//!   same generation always gives the same token (a retired token can answer its successor
//!   again within the grace), and only this service can make one;
//! - PKCE's S256 (RFC 7636 §4.2).

use crate::vault::AesVault;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use domain::ids::{GrantId, TenantId};
use domain::oauth::ports::OAuthSecrets;
use domain::portal::sign_in::TokenDigest;
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

const REFRESH_INFO: &[u8] = b"idreg:oauth-refresh:v1";
const REQUEST_PREFIX: &str = "ar_";
const CODE_PREFIX: &str = "ac_";
const REFRESH_PREFIX: &str = "rt_";
/// Ids are written `<tenant> <grant>`: ULIDs in text, so a space never occurs in them.
const SEP: u8 = b' ';

fn random32() -> Zeroizing<[u8; 32]> {
    let mut bytes = Zeroizing::new([0u8; 32]);
    OsRng.fill_bytes(&mut bytes[..]);
    bytes
}

fn ids(tenant: &TenantId, grant: &GrantId) -> Vec<u8> {
    let mut out = tenant.to_string().into_bytes();
    out.push(SEP);
    out.extend_from_slice(grant.to_string().as_bytes());
    out
}

fn read_ids(bytes: &[u8]) -> Option<(TenantId, GrantId)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (tenant, grant) = text.split_once(char::from(SEP))?;
    Some((tenant.parse().ok()?, grant.parse().ok()?))
}

impl AesVault {
    fn refresh_mac(&self, payload: &[u8]) -> [u8; 32] {
        let mut key = Zeroizing::new([0u8; 32]);
        // HKDF-SHA256 expands to 32 bytes for any input key: this cannot fail.
        let _ =
            Hkdf::<Sha256>::new(None, &self.master_bytes()[..]).expand(REFRESH_INFO, &mut key[..]);
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key[..])
            .expect("HMAC takes a key of any length");
        mac.update(payload);
        mac.finalize().into_bytes().into()
    }
}

impl OAuthSecrets for AesVault {
    fn new_request_id(&self) -> String {
        format!(
            "{REQUEST_PREFIX}{}",
            URL_SAFE_NO_PAD.encode(&random32()[..])
        )
    }

    fn new_code(&self, tenant: &TenantId, grant: &GrantId) -> String {
        let mut body = ids(tenant, grant);
        body.push(SEP);
        body.extend_from_slice(&random32()[..]);
        format!("{CODE_PREFIX}{}", URL_SAFE_NO_PAD.encode(&body))
    }

    fn code_names(&self, code: &str) -> Option<(TenantId, GrantId)> {
        let body = code.strip_prefix(CODE_PREFIX)?;
        if body.len() > 200 {
            return None;
        }
        let bytes = URL_SAFE_NO_PAD.decode(body).ok()?;
        // The random tail is the last 32 bytes, after a separator.
        let split = bytes.len().checked_sub(33)?;
        if bytes[split] != SEP {
            return None;
        }
        read_ids(&bytes[..split])
    }

    fn digest(&self, token: &str) -> TokenDigest {
        TokenDigest(Sha256::digest(token.as_bytes()).to_vec())
    }

    fn s256(&self, verifier: &str) -> String {
        URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
    }

    fn refresh_token(&self, tenant: &TenantId, grant: &GrantId, generation: u32) -> String {
        let mut body = ids(tenant, grant);
        body.push(SEP);
        body.extend_from_slice(&generation.to_be_bytes());
        let mac = self.refresh_mac(&body);
        body.extend_from_slice(&mac);
        format!("{REFRESH_PREFIX}{}", URL_SAFE_NO_PAD.encode(&body))
    }

    fn read_refresh_token(&self, token: &str) -> Option<(TenantId, GrantId, u32)> {
        let body = token.strip_prefix(REFRESH_PREFIX)?;
        if body.len() > 200 {
            return None;
        }
        let bytes = URL_SAFE_NO_PAD.decode(body).ok()?;
        let mac_at = bytes.len().checked_sub(32)?;
        let (payload, mac) = bytes.split_at(mac_at);
        let mut check = <Hmac<Sha256> as Mac>::new_from_slice(&{
            let mut key = Zeroizing::new([0u8; 32]);
            let _ = Hkdf::<Sha256>::new(None, &self.master_bytes()[..])
                .expand(REFRESH_INFO, &mut key[..]);
            *key
        })
        .expect("HMAC takes a key of any length");
        check.update(payload);
        // Constant-time comparison of the tag.
        check.verify_slice(mac).ok()?;
        let gen_at = payload.len().checked_sub(4)?;
        let generation = u32::from_be_bytes(payload[gen_at..].try_into().ok()?);
        let ids_end = gen_at.checked_sub(1)?;
        if payload[ids_end] != SEP {
            return None;
        }
        let (tenant, grant) = read_ids(&payload[..ids_end])?;
        Some((tenant, grant, generation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_name_their_connection_and_never_repeat() {
        let v = AesVault::new([5u8; 32]);
        let (t, g) = (TenantId::generate(), GrantId::generate());
        let (a, b) = (v.new_code(&t, &g), v.new_code(&t, &g));
        assert_ne!(a, b);
        assert_eq!(v.code_names(&a), Some((t, g)));
        assert_eq!(v.code_names("ac_nope"), None);
        assert_eq!(v.code_names(&a[1..]), None);
        assert_ne!(v.digest(&a), v.digest(&b));
        assert!(v.new_request_id().starts_with("ar_"));
        assert_eq!(v.new_request_id().len(), 46);
    }

    #[test]
    fn refresh_tokens_are_keyed_and_stable() {
        let v = AesVault::new([5u8; 32]);
        let (t, g) = (TenantId::generate(), GrantId::generate());
        let r = v.refresh_token(&t, &g, 7);
        assert_eq!(r, v.refresh_token(&t, &g, 7));
        assert_ne!(r, v.refresh_token(&t, &g, 8));
        assert_eq!(v.read_refresh_token(&r), Some((t, g, 7)));
        // Another master key, or one changed character: not this service's token.
        assert_eq!(AesVault::new([6u8; 32]).read_refresh_token(&r), None);
        let mut bytes = r.clone().into_bytes();
        let last = bytes.len() - 5;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            v.read_refresh_token(&String::from_utf8(bytes).unwrap()),
            None
        );
        assert_eq!(v.read_refresh_token("rt_"), None);
    }

    #[test]
    fn s256_is_rfc_7636s_example() {
        let v = AesVault::new([5u8; 32]);
        assert_eq!(
            v.s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
