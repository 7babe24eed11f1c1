//! Identifier encryption under per-tenant data keys, and keyed blind indexes.
//!
//! Key hierarchy:
//!
//! ```text
//! master key (32 bytes, configuration)
//!   └─ wraps, AES-256-GCM, AAD "idreg:dek:<tenant>" ─ tenant data key (32 bytes, stored wrapped)
//!        ├─ HKDF-SHA256 "idreg:seal:v1"        ─ seal key  (AES-256-GCM of the canonical value)
//!        └─ HKDF-SHA256 "idreg:blind-index:v1" ─ index key (HMAC-SHA256 blind index)
//! ```
//!
//! Wrapped keys and sealed values share one layout: a version byte (1), a random 12-byte
//! nonce, then the AES-GCM ciphertext with its 16-byte tag.

use crate::keys::MasterKey;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use domain::access::tenant::WrappedDataKey;
use domain::error::CryptoError;
use domain::ids::TenantId;
use domain::subjects::identifier::{Identifier, IdentifierType};
use domain::subjects::ports::IdentifierVault;
use domain::subjects::subject::{BlindIndex, ProtectedIdentifier};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::Sha256;
use std::fmt;
use zeroize::{Zeroize, Zeroizing};

/// The layout version of wrapped keys and sealed values.
const VERSION: u8 = 1;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
const KEY_LEN: usize = 32;
/// Length of a wrapped data key: version, nonce, 32-byte key, tag.
pub const WRAPPED_KEY_LEN: usize = 1 + NONCE_LEN + KEY_LEN + TAG_LEN;

const DEK_AAD_PREFIX: &[u8] = b"idreg:dek:";
const SEAL_INFO: &[u8] = b"idreg:seal:v1";
const BLIND_INDEX_INFO: &[u8] = b"idreg:blind-index:v1";

type Key = Zeroizing<[u8; KEY_LEN]>;

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

fn cipher(key: &[u8; KEY_LEN]) -> Aes256Gcm {
    Aes256Gcm::new(key.into())
}

/// `VERSION || nonce || AES-256-GCM(key, nonce, plaintext, aad)`.
pub(crate) fn seal(
    key: &[u8; KEY_LEN],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, CryptoError> {
    let mut nonce = [0u8; NONCE_LEN];
    OsRng.fill_bytes(&mut nonce);
    let ct = cipher(key)
        .encrypt(
            &Nonce::from(nonce),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .map_err(|_| fail("encryption failed"))?;
    let mut out = Vec::with_capacity(1 + NONCE_LEN + ct.len());
    out.push(VERSION);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// Inverse of [`seal`]; fails on any other version, length, key, AAD or tampering.
pub(crate) fn open(
    key: &[u8; KEY_LEN],
    sealed: &[u8],
    aad: &[u8],
) -> Result<Zeroizing<Vec<u8>>, ()> {
    if sealed.len() < 1 + NONCE_LEN + TAG_LEN || sealed[0] != VERSION {
        return Err(());
    }
    let (nonce, ct) = sealed[1..].split_at(NONCE_LEN);
    let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| ())?;
    cipher(key)
        .decrypt(&Nonce::from(nonce), Payload { msg: ct, aad })
        .map(Zeroizing::new)
        .map_err(|_| ())
}

fn dek_aad(tenant: &TenantId) -> Vec<u8> {
    let mut aad = DEK_AAD_PREFIX.to_vec();
    aad.extend_from_slice(tenant.to_string().as_bytes());
    aad
}

/// `<tenant>:<type>:<prefix>`: binds a sealed value to its tenant and type.
fn seal_aad(tenant: &TenantId, id_type: IdentifierType) -> Vec<u8> {
    format!("{tenant}:{id_type}:{}", id_type.country().prefix()).into_bytes()
}

/// The two subkeys of one tenant's data key.
pub(crate) struct TenantKeys {
    pub(crate) seal: Key,
    index: Key,
}

impl TenantKeys {
    fn derive(dek: &[u8; KEY_LEN]) -> Result<TenantKeys, CryptoError> {
        let hk = Hkdf::<Sha256>::new(None, dek);
        let mut seal = Zeroizing::new([0u8; KEY_LEN]);
        let mut index = Zeroizing::new([0u8; KEY_LEN]);
        hk.expand(SEAL_INFO, &mut seal[..])
            .and_then(|_| hk.expand(BLIND_INDEX_INFO, &mut index[..]))
            .map_err(|_| fail("key derivation failed"))?;
        Ok(TenantKeys { seal, index })
    }

    /// HMAC-SHA256(index key, `<prefix>:<type>:<canonical>`).
    fn blind_index(&self, identifier: &Identifier) -> Result<BlindIndex, CryptoError> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.index[..])
            .map_err(|_| fail("blind index failed"))?;
        mac.update(identifier.country().prefix().as_bytes());
        mac.update(b":");
        mac.update(identifier.id_type().as_str().as_bytes());
        mac.update(b":");
        mac.update(identifier.expose_canonical().as_bytes());
        Ok(BlindIndex(mac.finalize().into_bytes().to_vec()))
    }
}

