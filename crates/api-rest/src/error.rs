//! The one place where a `Failure` becomes an HTTP response: `{error, message}` and the
//! status of the code.

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

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        if let Some(cause) = &self.0.internal {
            // The cause goes to the log (with the request id from the span); never to the caller.
            tracing::error!(cause = %cause, "internal error");
        }
        let mut response = HttpResponse::build(self.status_code());
        if self.0.code == ErrorCode::Unauthorized {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"idreg\""));
        }
        response.json(ErrorBody::of(&self.0))
    }
}
