#![doc = include_str!("../README.md")]

pub mod client_documents;

use adapters_crypto::webhook_vault::sign_webhook;
use api_core::dto::EventDto;
use async_trait::async_trait;
use domain::webhooks::endpoint::{address_allowed, AttemptResult, EndpointHost};
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
    allow_loopback: bool,
}

/// How much of a receiver's answer is read: enough to let a short body go with its
/// connection, never a hostile receiver's gigabytes. Nothing of it is kept.
pub const ANSWER_READ_LIMIT: usize = 4 * 1024;

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
        Ok(HttpWebhookSender {
            client,
            allow_loopback,
        })
    }
}

/// The system resolver, keeping only the addresses a delivery may go to.
pub(crate) struct CheckedResolver {
    pub(crate) allow_loopback: bool,
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
pub(crate) fn failure_kind(e: &reqwest::Error) -> &'static str {
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

/// Reads at most `limit` bytes of an answer's body and drops the rest with the connection
/// (a body that ends within the limit leaves its connection for reuse). Answers the bytes
/// read.
pub async fn read_bounded(mut response: reqwest::Response, limit: usize) -> usize {
    let mut read = 0;
    while read < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
    read.min(limit)
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
        // The resolver checks the addresses a host name resolves to; an address written in
        // the URL itself is never resolved, so it is checked here, at each delivery as at
        // registration (a rule tightened since registration applies).
        match outgoing.url.host() {
            EndpointHost::Unreadable => return (failed("address_refused"), elapsed()),
            EndpointHost::Ip(ip) if !address_allowed(ip, self.allow_loopback) => {
                return (failed("address_refused"), elapsed())
            }
            EndpointHost::Ip(_) | EndpointHost::Name => {}
        }
        let request = self
            .client
            .post(outgoing.url.as_str())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body);
        // In a client span whose W3C trace context the delivery carries.
        let sent =
            connector_kit::trace::traced(request, async |request| match request.send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    read_bounded(response, ANSWER_READ_LIMIT).await;
                    (Ok(status), Some(status))
                }
                Err(e) => (Err(e), None),
            })
            .await;
        match sent {
            Ok(status) => {
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

    /// A delivery of one event to `url` (parsed where loopback is allowed).
    fn outgoing(url: &str) -> Outgoing {
        use domain::evidence::{Evidence, EvidenceSource};
        use domain::ids::{CallRef, EventId, TenantId};
        use domain::monitoring::event::{EventData, LoggedEvent, NewEvent};
        let now = chrono::Utc::now();
        Outgoing {
            url: domain::webhooks::endpoint::EndpointUrl::parse(url, true).unwrap(),
            secret: domain::webhooks::endpoint::WebhookSecret::new(
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
            ),
            tenant_id: TenantId::generate(),
            sent_at: now,
            event: LoggedEvent {
                seq: 1,
                recorded_at: now,
                subject: None,
                event: NewEvent {
                    id: EventId::generate(),
                    idempotency_key: "k1".into(),
                    type_name: "subscription.created".into(),
                    country: domain::countries::country::Country::Se,
                    subject_id: None,
                    subject_ref: None,
                    subscription_id: None,
                    occurred_at: now,
                    data: EventData::Null,
                    evidence: Evidence {
                        source: EvidenceSource::SERVICE_DERIVED,
                        source_timestamp: now,
                        call_ref: CallRef::generate(),
                        upstream_ref: None,
                        digest: None,
                        schema_version: None,
                        retrieved_at: now,
                    },
                },
            },
        }
    }

    /// A receiver that answers 200 with a body that never ends.
    async fn endless_receiver() -> (String, tokio::task::JoinHandle<u64>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let served = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 8192];
            let _ = stream.read(&mut request).await;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1073741824\r\n\r\n")
                .await;
            let chunk = vec![b'x'; 64 * 1024];
            let mut written = 0u64;
            while stream.write_all(&chunk).await.is_ok() {
                written += chunk.len() as u64;
            }
            written
        });
        (url, served)
    }

    #[tokio::test]
    async fn a_receivers_endless_answer_is_read_a_few_kilobytes_deep() {
        let (url, served) = endless_receiver().await;
        let sender = HttpWebhookSender::new(true).unwrap();
        let started = Instant::now();
        let (result, _) = sender.send(outgoing(&url)).await;
        assert_eq!(result, AttemptResult::Delivered { status: 200 });
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        // The connection was dropped: the receiver's writes stopped far short of its 1 GiB.
        let written = tokio::time::timeout(Duration::from_secs(10), served)
            .await
            .expect("the receiver's writes end when the sender hangs up")
            .unwrap();
        assert!(written < 64 * 1024 * 1024, "{written}");
    }

    #[tokio::test]
    async fn an_address_written_in_the_url_is_checked_at_delivery() {
        // Registered where loopback was allowed, delivered where it is not: refused without
        // a connection.
        let (url, _served) = endless_receiver().await;
        let sender = HttpWebhookSender::new(false).unwrap();
        let (result, _) = sender.send(outgoing(&url)).await;
        assert_eq!(
            result,
            AttemptResult::Failed {
                error: "address_refused".into()
            }
        );
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
