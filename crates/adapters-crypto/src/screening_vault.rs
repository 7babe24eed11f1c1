//! Screening inputs under the tenant's keys: a check's input is sealed at rest (the seal
//! key, with associated data of its own so it opens as nothing else and under no other
//! tenant), and its `input_hash` is an HMAC under a key derived for that purpose alone, so
//! the hash names an input to a whitelist without letting anyone test guesses against it
//! without the tenant's key.

use crate::vault::{open, seal, AesVault};
use domain::access::tenant::WrappedDataKey;
use domain::error::CryptoError;
use domain::ids::TenantId;
use domain::screening::check::{CheckInput, SealedCheckInput};
use domain::screening::ports::ScreeningVault;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::fmt::Write;
use zeroize::Zeroizing;

const INPUT_HASH_INFO: &[u8] = b"idreg:screening-input-hash:v1";

/// `<tenant>:screening-input:v1`.
fn input_aad(tenant: &TenantId) -> Vec<u8> {
    format!("{tenant}:screening-input:v1").into_bytes()
}

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

#[derive(Serialize, Deserialize)]
struct StoredInputV1 {
    name: Option<String>,
    birth_date: Option<String>,
    nationalities: Vec<String>,
    orgnr: Option<String>,
    country: Option<String>,
}

impl ScreeningVault for AesVault {
    fn seal_check_input(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        input: &CheckInput,
    ) -> Result<SealedCheckInput, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let stored = StoredInputV1 {
            name: input.name.clone(),
            birth_date: input.birth_date.clone(),
            nationalities: input.nationalities.clone(),
            orgnr: input.orgnr.clone(),
            country: input.country.clone(),
        };
        let plain = Zeroizing::new(
            serde_json::to_vec(&stored).map_err(|_| fail("screening input does not encode"))?,
        );
        seal(&keys.seal, &plain, &input_aad(tenant)).map(SealedCheckInput)
    }

    fn open_check_input(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &SealedCheckInput,
    ) -> Result<CheckInput, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            open(&keys.seal, &sealed.0, &input_aad(tenant))
                .map_err(|_| fail("sealed screening input does not open for this tenant"))?,
        );
        let stored: StoredInputV1 = serde_json::from_slice(&plain)
            .map_err(|_| fail("sealed screening input is not a stored input"))?;
        Ok(CheckInput {
            name: stored.name,
            birth_date: stored.birth_date,
            nationalities: stored.nationalities,
            orgnr: stored.orgnr,
            country: stored.country,
        })
    }

    fn input_hash(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        canonical: &str,
    ) -> Result<String, CryptoError> {
        let k = self.tenant_purpose_key(tenant, key, INPUT_HASH_INFO)?;
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(&k[..]).map_err(|_| fail("input hash failed"))?;
        mac.update(canonical.as_bytes());
        let digest = mac.finalize().into_bytes();
        let mut out = String::with_capacity(12 + 64);
        out.push_str("hmac-sha256:");
        for b in digest {
            let _ = write!(out, "{b:02x}");
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::subjects::ports::IdentifierVault;

    fn vault() -> AesVault {
        AesVault::new([7u8; 32])
    }

    #[test]
    fn an_input_opens_only_for_its_tenant() {
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let input = CheckInput {
            name: Some("Anna Testsson".into()),
            birth_date: Some("1980".into()),
            nationalities: vec!["SE".into()],
            orgnr: None,
            country: Some("SE".into()),
        };
        let sealed = v.seal_check_input(&a, &ka, &input).unwrap();
        assert!(!String::from_utf8_lossy(&sealed.0).contains("Testsson"));
        assert_eq!(v.open_check_input(&a, &ka, &sealed).unwrap(), input);
        assert!(v.open_check_input(&b, &kb, &sealed).is_err());
    }

    #[test]
    fn input_hashes_are_stable_per_tenant_and_differ_between_tenants() {
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let h1 = v.input_hash(&a, &ka, "v1|name=anna").unwrap();
        assert_eq!(h1, v.input_hash(&a, &ka, "v1|name=anna").unwrap());
        assert_eq!(h1.len(), "hmac-sha256:".len() + 64);
        assert_ne!(h1, v.input_hash(&b, &kb, "v1|name=anna").unwrap());
        assert_ne!(h1, v.input_hash(&a, &ka, "v1|name=anne").unwrap());
    }
}
