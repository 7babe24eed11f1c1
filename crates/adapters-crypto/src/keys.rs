//! Long-lived key material: the token signing key and the master key, and the small key
//! file that holds both.
//!
//! Every type here redacts itself in `Debug`, and no error message repeats any part of the
//! input it refused (a key file's content is key material even when it is malformed).

use biscuit_auth::{Algorithm, KeyPair, PrivateKey};
use rand::rngs::OsRng;
use rand::RngCore;
use std::fmt;
use zeroize::Zeroizing;

/// Why key material was refused. Never carries the material itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the signing key must be 64 hex characters (an Ed25519 private key)")]
    InvalidSigningKey,
    #[error("the master key must be 64 hex characters (32 bytes)")]
    InvalidMasterKey,
    /// The key file is not the expected two `name = "hex"` lines. The detail names a line
    /// number or a key name, never a value.
    #[error("key file: {0}")]
    InvalidKeyFile(String),
}

/// Decodes exactly 32 bytes of hex (surrounding whitespace ignored) without letting the
/// decoder's error (which quotes the offending character) escape.
fn decode_key_hex(s: &str) -> Option<Zeroizing<[u8; 32]>> {
    let s = s.trim();
    let mut out = Zeroizing::new([0u8; 32]);
    if s.len() != 64 {
        return None;
    }
    hex::decode_to_slice(s, &mut out[..]).ok()?;
    Some(out)
}

fn encode_key_hex(bytes: &[u8]) -> Zeroizing<String> {
    Zeroizing::new(hex::encode(bytes))
}

/// The Ed25519 keypair that signs access tokens.
pub struct SigningKey(KeyPair);

impl SigningKey {
    /// A fresh keypair from the operating system's CSPRNG.
    pub fn generate() -> Self {
        SigningKey(KeyPair::new_with_algorithm(Algorithm::Ed25519))
    }

    /// Imports the private key from 64 hex characters (the 32-byte Ed25519 seed, as
    /// [`SigningKey::to_hex`] writes it). The biscuit CLI's `ed25519-private/<hex>` form is
    /// accepted too.
    pub fn from_hex(hex: &str) -> Result<Self, KeyError> {
        let hex = hex.trim();
        let hex = hex.strip_prefix("ed25519-private/").unwrap_or(hex);
        let bytes = decode_key_hex(hex).ok_or(KeyError::InvalidSigningKey)?;
        let private = PrivateKey::from_bytes(&bytes[..], Algorithm::Ed25519)
            .map_err(|_| KeyError::InvalidSigningKey)?;
        Ok(SigningKey(KeyPair::from(&private)))
    }

    /// Exports the private key as 64 hex characters. Secret: store it, never log it.
    pub fn to_hex(&self) -> Zeroizing<String> {
        let bytes = self.0.private().to_bytes();
        encode_key_hex(&bytes)
    }

    /// The public key as hex (not secret; for operators comparing deployments).
    pub fn public_key_hex(&self) -> String {
        self.0.public().to_bytes_hex()
    }

    pub(crate) fn keypair(&self) -> &KeyPair {
        &self.0
    }
}

impl Clone for SigningKey {
    fn clone(&self) -> Self {
        SigningKey(KeyPair::from(&self.0.private()))
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

/// The 256-bit master key that wraps every tenant's data key. Zeroized on drop.
#[derive(Clone)]
pub struct MasterKey(Zeroizing<[u8; 32]>);

impl MasterKey {
    /// A fresh key from the operating system's CSPRNG.
    pub fn generate() -> Self {
        let mut key = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut key[..]);
        MasterKey(key)
    }

    /// Imports the key from 64 hex characters.
    pub fn from_hex(hex: &str) -> Result<Self, KeyError> {
        decode_key_hex(hex)
            .map(MasterKey)
            .ok_or(KeyError::InvalidMasterKey)
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        MasterKey(Zeroizing::new(bytes))
    }

    /// Exports the key as 64 hex characters. Secret: store it, never log it.
    pub fn to_hex(&self) -> Zeroizing<String> {
        encode_key_hex(&self.0[..])
    }

    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MasterKey(<redacted>)")
    }
}

/// Both long-lived keys of a deployment, as the binary loads them from configuration or
/// generates and keeps them on first run.
#[derive(Clone)]
pub struct KeyMaterial {
    signing: SigningKey,
    master: MasterKey,
}

