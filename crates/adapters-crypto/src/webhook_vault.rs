//! Webhook secrets and signatures, after the Standard Webhooks convention
//! (<https://www.standardwebhooks.com/>): a secret is `whsec_` and the base64 of 32 random
//! bytes; a delivery is signed with HMAC-SHA256 under those bytes over
//! `{webhook-id}.{webhook-timestamp}.{body}`, and the `webhook-signature` header carries
//! `v1,` and the base64 of the MAC. A secret is kept sealed under the tenant's key, with
//! associated data of its own, so it opens as nothing else and under no other tenant.

use crate::vault::{open, seal, AesVault};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use domain::access::tenant::WrappedDataKey;
use domain::error::CryptoError;
use domain::ids::TenantId;
use domain::webhooks::endpoint::{SealedWebhookSecret, WebhookSecret};
use domain::webhooks::ports::WebhookVault;
use hmac::{Hmac, Mac};
use rand::rngs::OsRng;
use rand::RngCore;
use sha2::Sha256;
use zeroize::Zeroizing;

fn secret_aad(tenant: &TenantId) -> Vec<u8> {
    format!("{tenant}:webhook-secret:v1").into_bytes()
}

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

impl WebhookVault for AesVault {
    fn new_webhook_secret(&self) -> WebhookSecret {
        let mut bytes = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut bytes[..]);
        WebhookSecret::new(format!(
            "{}{}",
            WebhookSecret::PREFIX,
            STANDARD.encode(&bytes[..])
        ))
    }

    fn seal_webhook_secret(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        secret: &WebhookSecret,
    ) -> Result<SealedWebhookSecret, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        seal(&keys.seal, secret.expose().as_bytes(), &secret_aad(tenant)).map(SealedWebhookSecret)
    }

    fn open_webhook_secret(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &SealedWebhookSecret,
    ) -> Result<WebhookSecret, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            open(&keys.seal, &sealed.0, &secret_aad(tenant))
                .map_err(|_| fail("sealed webhook secret does not open for this tenant"))?,
        );
        let text = std::str::from_utf8(&plain).map_err(|_| fail("webhook secret is not text"))?;
        Ok(WebhookSecret::new(text.to_owned()))
    }
}

/// The `webhook-signature` value of a delivery: `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` under the secret's bytes.
pub fn sign_webhook(
    secret: &WebhookSecret,
    id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<String, CryptoError> {
    let encoded = secret
        .expose()
        .strip_prefix(WebhookSecret::PREFIX)
        .ok_or_else(|| fail("a webhook secret starts with whsec_"))?;
    let key = Zeroizing::new(
        STANDARD
            .decode(encoded)
            .map_err(|_| fail("a webhook secret is base64 after whsec_"))?,
    );
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(&key).map_err(|_| fail("webhook hmac failed"))?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::subjects::ports::IdentifierVault;

    #[test]
    fn a_secret_is_32_random_bytes_and_opens_only_for_its_tenant() {
        let v = AesVault::new([9u8; 32]);
        let s = v.new_webhook_secret();
        let raw = STANDARD
            .decode(s.expose().strip_prefix("whsec_").unwrap())
            .unwrap();
        assert_eq!(raw.len(), 32);
        assert_ne!(s, v.new_webhook_secret());
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let sealed = v.seal_webhook_secret(&a, &ka, &s).unwrap();
        assert!(!String::from_utf8_lossy(&sealed.0).contains("whsec_"));
        assert_eq!(v.open_webhook_secret(&a, &ka, &sealed).unwrap(), s);
        assert!(v.open_webhook_secret(&b, &kb, &sealed).is_err());
    }

    /// The example of the Standard Webhooks specification (its secret, id, timestamp and
    /// payload, and the signature it gives).
    #[test]
    fn signatures_match_the_conventions_example() {
        let secret = WebhookSecret::new("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into());
        let body = br#"{"test": 2432232314}"#;
        let sig = sign_webhook(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap();
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }
}
