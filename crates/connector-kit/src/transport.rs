//! One exchange with an upstream: the request id, sending, reading a bounded body, and the
//! digest of what arrived.

use domain::companies::profile::RegistryFailure;
use reqwest::header::HeaderMap;
use sha2::{Digest, Sha256};

/// The request-id header sent on every call (and echoed by some upstreams).
pub const REQUEST_ID: &str = "x-request-id";

/// Largest JSON or XML answer read (registry answers are a few kilobytes).
pub const MAX_DATA_BYTES: usize = 4 * 1024 * 1024;

/// A fresh request id, formatted as a UUID (version 7 layout: a ULID's millisecond time
/// stamp and randomness with the version and variant bits set).
pub fn new_request_id() -> String {
    let mut b = ulid::Ulid::generate().to_bytes();
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `sha256:<hex>` of bytes: the form of a call record's digest.
pub fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// An answer that arrived: status, headers and the raw body exactly as received.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The answer's headers.
    pub headers: HeaderMap,
    /// The body, byte for byte (never longer than the limit it was read with).
    pub body: Vec<u8>,
}

impl Answer {
    /// A header's trimmed value; `None` when absent, empty or not visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    }
}

/// Why no (complete) answer arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A time limit ran out (connecting, or the whole call).
    Timeout,
    /// The connection (TCP or TLS) could not be established.
    Connect,
    /// The body is longer than the limit (the number) it was read with.
    TooLarge(usize),
    /// Anything else; the reason never contains the URL.
    Other(String),
}

impl Transport {
    fn from_reqwest(e: &reqwest::Error) -> Transport {
        if e.is_timeout() {
            Transport::Timeout
        } else if e.is_connect() {
            Transport::Connect
        } else {
            // reqwest's messages name the URL at most, never a request body.
            Transport::Other(without_url(e))
        }
    }

    /// The failure this stands for: always `Unavailable`, its reason starting with `what`
    /// (the operation's label): "no answer within the time limit", "connection failed",
    /// "the answer exceeds N bytes" or "transport error: ...".
    pub fn failure(&self, what: &str) -> RegistryFailure {
        RegistryFailure::Unavailable(match self {
            Transport::Timeout => format!("{what}: no answer within the time limit"),
            Transport::Connect => format!("{what}: connection failed"),
            Transport::TooLarge(limit) => {
                format!("{what}: the answer exceeds {limit} bytes")
            }
            Transport::Other(m) => format!("{what}: transport error: {m}"),
        })
    }
}

fn without_url(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    if let Some(u) = e.url() {
        s = s.replace(u.as_str(), "<url>");
    }
    s
}

/// One exchange and how long it took, from sending the request to the end of the answer (or
/// the failure): what [`crate::conclude`] makes a call's record of.
#[derive(Debug)]
pub struct Exchange {
    /// The answer, or why none (complete) arrived.
    pub outcome: Result<Answer, Transport>,
    /// From sending the request to the end of the answer or the failure.
    pub elapsed: std::time::Duration,
}

/// [`exchange`], timed.
pub async fn send(request: reqwest::RequestBuilder, limit: usize) -> Exchange {
    let started = std::time::Instant::now();
    let outcome = exchange(request, limit).await;
    Exchange {
        outcome,
        elapsed: started.elapsed(),
    }
}

/// Sends a request and reads the whole body, at most `limit` bytes: a longer body is
/// refused as [`Transport::TooLarge`], from its `Content-Length` before reading or, without
/// one, as soon as the bytes read pass the limit. Any status is an [`Answer`].
pub async fn exchange(request: reqwest::RequestBuilder, limit: usize) -> Result<Answer, Transport> {
    crate::trace::traced(request, async |request| {
        let answer = exchange_untraced(request, limit).await;
        let status = answer.as_ref().ok().map(|a| a.status);
        (answer, status)
    })
    .await
}

async fn exchange_untraced(
    request: reqwest::RequestBuilder,
    limit: usize,
) -> Result<Answer, Transport> {
    let mut resp = request
        .send()
        .await
        .map_err(|e| Transport::from_reqwest(&e))?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    if resp.content_length().is_some_and(|n| n > limit as u64) {
        return Err(Transport::TooLarge(limit));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| Transport::from_reqwest(&e))?
    {
        if body.len() + chunk.len() > limit {
            return Err(Transport::TooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// The failure an unexpected HTTP status stands for (statuses an operation handles itself,
/// such as a documented 404, are dealt with before this is called).
///
/// 5xx, 408 and 429 are the upstream not coping (`Unavailable`); 401/403 mean the
/// credentials or certificate are not accepted (`Unavailable`, an operator must act); 400
/// means the upstream refused a request the domain had validated (`Garbled`); any other
/// status (a redirect, another 4xx) is `Garbled` too. The reason starts with `what`.
pub fn status_failure(what: &str, status: u16) -> RegistryFailure {
    match status {
        500..=599 => RegistryFailure::Unavailable(format!("{what}: upstream answered {status}")),
        408 | 429 => RegistryFailure::Unavailable(format!("{what}: upstream answered {status}")),
        401 | 403 => RegistryFailure::Unavailable(format!(
            "{what}: upstream refused our credentials ({status})"
        )),
        400 => RegistryFailure::Garbled(format!(
            "{what}: upstream refused the request as invalid (400) although the identifier \
             passed validation"
        )),
        _ => RegistryFailure::Garbled(format!("{what}: unexpected status {status}")),
    }
}

/// Whether an answer that led to `result` counts as usable: it was complete and
/// conclusive (data, or a definite "not found").
pub fn usable<T>(result: &Result<T, RegistryFailure>) -> bool {
    matches!(result, Ok(_) | Err(RegistryFailure::NotFound))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_look_like_uuids() {
        let a = new_request_id();
        let b = new_request_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('7'));
        assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn digest_format() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn statuses() {
        assert!(matches!(
            status_failure("x", 503),
            RegistryFailure::Unavailable(_)
        ));
        assert!(matches!(
            status_failure("x", 429),
            RegistryFailure::Unavailable(_)
        ));
        assert!(matches!(
            status_failure("x", 400),
            RegistryFailure::Garbled(_)
        ));
        assert!(matches!(
            status_failure("x", 302),
            RegistryFailure::Garbled(_)
        ));
    }

    #[test]
    fn usable_means_conclusive() {
        assert!(usable(&Ok::<(), _>(())));
        assert!(usable::<()>(&Err(RegistryFailure::NotFound)));
        assert!(!usable::<()>(&Err(RegistryFailure::Garbled("x".into()))));
        assert!(!usable::<()>(&Err(RegistryFailure::Unavailable(
            "x".into()
        ))));
    }
}