const SIGNING_FIELD: &str = "signing_key";
const MASTER_FIELD: &str = "master_key";

impl KeyMaterial {
    pub fn new(signing: SigningKey, master: MasterKey) -> Self {
        KeyMaterial { signing, master }
    }

    /// Fresh keys from the operating system's CSPRNG.
    pub fn generate() -> Self {
        KeyMaterial::new(SigningKey::generate(), MasterKey::generate())
    }

    /// Both keys from their hex forms (64 hex characters each).
    pub fn from_hex(signing_hex: &str, master_hex: &str) -> Result<Self, KeyError> {
        Ok(KeyMaterial::new(
            SigningKey::from_hex(signing_hex)?,
            MasterKey::from_hex(master_hex)?,
        ))
    }

    /// The key file: a comment and two lines,
    /// `signing_key = "<hex>"` and `master_key = "<hex>"`. Secret: write it with mode 0600.
    pub fn to_toml_string(&self) -> Zeroizing<String> {
        let signing = self.signing.to_hex();
        let master = self.master.to_hex();
        let mut out = Zeroizing::new(String::with_capacity(256));
        out.push_str(
            "# idreg key material. Secret. Losing master_key loses every stored identifier.\n",
        );
        for (name, value) in [(SIGNING_FIELD, &signing), (MASTER_FIELD, &master)] {
            out.push_str(name);
            out.push_str(" = \"");
            out.push_str(value);
            out.push_str("\"\n");
        }
        out
    }

    /// Reads what [`KeyMaterial::to_toml_string`] writes. Accepts blank lines, `#` comments
    /// and single- or double-quoted values; anything else is refused. Errors name a line or
    /// a key, never a value.
    pub fn from_toml_str(s: &str) -> Result<Self, KeyError> {
        let bad = |msg: String| KeyError::InvalidKeyFile(msg);
        let mut signing: Option<&str> = None;
        let mut master: Option<&str> = None;
        for (i, line) in s.lines().enumerate() {
            let n = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, value)) = line.split_once('=') else {
                return Err(bad(format!("line {n}: expected `name = \"value\"`")));
            };
            let value = value.trim();
            let unquoted = [('"', '"'), ('\'', '\'')]
                .into_iter()
                .find_map(|(open, close)| {
                    value
                        .strip_prefix(open)
                        .and_then(|v| v.strip_suffix(close))
                        .filter(|v| !v.contains(['"', '\'']))
                });
            let Some(value) = unquoted else {
                return Err(bad(format!("line {n}: the value must be a quoted string")));
            };
            let slot = match name.trim() {
                SIGNING_FIELD => &mut signing,
                MASTER_FIELD => &mut master,
                _ => return Err(bad(format!("line {n}: unknown key"))),
            };
            if slot.replace(value).is_some() {
                return Err(bad(format!("line {n}: key given twice")));
            }
        }
        let signing = signing.ok_or_else(|| bad(format!("`{SIGNING_FIELD}` is missing")))?;
        let master = master.ok_or_else(|| bad(format!("`{MASTER_FIELD}` is missing")))?;
        KeyMaterial::from_hex(signing, master)
    }

    pub fn signing_key(&self) -> &SigningKey {
        &self.signing
    }

    /// What the store records of these keys (never the keys): the SHA-256 of the signing
    /// key's public half, and an HMAC-SHA256 of a fixed label under the master key; each the
    /// first 16 bytes in hex, prefixed by its kind.
    pub fn fingerprints(&self) -> domain::health::keys::KeyFingerprints {
        use hmac::Mac;
        use sha2::Digest;
        let signing = sha2::Sha256::digest(self.signing.0.public().to_bytes());
        let mut mac = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.master.bytes()[..])
            .expect("HMAC takes a key of any length");
        mac.update(b"idreg master key fingerprint v1");
        let master = mac.finalize().into_bytes();
        domain::health::keys::KeyFingerprints {
            signing: format!("ed25519-sha256:{}", hex::encode(&signing[..16])),
            master: format!("hmac-sha256:{}", hex::encode(&master[..16])),
        }
    }

    pub fn master_key(&self) -> &MasterKey {
        &self.master
    }
}

