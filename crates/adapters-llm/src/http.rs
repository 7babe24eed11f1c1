//! The HTTP half both adapters share: one request, retried with backoff while nothing has
//! streamed, its SSE body read under the timeouts, each event handed to the protocol's
//! decoder.

use crate::config::LlmConfig;
use crate::sse::{SseDecoder, SseEvent};
use domain::assistant::model::{ModelError, ModelReply};
use domain::assistant::ports::ModelSink;
use futures_util::StreamExt;
use rand::Rng;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use std::time::{Duration, SystemTime};
use tokio::time::{timeout_at, Instant};

/// At most this much of an upstream's error text goes into a [`ModelError`].
const MAX_MESSAGE: usize = 300;
/// At most this much of an error response's body is read.
const MAX_ERROR_BODY: usize = 16 * 1024;

/// What a decoder says after an event.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    More,
    /// The stream's end event: nothing more is read.
    Done,
}

/// A protocol's reading of the stream.
pub(crate) trait StreamDecoder: Send {
    /// One event: text goes to the sink as it comes, tool calls when complete.
    fn event(&mut self, event: &SseEvent, sink: &dyn ModelSink) -> Result<Flow, ModelError>;

    /// The stream's end (its end event, or the body's end): the reply, or
    /// [`ModelError::Interrupted`] when the stream is incomplete.
    fn finish(&mut self, sink: &dyn ModelSink) -> Result<ModelReply, ModelError>;
}

/// Why an attempt failed before anything streamed.
#[derive(Debug)]
enum Failure {
    /// An answer other than 2xx (and not a redirect).
    Status {
        status: StatusCode,
        /// `x-should-retry`, when the endpoint sent it.
        should_retry: Option<bool>,
        /// `retry-after-ms` / `retry-after`, when usable.
        wait: Option<Duration>,
        /// The upstream's error message (or its body's start).
        message: String,
        /// The body names an `overloaded_error`.
        overloaded: bool,
    },
    /// No connection, or the request or the body broke off.
    Transport(String),
    /// A bound ran out before the first event.
    Timeout(String),
    /// A 200 whose body ended before its first event.
    Empty,
    /// A redirect (never followed: the base address is wrong).
    Redirect(StatusCode),
    /// A 200 that is not an event stream.
    NotEventStream(String),
}

impl Failure {
    fn retryable(&self) -> bool {
        match self {
            Failure::Status {
                status,
                should_retry,
                ..
            } => should_retry.unwrap_or_else(|| {
                matches!(status.as_u16(), 408 | 409 | 429) || status.as_u16() >= 500
            }),
            Failure::Transport(_) | Failure::Timeout(_) | Failure::Empty => true,
            Failure::Redirect(_) | Failure::NotEventStream(_) => false,
        }
    }

    fn named_wait(&self) -> Option<Duration> {
        match self {
            Failure::Status { wait, .. } => *wait,
            _ => None,
        }
    }

    fn into_error(self) -> ModelError {
        match self {
            Failure::Status {
                status,
                message,
                overloaded,
                ..
            } => {
                let text = if message.is_empty() {
                    format!("HTTP {}", status.as_u16())
                } else {
                    format!("HTTP {}: {message}", status.as_u16())
                };
                match status.as_u16() {
                    429 => ModelError::RateLimited(text),
                    529 => ModelError::Overloaded(text),
                    _ if overloaded => ModelError::Overloaded(text),
                    408 | 409 => ModelError::Unavailable(text),
                    s if s >= 500 => ModelError::Unavailable(text),
                    _ => ModelError::Rejected(text),
                }
            }
            Failure::Transport(text) | Failure::Timeout(text) => ModelError::Unavailable(text),
            Failure::Empty => {
                ModelError::Unavailable("the stream closed before its first event".into())
            }
            Failure::Redirect(status) => ModelError::Rejected(format!(
                "HTTP {}: a redirect, not followed (check the base address)",
                status.as_u16()
            )),
            Failure::NotEventStream(content_type) => ModelError::Rejected(format!(
                "the endpoint answered {content_type:?} instead of an event stream"
            )),
        }
    }

    fn label(&self) -> String {
        match self {
            Failure::Status { status, .. } => format!("HTTP {}", status.as_u16()),
            Failure::Transport(text) | Failure::Timeout(text) => text.clone(),
            Failure::Empty => "empty stream".into(),
            Failure::Redirect(status) => format!("redirect {}", status.as_u16()),
            Failure::NotEventStream(_) => "not an event stream".into(),
        }
    }
}

/// An attempt's end, when it did not reply.
enum Attempt {
    /// Nothing streamed: it may be retried.
    NotStarted(Failure),
    /// The stream had started: final.
    Failed(ModelError),
}

