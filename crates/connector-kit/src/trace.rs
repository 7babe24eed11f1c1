//! The W3C trace context on the calls idreg makes: each upstream call (and each webhook
//! delivery, through [`traced`]) runs in a client span, a child of the request it serves, and
//! sends that span's context as `traceparent` (and `tracestate`), so the caller's trace
//! continues into the registers and receivers that take part in tracing.

use opentelemetry::propagation::Injector;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A request's headers as the trace propagator writes them.
struct Headers<'a>(&'a mut reqwest::header::HeaderMap);

impl Injector for Headers<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(key.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// The trace context of `span` as headers (none when the span has no valid context).
pub fn context_headers(span: &tracing::Span) -> reqwest::header::HeaderMap {
    let mut headers = reqwest::header::HeaderMap::new();
    let cx = span.context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&cx, &mut Headers(&mut headers));
    });
    headers
}

/// A client span for one outgoing exchange: `{method}` by OpenTelemetry's convention for a
/// call with no route template, with the method and the server's host (never the URL's path
/// or query, which may carry an identifier).
pub fn client_span(method: &str, host: &str) -> tracing::Span {
    let method = domain::meter::method_label(method);
    tracing::info_span!(
        "upstream call",
        otel.name = method,
        otel.kind = "client",
        http.request.method = method,
        server.address = %host,
        http.response.status_code = tracing::field::Empty,
    )
}

/// Sends `request` with `send`, inside a client span whose context it carries, recording the
/// answer's status on the span.
pub async fn traced<T, F>(request: reqwest::RequestBuilder, send: F) -> T
where
    F: AsyncFnOnce(reqwest::RequestBuilder) -> (T, Option<u16>),
{
    let (method, host) = request
        .try_clone()
        .and_then(|r| r.build().ok())
        .map(|r| {
            (
                r.method().as_str().to_owned(),
                r.url().host_str().unwrap_or_default().to_owned(),
            )
        })
        .unwrap_or_default();
    let span = client_span(&method, &host);
    let request = request.headers(context_headers(&span));
    let (out, status) = send(request).instrument(span.clone()).await;
    if let Some(status) = status {
        span.record("http.response.status_code", status);
    }
    out
}