impl fmt::Debug for KeyMaterial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyMaterial { signing_key: <redacted>, master_key: <redacted> }")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_keys_apart_and_reveal_neither() {
        let keys = KeyMaterial::generate();
        let again =
            KeyMaterial::from_hex(&keys.signing_key().to_hex(), &keys.master_key().to_hex())
                .unwrap();
        assert_eq!(keys.fingerprints(), again.fingerprints());
        let other_master = KeyMaterial::new(keys.signing_key().clone(), MasterKey::generate());
        assert_eq!(
            other_master.fingerprints().signing,
            keys.fingerprints().signing
        );
        assert_ne!(
            other_master.fingerprints().master,
            keys.fingerprints().master
        );
        let other_signing = KeyMaterial::new(SigningKey::generate(), keys.master_key().clone());
        assert_ne!(
            other_signing.fingerprints().signing,
            keys.fingerprints().signing
        );
        assert_eq!(
            other_signing.fingerprints().master,
            keys.fingerprints().master
        );
        let fp = keys.fingerprints();
        for secret in [keys.signing_key().to_hex(), keys.master_key().to_hex()] {
            assert!(!fp.signing.contains(&secret[..16]) && !fp.master.contains(&secret[..16]));
        }
        assert!(!fp
            .signing
            .contains(&keys.signing_key().public_key_hex()[..16]));
    }

    #[test]
    fn signing_key_round_trips_through_hex() {
        let key = SigningKey::generate();
        let hex = key.to_hex();
        assert_eq!(hex.len(), 64);
        let back = SigningKey::from_hex(&hex).unwrap();
        assert_eq!(back.public_key_hex(), key.public_key_hex());
        let prefixed = format!("ed25519-private/{}", &*hex);
        assert_eq!(
            SigningKey::from_hex(&prefixed).unwrap().public_key_hex(),
            key.public_key_hex()
        );
        assert_eq!(key.clone().public_key_hex(), key.public_key_hex());
    }

    #[test]
    fn bad_hex_is_refused_without_echo() {
        let secretish = "zz".repeat(32);
        for input in ["", "abcd", &"ab".repeat(33), &secretish] {
            assert_eq!(
                SigningKey::from_hex(input).unwrap_err(),
                KeyError::InvalidSigningKey
            );
            assert_eq!(
                MasterKey::from_hex(input).unwrap_err(),
                KeyError::InvalidMasterKey
            );
        }
    }

    #[test]
    fn key_file_round_trips() {
        let km = KeyMaterial::generate();
        let text = km.to_toml_string();
        let back = KeyMaterial::from_toml_str(&text).unwrap();
        assert_eq!(
            back.signing_key().public_key_hex(),
            km.signing_key().public_key_hex()
        );
        assert_eq!(back.master_key().bytes(), km.master_key().bytes());
        // Two key lines (plus the comment).
        assert_eq!(
            text.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .count(),
            2
        );
    }

    #[test]
    fn key_file_errors_never_quote_values() {
        let km = KeyMaterial::generate();
        let sk = km.signing_key().to_hex();
        let mk = km.master_key().to_hex();
        let cases = [
            format!("signing_key = \"{}\"\n", &*sk),
            format!("master_key = \"{}\"\n", &*mk),
            format!(
                "signing_key = \"{}\"\nmaster_key = \"{}\"\nmaster_key = \"{}\"\n",
                &*sk, &*mk, &*mk
            ),
            format!("signing_key = {}\nmaster_key = \"{}\"\n", &*sk, &*mk),
            format!("{}\n", &*sk),
            format!("{} = \"{}\"\n", &*sk, &*mk),
            format!("signing_key = \"{}x\"\nmaster_key = \"{}\"\n", &*sk, &*mk),
        ];
        for case in cases {
            let err = KeyMaterial::from_toml_str(&case).unwrap_err().to_string();
            assert!(!err.contains(&sk[..8]), "{err}");
            assert!(!err.contains(&mk[..8]), "{err}");
        }
    }

    #[test]
    fn debug_redacts_everything() {
        let km = KeyMaterial::generate();
        let shown = format!("{km:?} {:?} {:?}", km.signing_key(), km.master_key());
        assert!(!shown.contains(&km.signing_key().to_hex()[..8]));
        assert!(!shown.contains(&km.master_key().to_hex()[..8]));
        assert!(shown.contains("redacted"));
    }
}
