//! Bolagsverket "API för värdefulla datamängder" (VDM v1): the OAuth2 token,
//! `POST /organisationer`, `POST /dokumentlista` and `GET /dokument/{dokumentId}`.
//!
//! The identifier travels in the POST body (never in a URL). Every data call carries a
//! fresh `X-Request-Id`; VDM echoes it on answers (header) and in error bodies
//! (`requestId`), which becomes the call's `upstream_ref`.

use crate::config::{ClientAuth, SeConfigError, VdmConfig};
use crate::http::{
    build_client, conclude, exchange, log_call, new_request_id, record, status_failure, Answer,
    AnswerMeta, Operation, Step, Transport, MAX_DATA_BYTES, REQUEST_ID,
};
use chrono::Utc;
use domain::company::{AnnualReportRef, RegistryFailure, UpstreamCall};
use domain::evidence::EvidenceSource;
use reqwest::header::ACCEPT;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

mod documents;
mod organisationer;

pub use documents::valid_document_id;
pub(crate) use documents::{check_zip, read_dokumentlista};
use organisationer::parse_date;
pub(crate) use organisationer::{read_organisationer, VdmCompany};

const SCHEMA: &str = "vdm-v1";

pub(crate) const OP_ORGANISATIONER: Operation = Operation {
    source: EvidenceSource::CompanyregVardefullaDatamangder,
    name: "POST /organisationer",
    schema_version: SCHEMA,
};
pub(crate) const OP_DOKUMENTLISTA: Operation = Operation {
    source: EvidenceSource::CompanyregVardefullaDatamangder,
    name: "POST /dokumentlista",
    schema_version: SCHEMA,
};
pub(crate) const OP_DOKUMENT: Operation = Operation {
    source: EvidenceSource::CompanyregVardefullaDatamangder,
    name: "GET /dokument/{dokumentId}",
    schema_version: SCHEMA,
};

/// The token answer's size limit.
const MAX_TOKEN_BYTES: usize = 64 * 1024;
/// Assumed token life when the token answer has no `expires_in`.
const DEFAULT_TOKEN_LIFE: Duration = Duration::from_secs(300);

/// The VDM connector: one HTTP client and one cached access token.
pub(crate) struct VdmClient {
    http: reqwest::Client,
    base_url: String,
    token_url: String,
    client_id: String,
    client_secret: String,
    scope: String,
    client_auth: ClientAuth,
    refresh_margin: Duration,
    document_timeout: Duration,
    max_document_bytes: usize,
    token: Mutex<Option<CachedToken>>,
}

struct CachedToken {
    access_token: String,
    /// When to stop using it (`expires_in` minus the margin).
    refresh_at: Instant,
}

/// The last attempt of an authorised call.
struct Attempt {
    request_id: String,
    outcome: Result<Answer, Transport>,
}

impl VdmClient {
    pub fn new(c: &VdmConfig) -> Result<Self, SeConfigError> {
        Ok(VdmClient {
            http: build_client("vdm", c.timeouts, &c.tls)?,
            base_url: c.base_url.trim_end_matches('/').to_owned(),
            token_url: c.token_url.clone(),
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            scope: c.scope.trim().to_owned(),
            client_auth: c.client_auth,
            refresh_margin: c.token_refresh_margin,
            document_timeout: c.document_timeout,
            max_document_bytes: c.max_document_bytes,
            token: Mutex::new(None),
        })
    }

    // -----------------------------------------------------------------------------------
    // Token
    // -----------------------------------------------------------------------------------

    /// A valid access token: the cached one, or a new one (one fetch at a time).
    async fn token(&self) -> Result<String, RegistryFailure> {
        let mut slot = self.token.lock().await;
        if let Some(t) = slot.as_ref() {
            if Instant::now() < t.refresh_at {
                return Ok(t.access_token.clone());
            }
        }
        let fresh = self.fetch_token().await?;
        let value = fresh.access_token.clone();
        *slot = Some(fresh);
        Ok(value)
    }

    /// Drops the cached token if it is the one the upstream refused.
    async fn forget(&self, refused: &str) {
        let mut slot = self.token.lock().await;
        if slot.as_ref().is_some_and(|t| t.access_token == refused) {
            *slot = None;
        }
    }

