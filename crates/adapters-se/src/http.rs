//! What every upstream call shares: the HTTP clients, request ids, reading a bounded body,
//! turning an HTTP outcome into a [`RegistryFailure`], and the [`UpstreamCall`] record.

use crate::config::{SeConfigError, Timeouts, TlsConfig};
use chrono::{DateTime, Utc};
use domain::company::{RegistryFailure, UpstreamCall};
use domain::evidence::EvidenceSource;
use reqwest::header::HeaderMap;
use sha2::{Digest, Sha256};

/// The request-id header sent on every call (and echoed by some upstreams).
pub(crate) const REQUEST_ID: &str = "x-request-id";

/// Largest JSON or XML answer read (the answers are a few kilobytes).
pub(crate) const MAX_DATA_BYTES: usize = 4 * 1024 * 1024;

/// Builds one source's HTTP client: time limits, no redirects (a redirected POST would
/// silently become a GET), optional client certificate and extra roots.
pub(crate) fn build_client(
    setting: &'static str,
    timeouts: Timeouts,
    tls: &TlsConfig,
) -> Result<reqwest::Client, SeConfigError> {
    let mut b = reqwest::Client::builder()
        .connect_timeout(timeouts.connect)
        .timeout(timeouts.total)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("idreg-adapters-se/", env!("CARGO_PKG_VERSION")));
    if let Some(path) = &tls.client_identity_pem {
        let pem = std::fs::read(path).map_err(|e| SeConfigError::Tls {
            setting,
            reason: format!(
                "cannot read the client identity file {}: {e}",
                path.display()
            ),
        })?;
        b = b.identity(identity_from_pem(setting, &pem)?);
    }
    if let Some(path) = &tls.client_identity_pkcs12 {
        let der = std::fs::read(path).map_err(|e| SeConfigError::Tls {
            setting,
            reason: format!("cannot read the PKCS#12 keystore {}: {e}", path.display()),
        })?;
        let pem = pkcs12_to_pem(
            setting,
            &der,
            tls.client_identity_password.as_deref().unwrap_or(""),
        )?;
        b = b.identity(identity_from_pem(setting, &pem)?);
    }
    if let Some(path) = &tls.extra_roots_pem {
        let pem = std::fs::read(path).map_err(|e| SeConfigError::Tls {
            setting,
            reason: format!("cannot read the root certificate file: {e}"),
        })?;
        let roots =
            reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| SeConfigError::Tls {
                setting,
                reason: format!("the root certificate file is not a PEM bundle: {e}"),
            })?;
        b = b.tls_certs_merge(roots);
    }
    b.build().map_err(|e| SeConfigError::Client {
        setting,
        reason: e.to_string(),
    })
}

/// A client identity from PEM: at least one certificate and one private key are required
/// (reqwest would otherwise fail only on the first handshake).
fn identity_from_pem(
    setting: &'static str,
    pem: &[u8],
) -> Result<reqwest::Identity, SeConfigError> {
    let text = String::from_utf8_lossy(pem);
    if !text.contains("-----BEGIN CERTIFICATE-----") || !text.contains("PRIVATE KEY-----") {
        return Err(SeConfigError::Tls {
            setting,
            reason: "the client identity must hold a certificate and its private key (PEM)".into(),
        });
    }
    reqwest::Identity::from_pem(pem).map_err(|e| SeConfigError::Tls {
        setting,
        reason: format!("the client identity is not a usable PEM certificate and key: {e}"),
    })
}

/// The certificate chain and private key of a PKCS#12 keystore, as PEM.
pub(crate) fn pkcs12_to_pem(
    setting: &'static str,
    der: &[u8],
    password: &str,
) -> Result<Vec<u8>, SeConfigError> {
    use base64::Engine;
    let store = p12_keystore::KeyStore::from_pkcs12(
        der,
        password,
        p12_keystore::Pkcs12ImportPolicy::Strict,
    )
    .map_err(|e| SeConfigError::Tls {
        setting,
        reason: format!("the PKCS#12 keystore cannot be opened (wrong password?): {e}"),
    })?;
    let (_, chain) = store
        .private_key_chain()
        .ok_or_else(|| SeConfigError::Tls {
            setting,
            reason: "the PKCS#12 keystore holds no private key with its certificate".into(),
        })?;
    let block = |label: &str, der: &[u8]| {
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        let mut out = format!("-----BEGIN {label}-----\n");
        for line in b64.as_bytes().chunks(64) {
            out.push_str(&String::from_utf8_lossy(line));
            out.push('\n');
        }
        out.push_str(&format!("-----END {label}-----\n"));
        out
    };
    let mut pem = String::new();
    for cert in chain.certs() {
        pem.push_str(&block("CERTIFICATE", cert.as_der()));
    }
    pem.push_str(&block("PRIVATE KEY", chain.key().as_der()));
    Ok(pem.into_bytes())
}