/// One endpoint: the shared client, the address, the headers every request carries, and the
/// bounds.
pub(crate) struct Transport {
    client: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    /// The API key, only to scrub it from any text an upstream echoes back.
    secret: Option<String>,
    protocol: &'static str,
    first_byte_timeout: Duration,
    idle_timeout: Duration,
    total_timeout: Duration,
    max_retries: u32,
    retry_base: Duration,
}

impl std::fmt::Debug for Transport {
    /// Without the headers (the key is one of them).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("protocol", &self.protocol)
            .field("url", &self.url.as_str())
            .field("first_byte_timeout", &self.first_byte_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("total_timeout", &self.total_timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// `path` is appended to the base address (`/v1/messages`, `/v1/chat/completions`); the
    /// headers (authentication included) go on every request.
    pub(crate) fn new(
        config: &LlmConfig,
        path: &str,
        mut headers: HeaderMap,
    ) -> Result<Transport, String> {
        if config.model.trim().is_empty() {
            return Err("the model name is empty".into());
        }
        for (name, value) in [
            ("first_byte_timeout", config.first_byte_timeout),
            ("idle_timeout", config.idle_timeout),
            ("total_timeout", config.total_timeout),
            ("connect_timeout", config.connect_timeout),
        ] {
            if value.is_zero() {
                return Err(format!("{name} is zero"));
            }
        }
        let url = endpoint(&config.base_url, path)?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("idreg/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("the HTTP client could not be built: {e}"))?;
        Ok(Transport {
            client,
            url,
            headers,
            secret: config.api_key.clone().filter(|k| !k.is_empty()),
            protocol: config.protocol.as_str(),
            first_byte_timeout: config.first_byte_timeout,
            idle_timeout: config.idle_timeout,
            total_timeout: config.total_timeout,
            max_retries: config.max_retries,
            retry_base: config.retry_base,
        })
    }

    /// Sends `body` and reads the stream into `decoder`, retrying while nothing streamed.
    pub(crate) async fn run(
        &self,
        body: Vec<u8>,
        decoder: &mut dyn StreamDecoder,
        sink: &dyn ModelSink,
    ) -> Result<ModelReply, ModelError> {
        let total = Instant::now() + self.total_timeout;
        let mut retries = 0;
        loop {
            let failure = match self.attempt(&body, decoder, sink, total).await {
                Ok(reply) => return Ok(reply),
                Err(Attempt::Failed(error)) => {
                    tracing::warn!(protocol = self.protocol, error = %self.scrub_text(&error.to_string()), "the model's stream broke off");
                    return Err(self.scrub(error));
                }
                Err(Attempt::NotStarted(failure)) => failure,
            };
            if failure.retryable() && retries < self.max_retries {
                let wait = failure
                    .named_wait()
                    .unwrap_or_else(|| backoff(self.retry_base, retries));
                if Instant::now() + wait < total {
                    tracing::warn!(
                        protocol = self.protocol,
                        failure = %self.scrub_text(&failure.label()),
                        retry = retries + 1,
                        wait_ms = wait.as_millis() as u64,
                        "retrying the model request"
                    );
                    tokio::time::sleep(wait).await;
                    retries += 1;
                    continue;
                }
            }
            let error = self.scrub(failure.into_error());
            tracing::warn!(protocol = self.protocol, retries, error = %error, "the model request failed");
            return Err(error);
        }
    }

    async fn attempt(
        &self,
        body: &[u8],
        decoder: &mut dyn StreamDecoder,
        sink: &dyn ModelSink,
        total: Instant,
    ) -> Result<ModelReply, Attempt> {
        let first = (Instant::now() + self.first_byte_timeout).min(total);
        let timed_out = |deadline: Instant, bound: &str, limit: Duration| {
            if deadline == total {
                format!(
                    "the total timeout ({} s) ran out",
                    self.total_timeout.as_secs_f64()
                )
            } else {
                format!("no {bound} within {} s", limit.as_secs_f64())
            }
        };
        let request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .body(body.to_vec())
            .send();
        let response = match timeout_at(first, request).await {
            Err(_) => {
                return Err(Attempt::NotStarted(Failure::Timeout(timed_out(
                    first,
                    "answer",
                    self.first_byte_timeout,
                ))))
            }
            Ok(Err(e)) => return Err(Attempt::NotStarted(Failure::Transport(describe(&e)))),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        let request_id = header(response.headers(), "request-id")
            .or_else(|| header(response.headers(), "x-request-id"))
            .unwrap_or_default();
        tracing::debug!(protocol = self.protocol, status = status.as_u16(), request_id = %request_id, "model response");
        if status.is_redirection() {
            return Err(Attempt::NotStarted(Failure::Redirect(status)));
        }
        if !status.is_success() {
            let should_retry = match header(response.headers(), "x-should-retry").as_deref() {
                Some("true") => Some(true),
                Some("false") => Some(false),
                _ => None,
            };
            let wait = named_wait(response.headers());
            let text: String = timeout_at(first, read_limited(response))
                .await
                .unwrap_or_default();
            let (message, overloaded) = upstream_error(&text);
            return Err(Attempt::NotStarted(Failure::Status {
                status,
                should_retry,
                wait,
                message,
                overloaded,
            }));
        }
        if let Some(content_type) = header(response.headers(), "content-type") {
            if !content_type
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
            {
                return Err(Attempt::NotStarted(Failure::NotEventStream(truncate(
                    &content_type,
                    80,
                ))));
            }
        }

        let mut stream = std::pin::pin!(response.bytes_stream());
        let mut sse = SseDecoder::new();
        let mut started = false;
        let mut deadline = first;
        let mut lines = 0;
        loop {
            let next = match timeout_at(deadline, stream.next()).await {
                Ok(next) => next,
                Err(_) if started => {
                    return Err(Attempt::Failed(ModelError::Interrupted(timed_out(
                        deadline,
                        "event",
                        self.idle_timeout,
                    ))))
                }
                Err(_) => {
                    return Err(Attempt::NotStarted(Failure::Timeout(timed_out(
                        deadline,
                        "first event",
                        self.first_byte_timeout,
                    ))))
                }
            };
            let chunk = match next {
                Some(Ok(chunk)) => chunk,
                Some(Err(e)) if started => {
                    return Err(Attempt::Failed(ModelError::Interrupted(describe(&e))))
                }
                Some(Err(e)) => return Err(Attempt::NotStarted(Failure::Transport(describe(&e)))),
                None if started => return decoder.finish(sink).map_err(Attempt::Failed),
                None => return Err(Attempt::NotStarted(Failure::Empty)),
            };
            let events = sse.push(&chunk);
            started |= !events.is_empty();
            if started && sse.lines() != lines {
                lines = sse.lines();
                deadline = (Instant::now() + self.idle_timeout).min(total);
            }
            for event in &events {
                match decoder.event(event, sink) {
                    Ok(Flow::More) => {}
                    Ok(Flow::Done) => return decoder.finish(sink).map_err(Attempt::Failed),
                    Err(error) => return Err(Attempt::Failed(error)),
                }
            }
        }
    }

    fn scrub_text(&self, text: &str) -> String {
        match &self.secret {
            Some(secret) => text.replace(secret.as_str(), "[redacted]"),
            None => text.to_owned(),
        }
    }

    /// The error without the API key, should an upstream have echoed it.
    fn scrub(&self, error: ModelError) -> ModelError {
        match error {
            ModelError::RateLimited(t) => ModelError::RateLimited(self.scrub_text(&t)),
            ModelError::Overloaded(t) => ModelError::Overloaded(self.scrub_text(&t)),
            ModelError::Unavailable(t) => ModelError::Unavailable(self.scrub_text(&t)),
            ModelError::Rejected(t) => ModelError::Rejected(self.scrub_text(&t)),
            ModelError::Interrupted(t) => ModelError::Interrupted(self.scrub_text(&t)),
        }
    }
}

/// `{base}{path}`; a base already ending in `/v1` does not get it twice.
fn endpoint(base: &str, path: &str) -> Result<Url, String> {
    let base = base.trim().trim_end_matches('/');
    let url = Url::parse(base).map_err(|e| format!("the model's base address is invalid: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the model's base address must be http or https, not {:?}",
            url.scheme()
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("the model's base address must have no query or fragment".into());
    }
    let joined = match (base.strip_suffix("/v1"), path.strip_prefix("/v1")) {
        (Some(_), Some(rest)) => format!("{base}{rest}"),
        _ => format!("{base}{path}"),
    };
    Url::parse(&joined).map_err(|e| format!("the model's base address is invalid: {e}"))
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(HeaderName::from_bytes(name.as_bytes()).ok()?)?
        .to_str()
        .ok()
        .map(|v| v.trim().to_owned())
}

/// The wait an error response names: `retry-after-ms`, else `retry-after` (seconds or an
/// HTTP date); used only when more than zero and at most [`LlmConfig::MAX_RETRY_AFTER`].
pub(crate) fn named_wait(headers: &HeaderMap) -> Option<Duration> {
    let seconds = match header(headers, "retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        Some(ms) => Some(ms / 1000.0),
        None => header(headers, "retry-after").and_then(|v| match v.parse::<f64>() {
            Ok(seconds) => Some(seconds),
            Err(_) => {
                let at = httpdate::parse_http_date(&v).ok()?;
                Some(match at.duration_since(SystemTime::now()) {
                    Ok(ahead) => ahead.as_secs_f64(),
                    Err(_) => 0.0,
                })
            }
        }),
    }?;
    (seconds.is_finite() && seconds > 0.0 && seconds <= LlmConfig::MAX_RETRY_AFTER.as_secs_f64())
        .then(|| Duration::from_secs_f64(seconds))
}

/// The wait before retry `retries` (from 0) when the endpoint names none: `base × 2^retries`,
/// at most [`LlmConfig::MAX_BACKOFF`], times a jitter in [0.75, 1.0].
pub(crate) fn backoff(base: Duration, retries: u32) -> Duration {
    let raw = base
        .saturating_mul(1u32 << retries.min(16))
        .min(LlmConfig::MAX_BACKOFF);
    raw.mul_f64(rand::thread_rng().gen_range(0.75..=1.0))
}

async fn read_limited(response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut stream = std::pin::pin!(response.bytes_stream());
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BODY {
            body.truncate(MAX_ERROR_BODY);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The message of an error body (Anthropic's and OpenAI's `{"error": {"message"}}`, a bare
/// `{"error": "..."}`, `{"message"}`, `{"detail"}`, or the text itself), at most
/// [`MAX_MESSAGE`] characters; and whether it names an overload.
pub(crate) fn upstream_error(body: &str) -> (String, bool) {
    let body = body.trim();
    let Ok(json) = serde_json::from_str::<serde_json::Value>(body) else {
        return (truncate(body, MAX_MESSAGE), false);
    };
    let error = json.get("error").unwrap_or(&json);
    let message = [
        error.get("message"),
        json.get("message"),
        json.get("detail"),
    ]
    .into_iter()
    .flatten()
    .find_map(serde_json::Value::as_str)
    .or_else(|| error.as_str())
    .map(str::to_owned)
    .unwrap_or_else(|| body.to_owned());
    let kind = error
        .get("type")
        .or_else(|| error.get("code"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    (
        truncate(message.trim(), MAX_MESSAGE),
        kind.contains("overloaded"),
    )
}

/// At most `max` characters of `text` (whitespace trimmed), `…` marking a cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
    }
}

/// A transport error in words, without the address (the sources' texts: "connection
/// refused" and the like).
fn describe(e: &reqwest::Error) -> String {
    let mut text = String::from(if e.is_connect() {
        "could not connect"
    } else if e.is_timeout() {
        "timed out"
    } else if e.is_body() || e.is_decode() {
        "the response body broke off"
    } else if e.is_request() {
        "the request could not be sent"
    } else {
        "the HTTP exchange failed"
    });
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    truncate(&text, MAX_MESSAGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_join_without_doubling_v1() {
        let e = |b| endpoint(b, "/v1/messages").unwrap().to_string();
        assert_eq!(
            e("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(e("http://h:1/"), "http://h:1/v1/messages");
        assert_eq!(e("http://h:1/v1/"), "http://h:1/v1/messages");
        assert_eq!(e("http://h:1/proxy"), "http://h:1/proxy/v1/messages");
        assert!(endpoint("ftp://h", "/v1/messages").is_err());
        assert!(endpoint("not a url", "/v1/messages").is_err());
        assert!(endpoint("http://h/?k=1", "/v1/messages").is_err());
    }

    #[test]
    fn named_waits() {
        let h = |pairs: &[(&'static str, &str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, HeaderValue::from_str(v).unwrap());
            }
            named_wait(&map)
        };
        assert_eq!(h(&[("retry-after", "1")]), Some(Duration::from_secs(1)));
        assert_eq!(
            h(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            h(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(h(&[("retry-after", "0")]), None);
        assert_eq!(h(&[("retry-after", "61")]), None);
        assert_eq!(h(&[("retry-after", "soon")]), None);
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        let wait = h(&[("retry-after", &later)]).unwrap();
        assert!(
            wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(30));
        assert_eq!(h(&[("retry-after", &past)]), None);
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_with_jitter() {
        let base = Duration::from_millis(500);
        for (retries, full) in [
            (0, 500),
            (1, 1000),
            (2, 2000),
            (4, 8000),
            (9, 8000),
            (40, 8000),
        ] {
            let wait = backoff(base, retries);
            let full = Duration::from_millis(full);
            assert!(
                wait <= full && wait >= full.mul_f64(0.75),
                "{retries}: {wait:?}"
            );
        }
    }

    #[test]
    fn upstream_messages() {
        let anthropic = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
        assert_eq!(upstream_error(anthropic), ("Overloaded".into(), true));
        let openai = r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        assert_eq!(upstream_error(openai), ("Incorrect API key".into(), false));
        assert_eq!(
            upstream_error(r#"{"error":"model not found"}"#).0,
            "model not found"
        );
        assert_eq!(upstream_error(r#"{"detail":"Not Found"}"#).0, "Not Found");
        assert_eq!(upstream_error("  Bad Gateway \n").0, "Bad Gateway");
        let long = "é".repeat(400);
        let (cut, _) = upstream_error(&long);
        assert_eq!(cut.chars().count(), 301);
    }
}
