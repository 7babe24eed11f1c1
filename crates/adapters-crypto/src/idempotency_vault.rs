//! Idempotency keys under the tenant's keys: a key is stored only as an HMAC under a key
//! derived for that purpose, a request's fingerprint as an HMAC under another (a request's
//! body may hold a personal number: a plain digest of it could be tested against guesses),
//! and a kept answer sealed with associated data of its own, so it opens as nothing else and
//! under no other tenant.

use crate::vault::{open, seal, AesVault};
use domain::access::scope::ScopeSet;
use domain::access::tenant::WrappedDataKey;
use domain::countries::country::CountrySet;
use domain::error::{CryptoError, ErrorCode};
use domain::idempotency::key::{HeldRights, IdempotencyKey, KeptAnswer, StoredAnswer};
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
    Success {
        body: String,
        /// Absent in answers kept before the rights were recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        held: Option<HeldV1>,
    },
    Failure {
        code: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        held: Option<HeldV1>,
    },
}

/// The rights a kept answer was made under, as names.
#[derive(Serialize, Deserialize)]
struct HeldV1 {
    scopes: String,
    countries: String,
    permit_in_force: bool,
}

impl HeldV1 {
    fn of(held: &HeldRights) -> HeldV1 {
        HeldV1 {
            scopes: held.scopes.to_string(),
            countries: held.countries.codes().join(","),
            permit_in_force: held.permit_in_force,
        }
    }

    fn read(self) -> Result<HeldRights, CryptoError> {
        Ok(HeldRights {
            scopes: ScopeSet::parse_list(&self.scopes)
                .map_err(|_| fail("a kept answer names an unknown scope"))?,
            countries: CountrySet::parse_list(&self.countries)
                .map_err(|_| fail("a kept answer names an unknown country"))?,
            permit_in_force: self.permit_in_force,
        })
    }
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
        answer: &KeptAnswer,
    ) -> Result<Vec<u8>, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let held = answer.held.as_ref().map(HeldV1::of);
        let kept = match &answer.answer {
            StoredAnswer::Success(body) => KeptAnswerV1::Success {
                body: body.clone(),
                held,
            },
            StoredAnswer::Failure { code, message } => KeptAnswerV1::Failure {
                code: code.as_str().to_owned(),
                message: message.clone(),
                held,
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
    ) -> Result<KeptAnswer, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            open(&keys.seal, sealed, &answer_aad(tenant))
                .map_err(|_| fail("a kept answer does not open for this tenant"))?,
        );
        let kept: KeptAnswerV1 = serde_json::from_slice(&plain)
            .map_err(|_| fail("a sealed answer is not a kept answer"))?;
        let (answer, held) = match kept {
            KeptAnswerV1::Success { body, held } => (StoredAnswer::Success(body), held),
            KeptAnswerV1::Failure {
                code,
                message,
                held,
            } => (
                StoredAnswer::Failure {
                    code: ErrorCode::ALL
                        .into_iter()
                        .find(|c| c.as_str() == code)
                        .ok_or_else(|| fail("a kept answer names an unknown code"))?,
                    message,
                },
                held,
            ),
        };
        Ok(KeptAnswer {
            answer,
            held: held.map(HeldV1::read).transpose()?,
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
        crate::install_schemes();
        let v = vault();
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let held = HeldRights {
            scopes: ScopeSet::parse_list("kyb:read kyc:read").unwrap(),
            countries: CountrySet::parse_list("SE,LT").unwrap(),
            permit_in_force: true,
        };
        for answer in [
            KeptAnswer {
                answer: StoredAnswer::Success("{\"name\":\"Anna Testsson\"}".into()),
                held: Some(held.clone()),
            },
            KeptAnswer {
                answer: StoredAnswer::Failure {
                    code: ErrorCode::NotFound,
                    message: "no subject Testsson".into(),
                },
                held: None,
            },
        ] {
            let sealed = v.seal_answer(&a, &ka, &answer).unwrap();
            assert!(!String::from_utf8_lossy(&sealed).contains("Testsson"));
            assert_eq!(v.open_answer(&a, &ka, &sealed).unwrap(), answer);
            assert!(v.open_answer(&b, &kb, &sealed).is_err());
        }
    }

    #[test]
    fn an_answer_kept_before_the_rights_were_recorded_still_opens() {
        crate::install_schemes();
        let v = vault();
        let a = TenantId::generate();
        let ka = v.new_data_key(&a).unwrap();
        let keys = v.tenant_keys(&a, &ka).unwrap();
        let sealed = seal(
            &keys.seal,
            br#"{"kind":"success","body":"{}"}"#,
            &answer_aad(&a),
        )
        .unwrap();
        assert_eq!(
            v.open_answer(&a, &ka, &sealed).unwrap(),
            KeptAnswer {
                answer: StoredAnswer::Success("{}".into()),
                held: None
            }
        );
    }

    #[test]
    fn hashes_are_stable_per_tenant_distinct_per_purpose_and_per_tenant() {
        crate::install_schemes();
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
