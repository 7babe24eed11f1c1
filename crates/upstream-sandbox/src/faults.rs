//! Fault injection and the call log.
//!
//! Every upstream route runs through [`FaultInjector::guarded`]: it logs the call, takes the
//! fault armed for its [`Source`] (if any, counting down `times`), and applies it:
//!
//! | kind | effect |
//! |---|---|
//! | `http_5xx` | answers `status` (default 503) with the upstream's own error shape |
//! | `timeout` | holds the request `delay_ms` (default: the configured hold, 30 s), then 504; returns early (503) when the sandbox stops |
//! | `slow` | waits `delay_ms` (default 2000), then answers normally |
//! | `malformed` | answers 200 with the normal body cut in half (invalid JSON/XML/zip) |
//! | `field_fel` | answers 200 with a `fel` on one field group (`bolagsverket`) or one item (`ssbtgu`) |

//!
//! This module knows no upstream's formats: each source module describes itself as an
//! [`Upstream`] (its error shape and its `field_fel` rules), and the routes and the control
//! API hand that description in. So the sources depend on this module, never the reverse.

use crate::util::lock;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// An upstream the sandbox imitates (fault and call-log key). Its wire spelling is
/// [`Source::as_str`]: `bolagsverket`, ..., or a plug-in's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// Bolagsverket VDM data routes (`/organisationer`, `/dokumentlista`, `/dokument`, `/isalive`).
    Bolagsverket,
    /// Bolagsverket VDM token endpoint (`/oauth2/token`).
    BolagsverketToken,
    /// Bolagsverket SSBTGU SOAP service.
    Ssbtgu,
    /// SCB företagsregister (`hamtaforetag`).
    Scb,
    /// Lithuania's RC JAR open data.
    Lt,
    /// Bolagsverket's company information API (paid; officers, signatory rule, engagements).
    Foretagsinformation,
    /// Bolagsverket's beneficial-owners API (mutual TLS).
    VerkligaHuvudman,
    /// SPAR's person search (mutual TLS, SOAP).
    Personsokning,
    /// The language model speaking the Anthropic Messages API.
    Model,
    /// An upstream a country crate plugs in ([`crate::plugin::SandboxPlugin`]), by its name.
    Plugin(&'static str),
}