/// [`IdentifierVault`] with AES-256-GCM, HKDF-SHA256 and HMAC-SHA256.
#[derive(Clone)]
pub struct AesVault {
    master: Key,
}

impl AesVault {
    /// The vault under a 32-byte master key (the argument's copy is wiped).
    pub fn new(mut master_key: [u8; 32]) -> Self {
        let vault = AesVault {
            master: Zeroizing::new(master_key),
        };
        master_key.zeroize();
        vault
    }

    pub fn from_master_key(master: &MasterKey) -> Self {
        AesVault {
            master: Zeroizing::new(*master.bytes()),
        }
    }

    /// The master key's bytes, for keys derived from it for one purpose.
    pub(crate) fn master_bytes(&self) -> &[u8; KEY_LEN] {
        &self.master
    }

    /// Unwraps a tenant's data key, checking that it was wrapped for this tenant.
    fn unwrap_key(&self, tenant: &TenantId, key: &WrappedDataKey) -> Result<Key, CryptoError> {
        let bad = || fail("data key does not unwrap for this tenant");
        if key.0.len() != WRAPPED_KEY_LEN {
            return Err(bad());
        }
        let plain = open(&self.master, &key.0, &dek_aad(tenant)).map_err(|_| bad())?;
        let mut dek = Zeroizing::new([0u8; KEY_LEN]);
        dek.copy_from_slice(plain.get(..KEY_LEN).ok_or_else(bad)?);
        Ok(dek)
    }

    /// A key of its own for `info`, derived from the tenant's data key (so one purpose's
    /// hashes never equal another's).
    pub(crate) fn tenant_purpose_key(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        info: &[u8],
    ) -> Result<Key, CryptoError> {
        let dek = self.unwrap_key(tenant, key)?;
        let mut out = Zeroizing::new([0u8; KEY_LEN]);
        Hkdf::<Sha256>::new(None, &dek[..])
            .expand(info, &mut out[..])
            .map_err(|_| fail("key derivation failed"))?;
        Ok(out)
    }

    pub(crate) fn tenant_keys(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
    ) -> Result<TenantKeys, CryptoError> {
        let dek = self.unwrap_key(tenant, key)?;
        TenantKeys::derive(&dek)
    }
}

impl fmt::Debug for AesVault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AesVault(<redacted>)")
    }
}

impl IdentifierVault for AesVault {
    fn new_data_key(&self, tenant: &TenantId) -> Result<WrappedDataKey, CryptoError> {
        let mut dek = Zeroizing::new([0u8; KEY_LEN]);
        OsRng.fill_bytes(&mut dek[..]);
        seal(&self.master, &dek[..], &dek_aad(tenant)).map(WrappedDataKey)
    }

