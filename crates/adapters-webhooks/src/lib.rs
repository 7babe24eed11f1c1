#![doc = include_str!("../README.md")]

use adapters_crypto::webhook_vault::sign_webhook;
use api_core::dto::EventDto;
use async_trait::async_trait;
use domain::webhooks::endpoint::{address_allowed, AttemptResult};
use domain::webhooks::ports::{Outgoing, WebhookSender};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one delivery may take, connection included.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Posts deliveries with one shared HTTP client.
pub struct HttpWebhookSender {
    client: reqwest::Client,
}

impl HttpWebhookSender {
    /// A sender that delivers to loopback addresses only when `allow_loopback`.
    pub fn new(allow_loopback: bool) -> Result<HttpWebhookSender, reqwest::Error> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(DELIVERY_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("idreg-webhooks/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(CheckedResolver { allow_loopback }))
            .build()?;
        Ok(HttpWebhookSender { client })
    }
}

/// The system resolver, keeping only the addresses a delivery may go to.
struct CheckedResolver {
    allow_loopback: bool,
}

/// Every address the name resolved to is one a delivery may not go to.
#[derive(Debug)]
struct AddressRefused;

impl std::fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the endpoint's host resolves only to addresses deliveries may not reach")
    }
}

impl std::error::Error for AddressRefused {}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_loopback = self.allow_loopback;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| address_allowed(a.ip(), allow_loopback))
                .collect();
            if found.is_empty() {
                return Err(Box::new(AddressRefused) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(found.into_iter()) as Addrs)
        })
    }
}

/// The delivery log's word for a failure without an answer.
fn failure_kind(e: &reqwest::Error) -> &'static str {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<AddressRefused>() {
            return "address_refused";
        }
        source = s.source();
    }
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else {
        "request"
    }
}

/// The body of a delivery: the event as the log shows it.
pub fn body(outgoing: &Outgoing) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&EventDto::of(&outgoing.tenant_id, &outgoing.event))
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, outgoing: Outgoing) -> (AttemptResult, i64) {
        let started = Instant::now();
        let elapsed = || i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        let failed = |error: &str| AttemptResult::Failed {
            error: error.to_owned(),
        };
        let Ok(body) = body(&outgoing) else {
            return (failed("render"), elapsed());
        };
        let id = outgoing.event.event.id.to_string();
        let timestamp = outgoing.sent_at.timestamp();
        let Ok(signature) = sign_webhook(&outgoing.secret, &id, timestamp, &body) else {
            return (failed("sign"), elapsed());
        };
        let sent = self
            .client
            .post(outgoing.url.as_str())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body)
            .send()
            .await;
        match sent {
            Ok(response) => {
                let status = response.status().as_u16();
                // The answer's body is not kept; reading it (bounded by the timeout) lets the
                // connection be reused.
                let _ = response.bytes().await;
                let result = if (200..300).contains(&status) {
                    AttemptResult::Delivered { status }
                } else {
                    AttemptResult::Refused { status }
                };
                (result, elapsed())
            }
            Err(e) => {
                let kind = failure_kind(&e);
                tracing::debug!(kind, "webhook delivery failed");
                (failed(kind), elapsed())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_name_resolving_only_to_loopback_is_refused_unless_allowed() {
        let refused = CheckedResolver {
            allow_loopback: false,
        }
        .resolve("localhost".parse().unwrap())
        .await;
        assert!(refused.is_err());
        let allowed = CheckedResolver {
            allow_loopback: true,
        }
        .resolve("localhost".parse().unwrap())
        .await
        .unwrap();
        assert!(allowed.into_iter().all(|a| a.ip().is_loopback()));
    }

    #[tokio::test]
    async fn a_refused_address_is_logged_as_such() {
        let sender = HttpWebhookSender::new(false).unwrap();
        let e = sender
            .client
            .post("http://localhost:9/")
            .send()
            .await
            .unwrap_err();
        assert_eq!(failure_kind(&e), "address_refused");
    }
}