impl Source {
    pub const ALL: [Source; 9] = [
        Source::Bolagsverket,
        Source::BolagsverketToken,
        Source::Ssbtgu,
        Source::Scb,
        Source::Lt,
        Source::Foretagsinformation,
        Source::VerkligaHuvudman,
        Source::Personsokning,
        Source::Model,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Bolagsverket => "bolagsverket",
            Source::BolagsverketToken => "bolagsverket-token",
            Source::Ssbtgu => "ssbtgu",
            Source::Scb => "scb",
            Source::Lt => "lt",
            Source::Foretagsinformation => "foretagsinformation",
            Source::VerkligaHuvudman => "verkliga-huvudman",
            Source::Personsokning => "personsokning",
            Source::Model => "model",
            Source::Plugin(name) => name,
        }
    }

    /// One of the sandbox's own sources by its spelling (a plug-in's name is not one: the
    /// running sandbox knows its plug-ins).
    pub fn parse(s: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Source {
    /// The sandbox's own sources by their spelling; any other well-formed name is a plug-in's
    /// (kept once per name for the life of the process, as the names are few).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Source, D::Error> {
        let name = String::deserialize(deserializer)?;
        if let Some(source) = Source::parse(&name) {
            return Ok(source);
        }
        crate::plugin::check_name(&name).map_err(serde::de::Error::custom)?;
        Ok(Source::Plugin(crate::plugin::intern(&name)))
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an injected fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FaultKind {
    #[serde(rename = "http_5xx")]
    Http5xx,
    #[serde(rename = "timeout")]
    Timeout,
    #[serde(rename = "slow")]
    Slow,
    #[serde(rename = "malformed")]
    Malformed,
    #[serde(rename = "field_fel")]
    FieldFel,
}

/// A fault to inject (the JSON body of `POST /control/faults/{source}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    pub kind: FaultKind,
    /// `http_5xx`: the status (500..=599, default 503).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// `slow`: the delay (default 2000). `timeout`: the hold (default: configured, 30 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// `field_fel`: the fel type. VDM: `OTILLGANGLIG_UPPGIFTSKALLA` (default), `TIMEOUT`,
    /// `OGILTIG_BEGARAN`, `ORGANISATION_FINNS_EJ`. SSBTGU: `OtillgangligUppgiftskalla`
    /// (default), `Timeout`, ... (the VDM spellings are mapped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fel_typ: Option<String>,
    /// `field_fel`: overrides the fel description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fel_beskrivning: Option<String>,
    /// `field_fel`: which field. VDM: a field group (`organisationsnamn`, `juridiskForm`,
    /// ...), `SCB` (all SCB fields) or `Bolagsverket` (all Bolagsverket fields, the
    /// default). SSBTGU: an item (`UD0029`), or a producer (`Skatteverket`, `SCB`,
    /// `Bolagsverket`); default all items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// How many requests it affects; absent = until cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// Only requests whose path ends with this (`/dokumentlista`); the source's other
    /// requests pass untouched and do not use the fault up. Absent = every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl FaultSpec {
    fn of(kind: FaultKind) -> Self {
        FaultSpec {
            kind,
            status: None,
            delay_ms: None,
            fel_typ: None,
            fel_beskrivning: None,
            field: None,
            times: None,
            path: None,
        }
    }

    pub fn http_5xx(status: u16) -> Self {
        FaultSpec {
            status: Some(status),
            ..FaultSpec::of(FaultKind::Http5xx)
        }
    }

    pub fn timeout() -> Self {
        FaultSpec::of(FaultKind::Timeout)
    }

    pub fn slow(delay_ms: u64) -> Self {
        FaultSpec {
            delay_ms: Some(delay_ms),
            ..FaultSpec::of(FaultKind::Slow)
        }
    }

    pub fn malformed() -> Self {
        FaultSpec::of(FaultKind::Malformed)
    }

    /// `field_fel` with a fel type and an optional field (see [`FaultSpec::field`]).
    pub fn field_fel(fel_typ: &str, field: Option<&str>) -> Self {
        FaultSpec {
            fel_typ: Some(fel_typ.to_owned()),
            field: field.map(str::to_owned),
            ..FaultSpec::of(FaultKind::FieldFel)
        }
    }

    /// Limits the fault to the source's requests whose path ends with `suffix`.
    pub fn on_path(mut self, suffix: &str) -> Self {
        self.path = Some(suffix.to_owned());
        self
    }

    /// Limits the fault to the next `n` requests.
    pub fn times(mut self, n: u32) -> Self {
        self.times = Some(n);
        self
    }

    /// Checks the spec against the upstream it is armed for.
    pub(crate) fn validate(&self, upstream: &Upstream) -> Result<(), String> {
        if let Some(s) = self.status {
            if !(500..=599).contains(&s) {
                return Err(format!("status must be 500..=599, not {s}"));
            }
        }
        if self.times == Some(0) {
            return Err("times must be at least 1 (omit it for until-cleared)".into());
        }
        if self.kind == FaultKind::FieldFel {
            match upstream.field_fel {
                Some(rules) => rules(self)?,
                None => {
                    return Err(format!(
                        "field_fel applies to bolagsverket, ssbtgu and personsokning only, not {}",
                        upstream.source
                    ))
                }
            }
        }
        Ok(())
    }
}

/// What the fault injector needs to know of an upstream: which it is, how it answers when it
/// fails, and which `field_fel` faults it can carry (none when it has no per-field errors).
pub(crate) struct Upstream {
    pub source: Source,
    /// The upstream's own error answer for a status (503, 504, ...).
    pub error: fn(StatusCode, &HttpRequest) -> HttpResponse,
    /// Checks a `field_fel` spec against the upstream's fel types and fields.
    pub field_fel: Option<FieldFelRules>,
}

/// Accepts a `field_fel` spec or says what the upstream allows.
pub(crate) type FieldFelRules = fn(&FaultSpec) -> Result<(), String>;

/// A fault armed for a source, as `GET /control/faults` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmedFault {
    pub source: Source,
    pub spec: FaultSpec,
    /// Requests it will still affect (absent = until cleared).
    pub remaining: Option<u32>,
    /// Requests it has affected so far.
    pub hits: u32,
}

/// One request an upstream route received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    pub seq: u64,
    pub source: Source,
    pub method: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// RFC 3339, UTC.
    pub time: String,
    /// The `X-Request-Id` header, if sent.
    pub request_id: Option<String>,
    /// The W3C `traceparent` header, if sent (the caller's trace context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// The fault applied, if any.
    pub fault: Option<FaultKind>,
    /// The status answered (absent while the request is still running).
    pub status: Option<u16>,
}