    /// `POST {token_url}` with `grant_type=client_credentials` (not a data call: it is
    /// logged, never recorded as an [`UpstreamCall`]).
    async fn fetch_token(&self) -> Result<CachedToken, RegistryFailure> {
        let request_id = new_request_id();
        let mut form: Vec<(&str, &str)> = vec![("grant_type", "client_credentials")];
        if !self.scope.is_empty() {
            form.push(("scope", &self.scope));
        }
        let mut rb = self
            .http
            .post(&self.token_url)
            .header(REQUEST_ID, &request_id)
            .header(ACCEPT, "application/json");
        match self.client_auth {
            ClientAuth::Basic => {
                rb = rb.basic_auth(&self.client_id, Some(&self.client_secret));
            }
            ClientAuth::Body => {
                form.push(("client_id", &self.client_id));
                form.push(("client_secret", &self.client_secret));
            }
        }
        let started = Instant::now();
        let result = match exchange(rb.form(&form), MAX_TOKEN_BYTES).await {
            Err(t) => Err(t.failure("companyreg.vardefulla-datamangder token request")),
            Ok(a) if a.status == 200 => read_token(&a.body, started, self.refresh_margin),
            Ok(a) => Err(RegistryFailure::Unavailable(format!(
                "companyreg.vardefulla-datamangder token request: upstream answered {}",
                a.status
            ))),
        };
        match &result {
            Ok(_) => tracing::debug!(operation = "POST /oauth2/token", request_id, "VDM token"),
            Err(f) => tracing::warn!(
                operation = "POST /oauth2/token",
                request_id,
                failure = %f,
                "VDM token request failed"
            ),
        }
        result
    }

    /// Sends a data request with the bearer token; on 401 forgets the token and tries once
    /// more with a new one. The refused attempt is recorded (`usable: false`).
    async fn authorized(
        &self,
        op: Operation,
        limit: usize,
        timeout: Option<Duration>,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> (Vec<UpstreamCall>, Result<Attempt, RegistryFailure>) {
        let mut calls = Vec::new();
        let mut retried = false;
        loop {
            let token = match self.token().await {
                Ok(t) => t,
                Err(f) => return (calls, Err(f)),
            };
            let request_id = new_request_id();
            let mut rb = make(&self.http)
                .bearer_auth(&token)
                .header(REQUEST_ID, &request_id);
            if let Some(t) = timeout {
                rb = rb.timeout(t);
            }
            let outcome = exchange(rb, limit).await;
            match outcome {
                Ok(a) if a.status == 401 && !retried => {
                    retried = true;
                    self.forget(&token).await;
                    let f = status_failure(&op.label(), 401);
                    log_call(op, &request_id, Some(401), Some(&f));
                    calls.push(record(op, Utc::now(), Some(&a), vdm_meta(&a), false));
                }
                outcome => {
                    return (
                        calls,
                        Ok(Attempt {
                            request_id,
                            outcome,
                        }),
                    )
                }
            }
        }
    }

    /// Runs an authorised call to its end: records, interprets, concludes.
    async fn call<T>(
        &self,
        op: Operation,
        limit: usize,
        timeout: Option<Duration>,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
        interpret: impl FnOnce(&Answer) -> Result<T, RegistryFailure>,
    ) -> Step<T> {
        let (mut calls, attempt) = self.authorized(op, limit, timeout, make).await;
        let attempt = match attempt {
            Ok(a) => a,
            Err(f) => {
                return Step {
                    calls,
                    result: Err(f),
                }
            }
        };
        let (call, result) = conclude(op, &attempt.request_id, attempt.outcome, |a| {
            (interpret(a), vdm_meta(a))
        });
        calls.push(call);
        Step { calls, result }
    }

    // -----------------------------------------------------------------------------------
    // Data
    // -----------------------------------------------------------------------------------

    /// `POST /organisationer`: the register data of one organisation.
    pub async fn organisationer(&self, id: &str) -> Step<VdmCompany> {
        let url = format!("{}/organisationer", self.base_url);
        let body = serde_json::json!({ "identitetsbeteckning": id });
        self.call(
            OP_ORGANISATIONER,
            MAX_DATA_BYTES,
            None,
            |http| {
                http.post(&url)
                    .header(ACCEPT, "application/json")
                    .json(&body)
            },
            |a| match a.status {
                200 => read_organisationer(&a.body, id),
                s => Err(status_failure(&OP_ORGANISATIONER.label(), s)),
            },
        )
        .await
    }

    /// `POST /dokumentlista`: the newest annual report on file, if any.
    pub async fn dokumentlista(&self, id: &str) -> Step<Option<AnnualReportRef>> {
        let url = format!("{}/dokumentlista", self.base_url);
        let body = serde_json::json!({ "identitetsbeteckning": id });
        self.call(
            OP_DOKUMENTLISTA,
            MAX_DATA_BYTES,
            None,
            |http| {
                http.post(&url)
                    .header(ACCEPT, "application/json")
                    .json(&body)
            },
            |a| match a.status {
                200 => read_dokumentlista(&a.body),
                s => Err(status_failure(&OP_DOKUMENTLISTA.label(), s)),
            },
        )
        .await
    }

    /// `GET /dokument/{dokumentId}`: an annual-report archive. The id must have passed
    /// [`valid_document_id`].
    pub async fn dokument(&self, document_id: &str) -> Step<Vec<u8>> {
        debug_assert!(valid_document_id(document_id));
        let url = format!("{}/dokument/{}", self.base_url, document_id);
        self.call(
            OP_DOKUMENT,
            self.max_document_bytes,
            Some(self.document_timeout),
            |http| http.get(&url).header(ACCEPT, "application/zip"),
            |a| match a.status {
                200 => check_zip(&a.body).map(|()| a.body.clone()),
                404 => Err(RegistryFailure::NotFound),
                s => Err(status_failure(&OP_DOKUMENT.label(), s)),
            },
        )
        .await
    }
}

/// What VDM says about an answer: its echo of our request id (header, or `requestId` in
/// an error body). VDM gives no data time stamp.
fn vdm_meta(a: &Answer) -> AnswerMeta {
    let mut upstream_ref = a.header(REQUEST_ID).map(str::to_owned);
    if upstream_ref.is_none() && a.status != 200 {
        upstream_ref = serde_json::from_slice::<serde_json::Value>(&a.body)
            .ok()
            .and_then(|v| v.get("requestId")?.as_str().map(str::to_owned))
            .filter(|s| !s.trim().is_empty());
    }
    AnswerMeta {
        upstream_ref,
        ..AnswerMeta::default()
    }
}

// ---------------------------------------------------------------------------------------
// Token answer
// ---------------------------------------------------------------------------------------

fn read_token(
    body: &[u8],
    requested_at: Instant,
    margin: Duration,
) -> Result<CachedToken, RegistryFailure> {
    let bad = |why: &str| {
        RegistryFailure::Unavailable(format!(
            "companyreg.vardefulla-datamangder token request: {why}"
        ))
    };
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| bad("the answer does not parse"))?;
    let access_token = v
        .get("access_token")
        .and_then(|t| t.as_str())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| bad("the answer has no access_token"))?
        .to_owned();
    if let Some(tt) = v.get("token_type").and_then(|t| t.as_str()) {
        if !tt.eq_ignore_ascii_case("bearer") {
            return Err(bad("the token is not a bearer token"));
        }
    }
    let life = match v.get("expires_in") {
        Some(serde_json::Value::Number(n)) => n.as_u64().map(Duration::from_secs),
        Some(serde_json::Value::String(s)) => s.trim().parse().ok().map(Duration::from_secs),
        _ => None,
    }
    .unwrap_or(DEFAULT_TOKEN_LIFE);
    // Counted from when we asked: the token may have been issued a little earlier.
    let refresh_at = requested_at + life - margin.min(life / 2);
    Ok(CachedToken {
        access_token,
        refresh_at,
    })
}

