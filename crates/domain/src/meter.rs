//! What the service counts for its operators, as a port: the use cases and the surfaces say
//! what happened, an adapter keeps the figures (Prometheus in the binary).
//!
//! Every label a [`Meter`] is handed is bounded and says nothing about anyone: a route
//! template, a source and operation name, an outcome, a band, an event type, a list. No
//! tenant id, subject id, identifier or name reaches it, by construction: no method takes one.

use std::time::Duration;

/// The method as a label (a metric's, a span's): one of HTTP's registered methods, else
/// `_OTHER` (OpenTelemetry's bucket for the rest), so a client sending made-up methods adds
/// no series and names no span.
pub fn method_label(method: &str) -> &'static str {
    const KNOWN: [&str; 9] = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ];
    KNOWN
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("_OTHER")
}

/// A request a surface answered.
#[derive(Clone, Copy, Debug)]
pub struct RequestSample<'a> {
    /// `GET`, `POST`, ... as sent: the meter buckets any other than HTTP's registered
    /// methods (a client controls it).
    pub method: &'a str,
    /// The route template (`/v1/companies/{id}`), or `unmatched` for a path no route serves;
    /// never the path as sent.
    pub route: &'a str,
    pub status: u16,
    pub elapsed: Duration,
}

/// How an upstream call ended, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpstreamOutcome {
    /// A complete, conclusive answer: data or a definite "not found".
    Ok,
    /// An answer arrived but could not be used (an error status, a garbled body).
    Failed,
    /// No complete answer: a time limit, a refused connection, an oversized body.
    Unreachable,
}

impl UpstreamOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            UpstreamOutcome::Ok => "ok",
            UpstreamOutcome::Failed => "failed",
            UpstreamOutcome::Unreachable => "unreachable",
        }
    }
}

/// The daily limits a tenant spends from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// The paid register's daily call budget, by its part: `on_demand` or `scheduled`.
    Paid(crate::companies::budget::Spender),
    /// The person-lookup ceiling.
    PersonLookups,
}

impl Budget {
    /// `paid` or `person_lookups`.
    pub fn name(self) -> &'static str {
        match self {
            Budget::Paid(_) => "paid",
            Budget::PersonLookups => "person_lookups",
        }
    }

    /// Who spent: `on_demand` or `scheduled` (person lookups are always on demand).
    pub fn spender(self) -> &'static str {
        match self {
            Budget::Paid(spender) => spender.as_str(),
            Budget::PersonLookups => "on_demand",
        }
    }
}

/// One pass of the monitoring scheduler.
#[derive(Clone, Debug, Default)]
pub struct SchedulerPass {
    /// How late each claimed run was: its claim time less its due time.
    pub lags: Vec<Duration>,
    /// Runs whose full (paid) check was put off to the next budget day.
    pub deferred: u32,
}

/// The figures operators read. Implementations must be cheap (a few atomic operations): the
/// request path calls them.
pub trait Meter: Send + Sync {
    /// A request answered by the REST surface or the MCP endpoint.
    fn request(&self, sample: &RequestSample<'_>);
    /// One upstream call, by its evidence source and operation (`GET /organisationer/{}`).
    fn upstream_call(
        &self,
        source: &str,
        operation: &str,
        outcome: UpstreamOutcome,
        elapsed: Duration,
    );
    /// A spend from a daily budget: `spent` when it fitted, otherwise refused.
    fn budget(&self, budget: Budget, spent: bool);
    /// A scheduler pass that claimed runs.
    fn scheduler_pass(&self, pass: &SchedulerPass);
    /// Events appended to a tenant's log, by type (`company.changed`).
    fn events_appended(&self, event_type: &str, count: u64);
    /// A stored screening check, by its band (`clear`, `review`, `hit`). How old the list
    /// versions checks run on are is read at scrape time ([`crate::health::gauges`]).
    fn screening_check(&self, band: &str);
    /// One webhook delivery attempt, by outcome (`delivered`, `refused`, `failed`), and an
    /// endpoint disabled for failing (`disabled`).
    fn webhook_attempt(&self, outcome: &str);
    /// One portal mail (a sign-in link), by outcome: `sent`, `failed`, `no_transport` (none
    /// is configured), `queue_full`.
    fn portal_mail(&self, outcome: &str);
}

/// Counts nothing: for use cases built without a meter (their unit tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMeter;

impl Meter for NoMeter {
    fn request(&self, _: &RequestSample<'_>) {}
    fn upstream_call(&self, _: &str, _: &str, _: UpstreamOutcome, _: Duration) {}
    fn budget(&self, _: Budget, _: bool) {}
    fn scheduler_pass(&self, _: &SchedulerPass) {}
    fn events_appended(&self, _: &str, _: u64) {}
    fn screening_check(&self, _: &str) {}
    fn webhook_attempt(&self, _: &str) {}
    fn portal_mail(&self, _: &str) {}
}
