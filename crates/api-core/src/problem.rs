//! Problem details (RFC 9457) for the clients that ask for them. A request whose `Accept`
//! names `application/problem+json` gets every error answer as that media type, with the
//! RFC's members (`type`, `title`, `status`, `detail`, `instance`) beside the API's own
//! (`error`, `message`, and whatever else the body carried: `recovery`, OAuth's
//! `error_description`). Every other request gets the body it always got. `type` is
//! `<origin>/docs/errors/<code>`, a page of the served documentation; `instance` names the
//! request by its id (`X-Request-Id`, the audit row's), never by its path (paths carry
//! identifiers).
//!
//! One middleware rewrites the error answers of every route, `/mcp`'s transport answers
//! included, so no route can forget; a success, or an answer that is not the API's error
//! body (a JSON-RPC error of `/mcp`), passes untouched.

use crate::codes::title;
use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use domain::access::audit::RequestContext;
use domain::ErrorCode;
use serde_json::{Map, Value};

/// The media type of a problem details document.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Where the documentation page of each error code is served.
pub const ERROR_DOCS_PATH: &str = "/docs/errors";

/// The `type` URI of `code`'s problem: its page under [`ERROR_DOCS_PATH`] at `origin`.
pub fn type_uri(origin: &str, code: &str) -> String {
    format!("{origin}{ERROR_DOCS_PATH}/{code}")
}

/// The `instance` URI of a request: its id as a URN of this service.
pub fn instance_uri(request_id: &str) -> String {
    format!("urn:idreg:request:{request_id}")
}

/// Whether the request asks for problem details: its `Accept` names the media type itself
/// with a weight above zero (a wildcard does not count: only a client that knows the format
/// gets it).
pub fn accepts_problem(headers: &header::HeaderMap) -> bool {
    crate::accepts(headers, PROBLEM_JSON)
}

/// The problem document of an API error body: its members kept, the RFC's added. `None`
/// when `body` is not the API's error body (`error` and `message` strings).
pub fn problem_of(body: &[u8], status: u16, origin: &str, request_id: &str) -> Option<Vec<u8>> {
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let code = fields.get("error")?.as_str()?.to_owned();
    let message = fields.get("message")?.as_str()?.to_owned();
    let known = ErrorCode::ALL.iter().find(|c| c.as_str() == code);
    let mut problem = Map::new();
    problem.insert(
        "type".into(),
        Value::String(match known {
            Some(_) => type_uri(origin, &code),
            None => "about:blank".to_owned(),
        }),
    );
    problem.insert(
        "title".into(),
        Value::String(match known {
            Some(c) => title(*c).to_owned(),
            None => message.clone(),
        }),
    );
    problem.insert("status".into(), Value::from(status));
    problem.insert("detail".into(), Value::String(message));
    problem.insert("instance".into(), Value::String(instance_uri(request_id)));
    for (name, value) in fields {
        problem.entry(name).or_insert(value);
    }
    serde_json::to_vec(&Value::Object(problem)).ok()
}

/// Rewrites an error answer as problem details when the request asked for them; every
/// error answer says it varies with `Accept`.
pub async fn problem_details_middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, BoxBody>>, actix_web::Error> {
    let wanted = accepts_problem(req.headers());
    let origin = wanted.then(|| crate::discovery::origin(req.request()));
    let mut response = next.call(req).await?;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(response.map_into_left_body());
    }
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept"));
    let Some(origin) = origin else {
        return Ok(response.map_into_left_body());
    };
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_json {
        return Ok(response.map_into_left_body());
    }
    let request_id = response
        .request()
        .extensions()
        .get::<RequestContext>()
        .map(|ctx| ctx.request_id.to_string())
        .unwrap_or_default();
    let (request, response) = response.into_parts();
    let (mut head, body) = response.into_parts();
    let bytes = actix_web::body::to_bytes_limited(body, crate::MAX_BODY_BYTES)
        .await
        .ok()
        .and_then(Result::ok);
    let Some(bytes) = bytes else {
        // An error body that cannot be read again is not rewritten (none of ours is).
        let response = head.set_body(BoxBody::new(()));
        return Ok(ServiceResponse::new(request, response).map_into_right_body());
    };
    let body = match problem_of(&bytes, status.as_u16(), &origin, &request_id) {
        Some(problem) => {
            head.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
            problem
        }
        None => bytes.to_vec(),
    };
    let response = head.set_body(BoxBody::new(body));
    Ok(ServiceResponse::new(request, response).map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(accept: &str) -> header::HeaderMap {
        let mut h = header::HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap());
        h
    }

    #[test]
    fn only_a_client_naming_the_media_type_gets_it() {
        assert!(accepts_problem(&headers("application/problem+json")));
        assert!(accepts_problem(&headers(
            "application/json, application/problem+json;q=0.5"
        )));
        assert!(accepts_problem(&headers("Application/Problem+JSON")));
        assert!(!accepts_problem(&headers("application/problem+json;q=0")));
        assert!(!accepts_problem(&headers("*/*")));
        assert!(!accepts_problem(&headers("application/*")));
        assert!(!accepts_problem(&headers("application/json")));
        assert!(!accepts_problem(&header::HeaderMap::new()));
    }

    #[test]
    fn the_rfc_members_come_first_and_the_apis_stay() {
        let body = br#"{"error":"invalid_cursor","message":"`cursor` is malformed","recovery":"restart from cursor 0"}"#;
        let problem: Value = serde_json::from_slice(
            &problem_of(body, 400, "https://api.example.com", "req_01").unwrap(),
        )
        .unwrap();
        assert_eq!(
            problem,
            serde_json::json!({
                "type": "https://api.example.com/docs/errors/invalid_cursor",
                "title": "The event cursor is malformed",
                "status": 400,
                "detail": "`cursor` is malformed",
                "instance": "urn:idreg:request:req_01",
                "error": "invalid_cursor",
                "message": "`cursor` is malformed",
                "recovery": "restart from cursor 0",
            })
        );
        // A JSON-RPC error (MCP) or any other body is not the API's error body.
        assert!(problem_of(
            br#"{"jsonrpc":"2.0","error":{"code":-32600}}"#,
            400,
            "o",
            "r"
        )
        .is_none());
        assert!(problem_of(b"not json", 500, "o", "r").is_none());
    }

    #[test]
    fn every_code_has_a_title() {
        for code in ErrorCode::ALL {
            assert!(!title(code).is_empty());
            assert!(!title(code).ends_with('.'), "{code:?}");
        }
    }
}
