//! Idempotency keys under the tenant's keys: a key is stored only as an HMAC under a key
//! derived for that purpose, a request's fingerprint as an HMAC under another (a request's
//! body may hold a personal number: a plain digest of it could be tested against guesses),
//! and a kept answer sealed with associated data of its own, so it opens as nothing else and
//! under no other tenant.

use crate::vault::{open, seal, AesVault};
use domain::access::tenant::WrappedDataKey;
use domain::error::{CryptoError, ErrorCode};
use domain::idempotency::key::{IdempotencyKey, StoredAnswer};
use domain::idempotency::ports::IdempotencyVault;
use domain::ids::TenantId;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::fmt::Write;
use zeroize::Zeroizing;

const KEY_HASH_INFO: &[u8] = b"idreg:idempotency-key:v1";
const FINGERPRINT_INFO: &[u8] = b"idreg:idempotency-fingerprint:v1";

fn answer_aad(tenant: &TenantId) -> Vec<u8> {
    format!("{tenant}:idempotency-answer:v1").into_bytes()
}

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum KeptAnswerV1 {
    Success { body: String },
    Failure { code: String, message: String },
}

impl AesVault {
    fn purpose_hmac(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        info: &[u8],
        material: &[u8],
    ) -> Result<String, CryptoError> {
        let k = self.tenant_purpose_key(tenant, key, info)?;
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(&k[..]).map_err(|_| fail("hmac failed"))?;
        mac.update(material);
        let mut out = String::with_capacity(12 + 64);
        out.push_str("hmac-sha256:");
        for b in mac.finalize().into_bytes() {
            let _ = write!(out, "{b:02x}");
        }
        Ok(out)
    }
}

impl IdempotencyVault for AesVault {
    fn key_hash(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        idempotency_key: &IdempotencyKey,
    ) -> Result<String, CryptoError> {
        self.purpose_hmac(
            tenant,
            key,
            KEY_HASH_INFO,
            idempotency_key.expose().as_bytes(),
        )
    }

    fn fingerprint(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        material: &[u8],
    ) -> Result<String, CryptoError> {
        self.purpose_hmac(tenant, key, FINGERPRINT_INFO, material)
    }

    fn seal_answer(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        answer: &StoredAnswer,
    ) -> Result<Vec<u8>, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let kept = match answer {
            StoredAnswer::Success(body) => KeptAnswerV1::Success { body: body.clone() },
            StoredAnswer::Failure { code, message } => KeptAnswerV1::Failure {
                code: code.as_str().to_owned(),
                message: message.clone(),
            },
        };
        let plain = Zeroizing::new(
            serde_json::to_vec(&kept).map_err(|_| fail("a kept answer does not encode"))?,
        );
        seal(&keys.seal, &plain, &answer_aad(tenant))
    }

    fn open_answer(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &[u8],
    ) -> Result<StoredAnswer, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            open(&keys.seal, sealed, &answer_aad(tenant))
                .map_err(|_| fail("a kept answer does not open for this tenant"))?,
        );
        let kept: KeptAnswerV1 = serde_json::from_slice(&plain)
            .map_err(|_| fail("a sealed answer is not a kept answer"))?;
        Ok(match kept {
            KeptAnswerV1::Success { body } => StoredAnswer::Success(body),
            KeptAnswerV1::Failure { code, message } => StoredAnswer::Failure {
                code: ErrorCode::ALL
                    .into_iter()
                    .find(|c| c.as_str() == code)
                    .ok_or_else(|| fail("a kept answer names an unknown code"))?,
                message,
            },
        })
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
    fn an_answer_opens_only_for_its_tenant_and_hides_its_text() {
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        for answer in [
            StoredAnswer::Success("{\"name\":\"Anna Testsson\"}".into()),
            StoredAnswer::Failure {
                code: ErrorCode::NotFound,
                message: "no subject Testsson".into(),
            },
        ] {
            let sealed = v.seal_answer(&a, &ka, &answer).unwrap();
            assert!(!String::from_utf8_lossy(&sealed).contains("Testsson"));
            assert_eq!(v.open_answer(&a, &ka, &sealed).unwrap(), answer);
            assert!(v.open_answer(&b, &kb, &sealed).is_err());
        }
    }

    #[test]
    fn hashes_are_stable_per_tenant_distinct_per_purpose_and_per_tenant() {
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let key = IdempotencyKey::parse("k-1").unwrap();
        let h = v.key_hash(&a, &ka, &key).unwrap();
        assert!(h.starts_with("hmac-sha256:") && h.len() == 12 + 64);
        assert_eq!(h, v.key_hash(&a, &ka, &key).unwrap());
        assert_ne!(h, v.key_hash(&b, &kb, &key).unwrap());
        assert_ne!(h, v.fingerprint(&a, &ka, b"k-1").unwrap());
        assert!(!h.contains("k-1"));
    }
}
