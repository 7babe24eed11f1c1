//! How a request comes in, on either surface: its context (a request id, also sent back as
//! `X-Request-Id`, the peer address, the receive time), one log line per request naming the
//! route template (never the path: paths carry identifiers), the bearer token, and the body
//! read up to its limit. The middleware wraps the whole app, `/mcp` included.
//!
//! Each request runs in one server span named for its method and route template
//! (`GET /v1/companies/{orgnr}`), with OpenTelemetry's HTTP attribute names
//! (`http.request.method`, `http.route`, `http.response.status_code`), the request id, and
//! the trace id, which every log line of the request carries. A caller's W3C `traceparent`
//! makes the span its child, so idreg's work joins the caller's trace; the upstream calls
//! and webhook deliveries it makes carry the context on (`connector_kit::trace`).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};
use domain::access::audit::RequestContext;
use opentelemetry::trace::TraceContextExt;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A request's headers as the trace propagator reads them.
struct Carrier<'a>(&'a actix_web::http::header::HeaderMap);

impl opentelemetry::propagation::Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The response header that carries the request id.
pub struct RequestIdHeader;

impl RequestIdHeader {
    pub const NAME: &'static str = "x-request-id";
}

/// Creates the request's context, runs the request inside a tracing span, logs its end and
/// counts it (by method, route template and status) on the services' meter.
pub async fn request_context_middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut ctx = RequestContext::new(peer(req.peer_addr()), received_at(req.request()));
    // The resource (RFC 8707) this request is made to: a token minted for another is refused.
    let resource = if req.path() == "/mcp" {
        crate::discovery::Protected::Mcp
    } else {
        crate::discovery::Protected::Api
    };
    ctx.resource = Some(resource.resource(&crate::discovery::origin(req.request())));
    let request_id = ctx.request_id.to_string();
    let route = req
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = req.method().to_string();
    let meter = req
        .app_data::<crate::AppServices>()
        .map(|services| services.meter.clone());
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Carrier(req.headers()))
    });
    req.extensions_mut().insert(ctx);
    // The method as a span may name it: made-up methods are `_OTHER`, as in the metrics.
    let method_label = domain::meter::method_label(&method);
    let span = tracing::info_span!(
        "request",
        otel.name = %format_args!("{method_label} {route}"),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        http.request.method = method_label,
        http.route = %route,
        http.response.status_code = tracing::field::Empty,
        request_id = %request_id,
        trace_id = tracing::field::Empty,
    );
    // A caller's trace context, when it sent one, is the span's parent.
    let _ = span.set_parent(parent);
    let trace = span.context().span().span_context().clone();
    if trace.is_valid() {
        span.record("trace_id", tracing::field::display(trace.trace_id()));
    }
    let started = std::time::Instant::now();
    let mut response = next.call(req).instrument(span.clone()).await?;
    let status = response.status().as_u16();
    span.record("http.response.status_code", status);
    if status >= 500 {
        span.record("otel.status_code", "ERROR");
    }
    let elapsed = started.elapsed();
    if let Some(meter) = meter {
        meter.request(&domain::meter::RequestSample {
            method: &method,
            route: &route,
            status,
            elapsed,
        });
    }
    span.in_scope(|| {
        tracing::info!(
            status,
            elapsed_ms = elapsed.as_millis() as u64,
            "request finished"
        );
    });
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(RequestIdHeader::NAME), value);
    }
    Ok(response)
}

/// The context the middleware created (a fresh one if the middleware is not mounted).
pub fn request_context(req: &HttpRequest) -> RequestContext {
    req.extensions()
        .get::<RequestContext>()
        .cloned()
        .unwrap_or_else(|| RequestContext::new(peer(req.peer_addr()), received_at(req)))
}

fn peer(addr: Option<std::net::SocketAddr>) -> Option<String> {
    addr.map(|a| a.ip().to_string())
}

/// Now, on the service's clock (the wall clock only where no services are mounted).
fn received_at(req: &HttpRequest) -> chrono::DateTime<chrono::Utc> {
    match req.app_data::<crate::AppServices>() {
        Some(services) => services.clock.now(),
        None => chrono::Utc::now(),
    }
}

/// Whether the request's `Accept` names `media` itself (case-insensitive) in a range whose
/// weight is not zero. A wildcard (`*/*`, `application/*`) does not name it: a media type
/// a client did not name is never chosen for it. Both surfaces negotiate through this
/// (`/mcp`'s two required types, problem details).
pub fn accepts(headers: &actix_web::http::header::HeaderMap, media: &str) -> bool {
    headers
        .get_all(actix_web::http::header::ACCEPT)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| {
            let mut parts = range.split(';');
            let named = parts
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case(media);
            let refused = parts.any(|p| {
                p.split_once('=').is_some_and(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("q")
                        && v.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
                })
            });
            named && !refused
        })
}

/// The bearer token of the `Authorization` header, if the header has the Bearer scheme.
pub fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let value = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Reads a request body of at most [`crate::MAX_BODY_BYTES`]; a larger one is a
/// `bad_request` naming the limit (as JSON, like every other error).
pub async fn read_body(
    mut payload: actix_web::web::Payload,
) -> Result<actix_web::web::Bytes, domain::Failure> {
    use futures_util::StreamExt;
    let mut body = actix_web::web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| domain::Failure::bad_request("body", "could not be read"))?;
        if body.len() + chunk.len() > crate::MAX_BODY_BYTES {
            return Err(domain::Failure::bad_request(
                "body",
                &format!("must be at most {} bytes", crate::MAX_BODY_BYTES),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}
