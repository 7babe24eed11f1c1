//! The one place where a `Failure` becomes the wire's error: `{error, message}` (the body of
//! a REST error and of an MCP `isError` result's `content[1]`) and, over HTTP, the status of
//! the code with its headers. Both surfaces log a failure's cause through [`log_cause`].

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use domain::{ErrorCode, Failure};
use serde::Serialize;
use std::fmt;

/// The error body of every route (and, over MCP, `content[1]` of an error result).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ErrorBody<'a> {
    /// A code from the interface's error table; clients log the code, not the message.
    pub error: &'a str,
    pub message: &'a str,
    /// With `invalid_cursor` only: how to recover (`restart from cursor 0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::schema::recovery)]
    pub recovery: Option<&'static str>,
}

/// The recovery an error code names, if any.
fn recovery(code: ErrorCode) -> Option<&'static str> {
    (code == ErrorCode::InvalidCursor).then_some("restart from cursor 0")
}

impl ErrorBody<'_> {
    pub fn of(failure: &Failure) -> ErrorBody<'_> {
        ErrorBody {
            error: failure.code.as_str(),
            message: &failure.message,
            recovery: recovery(failure.code),
        }
    }

    /// The body as the REST surface sends it.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// A failure on its way to the wire.
#[derive(Debug)]
pub struct ApiError(pub Failure);

impl From<Failure> for ApiError {
    fn from(f: Failure) -> Self {
        ApiError(f)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Logs a failure's cause (with the request id from the span), never sent to the caller: a
/// storage outage as a warning (it is not a fault of the service's code), anything else as
/// an error. Every surface logs failures through this.
pub fn log_cause(failure: &Failure, tool: Option<&str>) {
    let Some(cause) = &failure.internal else {
        return;
    };
    if failure.retry_after().is_some() {
        tracing::warn!(cause = %cause, tool, "storage unavailable");
    } else {
        tracing::error!(cause = %cause, tool, "internal error");
    }
}

/// The `Retry-After` of a failure that has one (an outage of the service's own storage).
pub fn insert_retry_after(failure: &Failure, response: &mut actix_web::HttpResponseBuilder) {
    if let Some(seconds) = failure.retry_after() {
        response.insert_header((header::RETRY_AFTER, seconds.to_string()));
    }
}

/// 405 in the API's error shape, with the `Allow` header (RFC 9110) listing every method the
/// path serves: the path exists, the method does not. Not audited: no route ran. The message
/// never echoes the path. Every REST path and `/mcp` answer their 405 through this.
pub fn method_not_allowed(allow: &[actix_web::http::Method]) -> HttpResponse {
    let methods: Vec<&str> = allow.iter().map(actix_web::http::Method::as_str).collect();
    let message = format!("this path answers {} only", methods.join(" and "));
    method_not_allowed_because(allow, message)
}

/// [`method_not_allowed`] with a message of the path's own.
pub fn method_not_allowed_because(
    allow: &[actix_web::http::Method],
    message: String,
) -> HttpResponse {
    let listed = allow
        .iter()
        .map(actix_web::http::Method::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let failure = Failure::new(ErrorCode::MethodNotAllowed, message);
    HttpResponse::MethodNotAllowed()
        .insert_header((header::ALLOW, listed))
        .json(ErrorBody::of(&failure))
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        log_cause(&self.0, None);
        let mut response = HttpResponse::build(self.status_code());
        if self.0.code == ErrorCode::Unauthorized {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"idreg\""));
        }
        insert_retry_after(&self.0, &mut response);
        response.json(ErrorBody::of(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_outage_is_503_with_a_retry_hint_and_no_cause() {
        let failure = Failure::storage_unavailable("refused at 10.0.0.1");
        let body = ErrorBody::of(&failure).text();
        assert!(body.contains("upstream_unavailable"), "{body}");
        assert!(!body.contains("10.0.0.1"), "{body}");
        let response = ApiError(failure).error_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "5");

        // A registry's outage is a 503 of its own, without the storage's hint.
        let registry = Failure::new(ErrorCode::UpstreamUnavailable, "the register is down");
        let response = ApiError(registry).error_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get(header::RETRY_AFTER).is_none());
    }
}