/// A failure for an answer that cannot be read.
fn garbled(op: Operation, why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", op.label()))
}

/// A recorded VDM answer from `testdata/vdm/`.
#[cfg(test)]
fn sample(name: &str) -> Vec<u8> {
    crate::samples::read(&format!("vdm/{name}"))
}

#[cfg(test)]
fn sample_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&sample(name)).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn error_bodies_give_the_upstream_reference() {
        let a = Answer {
            status: 400,
            headers: Default::default(),
            body: sample("dokumentlista-400-not-in-test-allowlist.json"),
        };
        assert_eq!(
            vdm_meta(&a).upstream_ref.as_deref(),
            Some("6943ffa4-a86f-402b-8c44-5b1d5a8e03ba")
        );
        assert!(matches!(
            status_failure(&OP_DOKUMENTLISTA.label(), a.status),
            RegistryFailure::Garbled(_)
        ));
    }

    #[test]
    fn token_answers() {
        let now = Instant::now();
        let t = read_token(
            br#"{"access_token":"abc","scope":"x","token_type":"Bearer","expires_in":3600}"#,
            now,
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(t.access_token, "abc");
        assert_eq!(t.refresh_at, now + Duration::from_secs(3540));
        // A short life keeps at least half of it.
        let t = read_token(
            br#"{"access_token":"abc","expires_in":"4"}"#,
            now,
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(t.refresh_at, now + Duration::from_secs(2));
        let t = read_token(br#"{"access_token":"abc"}"#, now, Duration::ZERO).unwrap();
        assert_eq!(t.refresh_at, now + DEFAULT_TOKEN_LIFE);
        assert!(read_token(br#"{"token_type":"Bearer"}"#, now, Duration::ZERO).is_err());
        assert!(read_token(
            br#"{"access_token":"a","token_type":"mac"}"#,
            now,
            Duration::ZERO
        )
        .is_err());
        assert!(read_token(b"<html>", now, Duration::ZERO).is_err());
    }
}