    fn protect(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        identifier: &Identifier,
    ) -> Result<ProtectedIdentifier, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let id_type = identifier.id_type();
        let sealed = seal(
            &keys.seal,
            identifier.expose_canonical().as_bytes(),
            &seal_aad(tenant, id_type),
        )?;
        Ok(ProtectedIdentifier {
            id_type,
            country: identifier.country(),
            blind_index: keys.blind_index(identifier)?,
            sealed,
        })
    }

    fn reveal(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        id_type: IdentifierType,
        sealed: &[u8],
    ) -> Result<Identifier, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = open(&keys.seal, sealed, &seal_aad(tenant, id_type))
            .map_err(|_| fail("sealed identifier does not open for this tenant and type"))?;
        let canonical = std::str::from_utf8(&plain)
            .map_err(|_| fail("sealed identifier is not a valid identifier"))?;
        // The error names only the type, never the value.
        Identifier::restore(id_type, canonical)
            .map_err(|_| fail("sealed identifier is not a valid identifier"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Valid under any check rules: Skatteverket's test personnummer and a real orgnr.
    fn personnummer() -> Identifier {
        Identifier::restore(adapters_se::identifiers::PERSONNUMMER, "198111309285")
            .expect("test personnummer parses")
    }

    fn orgnr() -> Identifier {
        Identifier::parse_company("se:5560021361").expect("test orgnr parses")
    }

    fn vault() -> AesVault {
        AesVault::from_master_key(&MasterKey::generate())
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn wrapped_keys_have_the_documented_layout() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        assert_eq!(k.0.len(), WRAPPED_KEY_LEN);
        assert_eq!(k.0[0], VERSION);
        assert_ne!(v.new_data_key(&t).unwrap(), k);
    }

    #[test]
    fn protect_and_reveal_round_trip() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        for id in [personnummer(), orgnr()] {
            let p = v.protect(&t, &k, &id).unwrap();
            assert_eq!(p.id_type, id.id_type());
            assert_eq!(p.country, id.country());
            assert_eq!(p.blind_index.0.len(), 32);
            assert_eq!(v.reveal(&t, &k, p.id_type, &p.sealed).unwrap(), id);
        }
    }

    #[test]
    fn blind_index_is_stable_within_a_tenant_and_unlinkable_across() {
        crate::install_schemes();
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let id = personnummer();
        let pa1 = v.protect(&a, &ka, &id).unwrap();
        let pa2 = v.protect(&a, &ka, &id).unwrap();
        let pb = v.protect(&b, &kb, &id).unwrap();
        assert_eq!(pa1.blind_index, pa2.blind_index);
        assert_ne!(pa1.blind_index, pb.blind_index);
        // Different identifiers differ.
        assert_ne!(
            pa1.blind_index,
            v.protect(&a, &ka, &orgnr()).unwrap().blind_index
        );
        // A new key for the same tenant gives other indexes (the key, not the id, decides).
        let ka2 = v.new_data_key(&a).unwrap();
        assert_ne!(
            pa1.blind_index,
            v.protect(&a, &ka2, &id).unwrap().blind_index
        );
    }

    #[test]
    fn seals_are_randomised_but_reveal_alike() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let id = personnummer();
        let p1 = v.protect(&t, &k, &id).unwrap();
        let p2 = v.protect(&t, &k, &id).unwrap();
        assert_ne!(p1.sealed, p2.sealed);
        assert_eq!(v.reveal(&t, &k, id.id_type(), &p1.sealed).unwrap(), id);
        assert_eq!(v.reveal(&t, &k, id.id_type(), &p2.sealed).unwrap(), id);
    }

    #[test]
    fn tampering_fails() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let id = personnummer();
        let p = v.protect(&t, &k, &id).unwrap();
        for i in 0..p.sealed.len() {
            let mut bad = p.sealed.clone();
            bad[i] ^= 0x80;
            assert!(v.reveal(&t, &k, id.id_type(), &bad).is_err(), "byte {i}");
        }
        assert!(v
            .reveal(&t, &k, id.id_type(), &p.sealed[..p.sealed.len() - 1])
            .is_err());
        assert!(v.reveal(&t, &k, id.id_type(), &[]).is_err());
        let mut bad_key = k.clone();
        bad_key.0[20] ^= 1;
        assert!(v.protect(&t, &bad_key, &id).is_err());
    }

    #[test]
    fn a_key_is_bound_to_its_tenant() {
        crate::install_schemes();
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let ka = v.new_data_key(&a).unwrap();
        let id = personnummer();
        // Tenant A's key presented under tenant B's id does not unwrap.
        assert!(v.protect(&b, &ka, &id).is_err());
        let p = v.protect(&a, &ka, &id).unwrap();
        assert!(v.reveal(&b, &ka, id.id_type(), &p.sealed).is_err());
    }

    #[test]
    fn a_seal_is_bound_to_its_tenant_and_type() {
        crate::install_schemes();
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let ka = v.new_data_key(&a).unwrap();
        let id = personnummer();
        let p = v.protect(&a, &ka, &id).unwrap();
        // Same data key, other tenant in the seal's AAD: the key unwraps only for `a`, so
        // test the seal AAD directly with the derived keys.
        let keys = v.tenant_keys(&a, &ka).unwrap();
        assert!(open(&keys.seal, &p.sealed, &seal_aad(&b, id.id_type())).is_err());
        assert!(open(&keys.seal, &p.sealed, &seal_aad(&a, id.id_type())).is_ok());
        // Other type of the same country.
        assert!(v
            .reveal(
                &a,
                &ka,
                adapters_se::identifiers::SAMORDNINGSNUMMER,
                &p.sealed
            )
            .is_err());
    }

    #[test]
    fn another_master_key_cannot_unwrap() {
        crate::install_schemes();
        let t = TenantId::generate();
        let k = vault().new_data_key(&t).unwrap();
        assert!(vault().protect(&t, &k, &personnummer()).is_err());
    }

    #[test]
    fn sealed_values_never_contain_the_plaintext() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        for id in [personnummer(), orgnr()] {
            let digits = id.expose_canonical().as_bytes().to_vec();
            for _ in 0..50 {
                let p = v.protect(&t, &k, &id).unwrap();
                assert!(!contains(&p.sealed, &digits));
                assert!(!contains(&p.blind_index.0, &digits));
            }
        }
    }

    #[test]
    fn errors_and_debug_reveal_nothing() {
        crate::install_schemes();
        let v = vault();
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let id = personnummer();
        let p = v.protect(&t, &k, &id).unwrap();
        let mut bad = p.sealed.clone();
        bad[5] ^= 1;
        let err = v
            .reveal(&t, &k, id.id_type(), &bad)
            .unwrap_err()
            .to_string();
        let other = v
            .protect(&TenantId::generate(), &k, &id)
            .unwrap_err()
            .to_string();
        let shown = format!("{err} {other} {v:?} {p:?}");
        assert!(!shown.contains(id.expose_canonical()));
        assert!(!shown.contains(&hex::encode(&v.master[..4])));
    }

    #[test]
    fn new_and_from_master_key_agree() {
        crate::install_schemes();
        let m = MasterKey::generate();
        let t = TenantId::generate();
        let k = AesVault::from_master_key(&m).new_data_key(&t).unwrap();
        let v = AesVault::new(*m.bytes());
        assert!(v.protect(&t, &k, &personnummer()).is_ok());
    }
}