/// The call log (bounded).
#[derive(Debug, Default)]
struct CallLog {
    next_seq: u64,
    records: Vec<CallRecord>,
}

const CALL_LOG_MAX: usize = 20_000;

/// The armed faults and the call log of one running sandbox.
pub(crate) struct FaultInjector {
    faults: Mutex<HashMap<Source, ArmedFault>>,
    calls: Mutex<CallLog>,
    /// How long a `timeout` fault holds a request by default.
    timeout_hold: Duration,
    /// Turns true when the sandbox stops: held requests end early.
    shutdown: watch::Receiver<bool>,
}

impl FaultInjector {
    pub fn new(timeout_hold: Duration, shutdown: watch::Receiver<bool>) -> Self {
        FaultInjector {
            faults: Mutex::new(HashMap::new()),
            calls: Mutex::new(CallLog::default()),
            timeout_hold,
            shutdown,
        }
    }

    /// Arms a fault for an upstream, replacing any armed one.
    pub fn arm(&self, upstream: &Upstream, spec: FaultSpec) -> Result<(), String> {
        spec.validate(upstream)?;
        let source = upstream.source;
        lock(&self.faults).insert(
            source,
            ArmedFault {
                source,
                remaining: spec.times,
                spec,
                hits: 0,
            },
        );
        Ok(())
    }

    pub fn disarm(&self, source: Source) {
        lock(&self.faults).remove(&source);
    }

    pub fn disarm_all(&self) {
        lock(&self.faults).clear();
    }

    /// The armed faults, by source.
    pub fn armed(&self) -> Vec<ArmedFault> {
        let mut v: Vec<ArmedFault> = lock(&self.faults).values().cloned().collect();
        v.sort_by_key(|f| f.source);
        v
    }

    /// The logged calls (of one source, or all), oldest first.
    pub fn calls(&self, source: Option<Source>) -> Vec<CallRecord> {
        lock(&self.calls)
            .records
            .iter()
            .filter(|c| source.is_none_or(|s| c.source == s))
            .cloned()
            .collect()
    }

    pub fn clear_calls(&self) {
        lock(&self.calls).records.clear();
    }

    /// Takes one use of the fault armed for `source`, if it applies to a request to `path`.
    fn take_fault(&self, source: Source, path: &str) -> Option<FaultSpec> {
        let mut faults = lock(&self.faults);
        let armed = faults.get_mut(&source)?;
        if armed
            .spec
            .path
            .as_deref()
            .is_some_and(|suffix| !path.ends_with(suffix))
        {
            return None;
        }
        armed.hits += 1;
        let spec = armed.spec.clone();
        if let Some(n) = armed.remaining.as_mut() {
            *n -= 1;
            if *n == 0 {
                faults.remove(&source);
            }
        }
        Some(spec)
    }

    fn log_call(&self, source: Source, req: &HttpRequest, fault: Option<FaultKind>) -> u64 {
        let mut log = lock(&self.calls);
        let seq = log.next_seq;
        log.next_seq += 1;
        let query = req.query_string();
        log.records.push(CallRecord {
            seq,
            source,
            method: req.method().to_string(),
            path: req.path().to_owned(),
            query: (!query.is_empty()).then(|| query.to_owned()),
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            request_id: req
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            traceparent: req
                .headers()
                .get("traceparent")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            fault,
            status: None,
        });
        if log.records.len() > CALL_LOG_MAX {
            let excess = log.records.len() - CALL_LOG_MAX;
            log.records.drain(..excess);
        }
        seq
    }

    fn finish_call(&self, seq: u64, status: StatusCode) {
        let mut log = lock(&self.calls);
        if let Some(r) = log.records.iter_mut().rev().find(|r| r.seq == seq) {
            r.status = Some(status.as_u16());
        }
    }

    /// Sleeps `d`, or less when the sandbox stops. Returns false when cut short.
    async fn sleep_unless_stopped(&self, d: Duration) -> bool {
        let mut rx = self.shutdown.clone();
        if *rx.borrow() {
            return false;
        }
        tokio::select! {
            _ = tokio::time::sleep(d) => true,
            _ = rx.changed() => false,
        }
    }
}

/// A `field_fel` fault handed to a route.
#[derive(Clone, Debug)]
pub(crate) struct FieldFel {
    pub typ: Option<String>,
    pub beskrivning: Option<String>,
    pub field: Option<String>,
}

