//! `Idempotency-Key` on the REST writes: the header read, the write run once per key
//! (`domain::idempotency`), and a replayed answer marked `Idempotent-Replayed: true`.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies::Body;
use domain::access::caller::Caller;
use domain::idempotency::key::{IdempotencyKey, RequestPrint, FIELD};
use domain::idempotency::service::Begin;
use domain::operation::Operation;
use domain::services::Services;
use domain::Failure;

/// The request header (the IETF draft's field).
pub const HEADER: &str = "idempotency-key";
/// The response header of an answer replayed from its key.
pub const REPLAYED: &str = "idempotent-replayed";

/// The request's key, if it sent one; a malformed key (or the field twice) is 400.
pub fn key(req: &HttpRequest) -> Result<Option<IdempotencyKey>, Failure> {
    let mut values = req.headers().get_all(HEADER);
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Failure::bad_request(FIELD, "is given more than once"));
    }
    let text = value
        .to_str()
        .map_err(|_| Failure::bad_request(FIELD, "must be printable ASCII"))?;
    IdempotencyKey::parse(text).map(Some)
}

/// Runs the write once for `key`: its first answer, or the answer kept from the first time
/// (then `true`). A key used for another request, or one still running, is the failure.
pub async fn run<'s, F, Fut, B>(
    req: &HttpRequest,
    services: &'s Services,
    caller: Caller,
    op: Operation,
    key: &IdempotencyKey,
    raw: web::Bytes,
    body: F,
) -> Result<(Result<Body, Failure>, bool), Failure>
where
    F: FnOnce(&'s Services, Caller, web::Bytes) -> Fut,
    Fut: std::future::Future<Output = Result<B, Failure>>,
    B: Into<Body>,
{
    let target = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.path(), |p| p.as_str());
    let print = RequestPrint {
        method: req.method().as_str(),
        target,
        body: &raw,
    };
    match services.idempotency.begin(&caller, op, key, &print).await? {
        Begin::Replay(outcome) => Ok((outcome.map(Body), true)),
        Begin::Run(ticket) => {
            let result = body(services, caller.clone(), raw.clone())
                .await
                .map(Into::into);
            let kept = services
                .idempotency
                .finish(&caller, ticket, result.as_ref().map(|b| b.0.as_str()))
                .await;
            if let Err(failure) = kept {
                tracing::warn!(
                    code = failure.code.as_str(),
                    "the answer could not be kept under its idempotency key; the key is freed when its lease runs out"
                );
                api_core::log_cause(&failure, None);
            }
            Ok((result, false))
        }
    }
}

/// Marks an answer as the one kept from the key's first request.
pub fn mark_replayed(response: &mut HttpResponse) {
    response.headers_mut().insert(
        HeaderName::from_static(REPLAYED),
        HeaderValue::from_static("true"),
    );
}
