//! The record of every upstream call ([`UpstreamCall`]) and its log line.

use crate::transport::{digest, usable, Answer, Exchange};
use chrono::{DateTime, Utc};
use domain::companies::profile::{Fetch, RegistryFailure, UpstreamCall};
use domain::evidence::EvidenceSource;

/// What one call is, for its record.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The evidence source the call's data is attributed to.
    pub source: EvidenceSource,
    /// `POST /organisationer`: method and path template, never an identifier.
    pub name: &'static str,
    /// The upstream contract version the answer is read under (an answer may declare its
    /// own, see [`AnswerMeta::schema_version`]).
    pub schema_version: &'static str,
    /// Billable units of one call that reached the upstream's operation (0 for free
    /// sources; a call refused for its credentials, 401, is never billed).
    pub cost: i32,
}

impl Operation {
    /// `companyreg.vardefulla-datamangder POST /organisationer`: the start of every failure
    /// reason about this operation.
    pub fn label(&self) -> String {
        format!("{} {}", self.source.as_str(), self.name)
    }
}

/// The calls one step made and what came of them.
#[derive(Debug)]
pub struct Step<T> {
    /// Every call made, in order, whatever its outcome.
    pub calls: Vec<UpstreamCall>,
    /// What the step gives.
    pub result: Result<T, RegistryFailure>,
}

impl<T> Step<T> {
    /// The step as the port's fetch: its calls and its result.
    pub fn into_fetch(self) -> Fetch<T> {
        Fetch {
            calls: self.calls,
            outcome: self.result,
        }
    }
}

/// What the answer said about itself (when it says anything).
#[derive(Clone, Debug, Default)]
pub struct AnswerMeta {
    /// The upstream's own reference for the call (an echoed request id, a message id).
    pub upstream_ref: Option<String>,
    /// When the source says its data is from; the retrieval time when `None`.
    pub source_timestamp: Option<DateTime<Utc>>,
    /// Overrides the operation's schema version (e.g. the version an answer declares).
    pub schema_version: Option<String>,
}

/// Turns the outcome of one exchange into its record and result, and logs the call.
/// `interpret` reads a complete answer (any status) and says what it means and what it said
/// about itself; a transport failure becomes [`crate::transport::Transport::failure`]. The record's digest is
/// of the body exactly as received.
pub fn conclude<T>(
    op: &Operation,
    request_id: &str,
    exchange: Exchange,
    interpret: impl FnOnce(&Answer) -> (Result<T, RegistryFailure>, AnswerMeta),
) -> (UpstreamCall, Result<T, RegistryFailure>) {
    let retrieved_at = Utc::now();
    let elapsed = exchange.elapsed;
    match exchange.outcome {
        Err(t) => {
            let failure = t.failure(&op.label());
            log_call(op, request_id, None, Some(&failure));
            let call = record(
                op,
                retrieved_at,
                None,
                AnswerMeta::default(),
                false,
                elapsed,
            );
            (call, Err(failure))
        }
        Ok(answer) => {
            let (result, meta) = interpret(&answer);
            log_call(op, request_id, Some(answer.status), result.as_ref().err());
            let call = record(
                op,
                retrieved_at,
                Some(&answer),
                meta,
                usable(&result),
                elapsed,
            );
            (call, result)
        }
    }
}

/// The record of one call: its status and digest when an answer arrived, the answer's own
/// reference and time stamp, and its cost (the operation's, except 0 without an answer or
/// for a 401).
pub fn record(
    op: &Operation,
    retrieved_at: DateTime<Utc>,
    answer: Option<&Answer>,
    meta: AnswerMeta,
    usable: bool,
    elapsed: std::time::Duration,
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
        elapsed,
    }
}

/// Logs the end of a call: the source, the operation, the request id, the status and the
/// failure reason (debug when it succeeded or found nothing, warn when it failed). It takes
/// no identifier, so it can log none.
pub fn log_call(
    op: &Operation,
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
