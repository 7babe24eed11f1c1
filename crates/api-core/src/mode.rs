//! Test mode on the wire: every answer to a test-mode credential carries `Idreg-Mode: test`
//! (and the token response its `mode`), so no client can take a sandbox answer for a
//! register's.

use actix_web::http::header::{HeaderName, HeaderValue};
use domain::access::tenant::TenantMode;

/// The response header naming test mode.
pub const HEADER: &str = "idreg-mode";

/// `Idreg-Mode: test`.
pub fn header() -> (HeaderName, HeaderValue) {
    (
        HeaderName::from_static(HEADER),
        HeaderValue::from_static("test"),
    )
}

/// Marks `response` when it answers a test-mode caller.
pub fn mark(response: &mut actix_web::HttpResponse, mode: TenantMode) {
    if mode == TenantMode::Test {
        let (name, value) = header();
        response.headers_mut().insert(name, value);
    }
}
