//! Bolagsverket's API gateway, shared by the APIs behind it (VDM, company information): the
//! OAuth2 client-credentials token (cached, renewed before it runs out, one fetch at a
//! time), and the authorised call that sends it, retries once with a new token when the
//! gateway answers 401, and records every attempt. The token's renewal reads time from the
//! [`Clock`] port (the wall clock unless one is set), so tests move it instead of sleeping.

use chrono::{DateTime, Utc};
use connector_kit::{
    conclude, exchange, log_call, new_request_id, record, send, status_failure, Answer, AnswerMeta,
    ClientAuth, Exchange, Operation, Step, REQUEST_ID,
};
use domain::clock::{Clock, SystemClock};
use domain::companies::profile::{RegistryFailure, UpstreamCall};
use reqwest::header::ACCEPT;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// The token answer's size limit.
const MAX_TOKEN_BYTES: usize = 64 * 1024;
/// Assumed token life when the token answer has no `expires_in`.
const DEFAULT_TOKEN_LIFE: Duration = Duration::from_secs(300);

/// What a gateway client needs to get and use tokens.
pub(crate) struct GatewayAuth {
    /// The source's name in failure reasons (`companyreg.vardefulla-datamangder`).
    pub label: &'static str,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub scope: String,
    pub client_auth: ClientAuth,
    pub refresh_margin: Duration,
}

/// One API behind Bolagsverket's gateway: its HTTP client and one cached access token.
pub(crate) struct Gateway {
    pub http: reqwest::Client,
    auth: GatewayAuth,
    token: Mutex<Option<CachedToken>>,
    clock: Arc<dyn Clock>,
}

struct CachedToken {
    access_token: String,
    /// When to stop using it (`expires_in` minus the margin).
    refresh_at: DateTime<Utc>,
}

/// The last attempt of an authorised call.
struct Attempt {
    request_id: String,
    exchange: Exchange,
}

impl Gateway {
    pub fn new(http: reqwest::Client, mut auth: GatewayAuth) -> Gateway {
        auth.scope = auth.scope.trim().to_owned();
        Gateway {
            http,
            auth,
            token: Mutex::new(None),
            clock: Arc::new(SystemClock),
        }
    }

    /// The clock the token's renewal reads (the wall clock by default).
    pub fn set_clock(&mut self, clock: Arc<dyn Clock>) {
        self.clock = clock;
    }

    // -----------------------------------------------------------------------------------
    // Token
    // -----------------------------------------------------------------------------------

    /// A valid access token: the cached one, or a new one (one fetch at a time).
    async fn token(&self) -> Result<String, RegistryFailure> {
        let mut slot = self.token.lock().await;
        if let Some(t) = slot.as_ref() {
            if self.clock.now() < t.refresh_at {
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
        if !self.auth.scope.is_empty() {
            form.push(("scope", &self.auth.scope));
        }
        let mut rb = self
            .http
            .post(&self.auth.token_url)
            .header(REQUEST_ID, &request_id)
            .header(ACCEPT, "application/json");
        match self.auth.client_auth {
            ClientAuth::Basic => {
                rb = rb.basic_auth(&self.auth.client_id, Some(&self.auth.client_secret));
            }
            ClientAuth::Body => {
                form.push(("client_id", &self.auth.client_id));
                form.push(("client_secret", &self.auth.client_secret));
            }
        }
        let started = self.clock.now();
        let result = match exchange(rb.form(&form), MAX_TOKEN_BYTES).await {
            Err(t) => Err(t.failure(&format!("{} token request", self.auth.label))),
            Ok(a) if a.status == 200 => {
                read_token(self.auth.label, &a.body, started, self.auth.refresh_margin)
            }
            Ok(a) => Err(RegistryFailure::Unavailable(format!(
                "{} token request: upstream answered {}",
                self.auth.label, a.status
            ))),
        };
        match &result {
            Ok(_) => tracing::debug!(
                operation = "POST /oauth2/token",
                request_id,
                "gateway token"
            ),
            Err(f) => tracing::warn!(
                operation = "POST /oauth2/token",
                request_id,
                failure = %f,
                "gateway token request failed"
            ),
        }
        result
    }

    /// Sends a data request with the bearer token; on 401 forgets the token and tries once
    /// more with a new one. The refused attempt is recorded (`usable: false`).
    async fn authorized(
        &self,
        op: &Operation,
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
            let exchange = send(rb, limit).await;
            match &exchange.outcome {
                Ok(a) if a.status == 401 && !retried => {
                    retried = true;
                    self.forget(&token).await;
                    let f = status_failure(&op.label(), 401);
                    log_call(op, &request_id, Some(401), Some(&f));
                    calls.push(record(
                        op,
                        Utc::now(),
                        Some(a),
                        gateway_meta(a),
                        false,
                        exchange.elapsed,
                    ));
                }
                _ => {
                    return (
                        calls,
                        Ok(Attempt {
                            request_id,
                            exchange,
                        }),
                    )
                }
            }
        }
    }

    /// Runs an authorised call to its end: records, interprets, concludes.
    pub async fn call<T>(
        &self,
        op: &Operation,
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
        let (call, result) = conclude(op, &attempt.request_id, attempt.exchange, |a| {
            (interpret(a), gateway_meta(a))
        });
        calls.push(call);
        Step { calls, result }
    }
}

/// What the gateway says about an answer: its echo of our request id (header, or `requestId`
/// in an RFC 7807 error body). It gives no data time stamp.
pub(crate) fn gateway_meta(a: &Answer) -> AnswerMeta {
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
    label: &str,
    body: &[u8],
    requested_at: DateTime<Utc>,
    margin: Duration,
) -> Result<CachedToken, RegistryFailure> {
    let bad = |why: &str| RegistryFailure::Unavailable(format!("{label} token request: {why}"));
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
    let used_for =
        chrono::Duration::from_std(life - margin.min(life / 2)).unwrap_or(chrono::Duration::MAX);
    let refresh_at = requested_at
        .checked_add_signed(used_for)
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    Ok(CachedToken {
        access_token,
        refresh_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_answers() {
        let now = Utc::now();
        let t = read_token(
            "x",
            br#"{"access_token":"abc","scope":"x","token_type":"Bearer","expires_in":3600}"#,
            now,
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(t.access_token, "abc");
        assert_eq!(t.refresh_at, now + chrono::Duration::seconds(3540));
        // A short life keeps at least half of it.
        let t = read_token(
            "x",
            br#"{"access_token":"abc","expires_in":"4"}"#,
            now,
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(t.refresh_at, now + chrono::Duration::seconds(2));
        let t = read_token("x", br#"{"access_token":"abc"}"#, now, Duration::ZERO).unwrap();
        assert_eq!(
            t.refresh_at,
            now + chrono::Duration::from_std(DEFAULT_TOKEN_LIFE).unwrap()
        );
        assert!(read_token("x", br#"{"token_type":"Bearer"}"#, now, Duration::ZERO).is_err());
        assert!(read_token(
            "x",
            br#"{"access_token":"a","token_type":"mac"}"#,
            now,
            Duration::ZERO
        )
        .is_err());
        assert!(read_token("x", b"<html>", now, Duration::ZERO).is_err());
    }
}