impl FaultInjector {
    /// Runs an upstream route under fault injection and call logging.
    pub async fn guarded<F, Fut>(
        &self,
        upstream: &Upstream,
        req: &HttpRequest,
        route: F,
    ) -> HttpResponse
    where
        F: FnOnce(Option<FieldFel>) -> Fut,
        Fut: Future<Output = HttpResponse>,
    {
        let state = self;
        let source = upstream.source;
        let error_response = |status: StatusCode| (upstream.error)(status, req);
        let fault = state.take_fault(source, req.path());
        let seq = state.log_call(source, req, fault.as_ref().map(|f| f.kind));
        if let Some(f) = &fault {
            tracing::debug!(source = %source, kind = ?f.kind, path = req.path(), "injecting fault");
        }
        let resp = match fault {
            None => route(None).await,
            Some(spec) => match spec.kind {
                FaultKind::Http5xx => {
                    let status = StatusCode::from_u16(spec.status.unwrap_or(503))
                        .unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
                    error_response(status)
                }
                FaultKind::Timeout => {
                    let hold = spec
                        .delay_ms
                        .map(Duration::from_millis)
                        .unwrap_or(state.timeout_hold);
                    if state.sleep_unless_stopped(hold).await {
                        error_response(StatusCode::GATEWAY_TIMEOUT)
                    } else {
                        error_response(StatusCode::SERVICE_UNAVAILABLE)
                    }
                }
                FaultKind::Slow => {
                    let d = Duration::from_millis(spec.delay_ms.unwrap_or(2000));
                    state.sleep_unless_stopped(d).await;
                    route(None).await
                }
                FaultKind::Malformed => truncate(route(None).await).await,
                FaultKind::FieldFel => {
                    route(Some(FieldFel {
                        typ: spec.fel_typ,
                        beskrivning: spec.fel_beskrivning,
                        field: spec.field,
                    }))
                    .await
                }
            },
        };
        state.finish_call(seq, resp.status());
        resp
    }
}

/// The response with its body cut in half, as 200.
async fn truncate(resp: HttpResponse) -> HttpResponse {
    let content_type = resp
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .cloned();
    let body = actix_web::body::to_bytes(resp.into_body())
        .await
        .unwrap_or_default();
    let cut = body.slice(..body.len() / 2);
    let mut b = HttpResponse::Ok();
    if let Some(ct) = content_type {
        b.insert_header((actix_web::http::header::CONTENT_TYPE, ct));
    }
    b.body(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_json_shape() {
        let s: FaultSpec = serde_json::from_str(
            r#"{"kind":"field_fel","fel_typ":"OTILLGANGLIG_UPPGIFTSKALLA","field":"organisationsnamn","times":2}"#,
        )
        .unwrap();
        assert_eq!(s.kind, FaultKind::FieldFel);
        assert_eq!(s.times, Some(2));
        let s: FaultSpec = serde_json::from_str(r#"{"kind":"http_5xx","status":503}"#).unwrap();
        assert_eq!(s, FaultSpec::http_5xx(503));
        assert!(serde_json::from_str::<FaultSpec>(r#"{"kind":"nope"}"#).is_err());
    }

    fn refuse(status: StatusCode, _: &HttpRequest) -> HttpResponse {
        HttpResponse::build(status).finish()
    }

    fn only_x(spec: &FaultSpec) -> Result<(), String> {
        match spec.fel_typ.as_deref() {
            Some("X") | None => Ok(()),
            Some(_) => Err("fel_typ must be X".into()),
        }
    }

    #[test]
    fn validation() {
        let plain = Upstream {
            source: Source::Scb,
            error: refuse,
            field_fel: None,
        };
        let per_field = Upstream {
            source: Source::Bolagsverket,
            error: refuse,
            field_fel: Some(only_x),
        };
        assert!(FaultSpec::http_5xx(404).validate(&plain).is_err());
        assert!(FaultSpec::http_5xx(503).validate(&plain).is_ok());
        assert!(FaultSpec::field_fel("X", None).validate(&plain).is_err());
        assert!(FaultSpec::field_fel("X", None).validate(&per_field).is_ok());
        assert!(FaultSpec::field_fel("NOPE", None)
            .validate(&per_field)
            .is_err());
        assert!(FaultSpec::malformed().times(0).validate(&plain).is_err());
    }
}