/// A fresh request id, formatted as a UUID (version 7 layout: a ULID's millisecond time
/// stamp and randomness with the version and variant bits set).
pub(crate) fn new_request_id() -> String {
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

/// `sha256:<hex>` of bytes.
pub(crate) fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// An answer that arrived: status, headers and the raw body exactly as received.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
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
pub(crate) enum Transport {
    Timeout,
    Connect,
    TooLarge(usize),
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

/// Sends a request and reads the whole body (at most `limit` bytes).
pub(crate) async fn exchange(
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
/// such as 401 or a documented 404, are dealt with before this is called).
///
/// 5xx, 408 and 429 are the upstream not coping (`Unavailable`); 401/403 mean the
/// credentials or certificate are not accepted (`Unavailable`, an operator must act); any
/// other status means the upstream disagrees with a request the domain had validated
/// (`Garbled`).
pub(crate) fn status_failure(what: &str, status: u16) -> RegistryFailure {
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
pub(crate) fn usable<T>(result: &Result<T, RegistryFailure>) -> bool {
    matches!(result, Ok(_) | Err(RegistryFailure::NotFound))
}

/// What one call is, for its record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operation {
    pub source: EvidenceSource,
    /// `POST /organisationer`: method and path template, never an identifier.
    pub name: &'static str,
    pub schema_version: &'static str,
    /// Billable units of one call that reached the upstream's operation (0 for free
    /// sources; a call the gateway refused for its token, 401, is never billed).
    pub cost: i32,
}

impl Operation {
    /// `companyreg.vardefulla-datamangder POST /organisationer`: for failure reasons.
    pub fn label(&self) -> String {
        format!("{} {}", self.source.as_str(), self.name)
    }
}

/// The calls one step made and what came of them.
#[derive(Debug)]
pub(crate) struct Step<T> {
    pub calls: Vec<UpstreamCall>,
    pub result: Result<T, RegistryFailure>,
}

impl<T> Step<T> {
    /// The step as the port's fetch: its calls and its result.
    pub fn into_fetch(self) -> domain::company::Fetch<T> {
        domain::company::Fetch {
            calls: self.calls,
            outcome: self.result,
        }
    }
}

/// Turns the outcome of one exchange into its record and result. `interpret` reads a
/// complete answer (any status) and says what it means and what it said about itself.
pub(crate) fn conclude<T>(
    op: Operation,
    request_id: &str,
    outcome: Result<Answer, Transport>,
    interpret: impl FnOnce(&Answer) -> (Result<T, RegistryFailure>, AnswerMeta),
) -> (UpstreamCall, Result<T, RegistryFailure>) {
    let retrieved_at = Utc::now();
    match outcome {
        Err(t) => {
            let failure = t.failure(&op.label());
            log_call(op, request_id, None, Some(&failure));
            let call = record(op, retrieved_at, None, AnswerMeta::default(), false);
            (call, Err(failure))
        }
        Ok(answer) => {
            let (result, meta) = interpret(&answer);
            log_call(op, request_id, Some(answer.status), result.as_ref().err());
            let call = record(op, retrieved_at, Some(&answer), meta, usable(&result));
            (call, result)
        }
    }
}

/// What the answer said about itself (when it says anything).
#[derive(Clone, Debug, Default)]
pub(crate) struct AnswerMeta {
    pub upstream_ref: Option<String>,
    pub source_timestamp: Option<DateTime<Utc>>,
    /// Overrides the operation's schema version (e.g. the version an answer declares).
    pub schema_version: Option<String>,
}

/// The record of one call.
pub(crate) fn record(
    op: Operation,
    retrieved_at: DateTime<Utc>,
    answer: Option<&Answer>,
    meta: AnswerMeta,
    usable: bool,
) -> UpstreamCall {
    UpstreamCall {
        source: op.source,
        operation: op.name.to_owned(),
        status: answer.map(|a| a.status),
        digest: answer.map(|a| digest(&a.body)),
        upstream_ref: meta.upstream_ref,
        source_timestamp: meta.source_timestamp.unwrap_or(retrieved_at),
        retrieved_at,
        schema_version: Some(
            meta.schema_version
                .unwrap_or_else(|| op.schema_version.to_owned()),
        ),
        usable,
        cost: match answer {
            Some(a) if a.status != 401 => op.cost,
            _ => 0,
        },
    }
}

/// Logs the end of a call: the operation and request id only (never an identifier).
pub(crate) fn log_call(
    op: Operation,
    request_id: &str,
    status: Option<u16>,
    failure: Option<&RegistryFailure>,
) {
    match failure {
        None | Some(RegistryFailure::NotFound) => tracing::debug!(
            source = op.source.as_str(),
            operation = op.name,
            request_id,
            status,
            not_found = failure.is_some(),
            "upstream call"
        ),
        Some(f) => tracing::warn!(
            source = op.source.as_str(),
            operation = op.name,
            request_id,
            status,
            failure = %f,
            "upstream call failed"
        ),
    }
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
}
