//! `POST /mcp`: streamable HTTP, stateless, every answer one plain JSON body.
//!
//! The order of the checks (README, "Transport rules"):
//! 1. a method other than POST: 405 (no token needed, nothing read);
//! 2. the bearer token: 401 (or 403 `tenant_pending`) before any byte of the body is read;
//! 3. a present `Origin` that is not this server's own: 403 `origin_not_allowed`;
//! 4. `Accept` lacking `application/json` or `text/event-stream`: 406 (judged after the body
//!    is read, so that a tool call refused here still writes its `mcp.tool_call` row);
//! 5. the body: JSON-RPC -32700 / -32600 at HTTP 400 when it is no single JSON-RPC message;
//! 6. the era (`era`): a request of the per-request era (2026-07-28) must pass its
//!    revision's checks (routing headers against the body, `_meta`, the revision served);
//! 7. the method: `initialize`, `ping` (handshake era), `server/discover` (per-request era),
//!    `tools/list`, `tools/call`; anything else -32601 (at 200 in the handshake era, 404 in
//!    the per-request era).

use crate::era::{self, Era};
use crate::jsonrpc::{self, Message, Rejection, Response, RpcError};
use crate::tools::{self, Ctx, ErrorBody};
use crate::{server_info, HANDSHAKE_VERSIONS};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use api_core::{bearer_token, read_body, request_context, ApiError};
use domain::access::audit::AuditTrail;
use domain::access::caller::Caller;
use domain::access::scope::ScopeSet;
use domain::operation::{Operation, Surface};
use domain::services::Services;
use domain::{ErrorCode, Failure};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// 405 for every method but POST, with `Allow: POST` and the API's error shape.
pub async fn method_not_allowed() -> HttpResponse {
    api_core::method_not_allowed_because(
        &[actix_web::http::Method::POST],
        "/mcp answers POST only: this server keeps no session and opens no event stream".into(),
    )
}

fn not_acceptable() -> HttpResponse {
    let failure = Failure::new(
        ErrorCode::NotAcceptable,
        "`Accept` must list both application/json and text/event-stream",
    );
    HttpResponse::NotAcceptable().json(ErrorBody::of(&failure))
}

pub async fn post(
    req: HttpRequest,
    payload: web::Payload,
    services: web::Data<Arc<Services>>,
) -> HttpResponse {
    let ctx = request_context(&req);
    let services: &Services = services.get_ref();
    // The token first: nothing of the message is read for a caller we do not know.
    let caller = match services
        .gate
        .admit(
            bearer_token(&req),
            Operation::McpRequest,
            Surface::Mcp,
            &ctx,
        )
        .await
    {
        Ok(caller) => caller,
        // A 401 names the MCP endpoint's metadata and every consumer scope (each opens tools).
        Err(failure) => {
            return api_core::discovery::challenged(
                ApiError(failure).error_response(),
                &req,
                api_core::discovery::Protected::Mcp,
                &domain::access::scope::Scope::CONSUMER,
            )
        }
    };
    let exchange = Exchange {
        req: &req,
        services,
        caller: &caller,
        trail: &AuditTrail::new(),
    };
    let response = exchange.answer(&req, payload).await;
    // Every row the exchange noted is written together, durably, before it answers; if the
    // write fails, the request fails.
    let mut response = match services.gate.commit(exchange.trail).await {
        Ok(()) => response,
        Err(failure) => ApiError(failure).error_response(),
    };
    api_core::mode::mark(&mut response, caller.mode());
    response
}

/// One admitted message exchange. Each way it can end notes its audit row in `trail` (the
/// gate's audit policy decides what is recorded).
#[derive(Clone, Copy)]
struct Exchange<'a> {
    req: &'a HttpRequest,
    services: &'a Services,
    caller: &'a Caller,
    trail: &'a AuditTrail,
}

impl Exchange<'_> {
    fn note(self, op: Operation, outcome: Result<u16, ErrorCode>, tool: Option<&str>) {
        self.services
            .gate
            .note(self.trail, self.caller, op, outcome, tool);
    }

    /// Notes a refusal at the transport of a message (`Some` method and params when it is a
    /// request): a tool call's `mcp.tool_call` row (every tool call writes one, whatever its
    /// outcome), or the message's row.
    fn note_refusal(self, request: Option<(&str, &Value)>, code: ErrorCode) {
        match request {
            Some(("tools/call", params)) => {
                let tool = params.as_object().and_then(served_tool);
                self.note(Operation::McpToolCall, Err(code), tool)
            }
            _ => self.note(Operation::McpRequest, Err(code), None),
        }
    }

    async fn answer(self, req: &HttpRequest, payload: web::Payload) -> HttpResponse {
        if !origin_is_ours(req) {
            let failure = Failure::new(
                ErrorCode::OriginNotAllowed,
                "requests to /mcp from a web page of another origin are not accepted",
            );
            self.note(Operation::McpRequest, Err(failure.code), None);
            return ApiError(failure).error_response();
        }
        // The body is read before `Accept` is judged, so that a tool call refused there still
        // writes its row. (The caller is known by now: nothing was read for a stranger.)
        let body = match read_body(payload).await {
            Ok(body) => body,
            Err(failure) => {
                return rejection(Rejection {
                    id: Value::Null,
                    error: RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        format!("Invalid Request: {}", failure.message),
                    ),
                })
            }
        };
        let message = jsonrpc::read(&body);
        let request = match &message {
            Ok(Message::Request { method, params, .. }) => Some((method.as_str(), params)),
            _ => None,
        };
        if !accepts_json_and_event_stream(req) {
            self.note_refusal(request, ErrorCode::NotAcceptable);
            return not_acceptable();
        }
        let era = Era::of(req.headers(), request.map(|(_, params)| params));
        match (era, message) {
            (_, Err(rejected)) => rejection(rejected),
            (Era::Handshake, Ok(Message::Notification | Message::Response)) => {
                self.note(Operation::McpRequest, Ok(202), None);
                HttpResponse::Accepted().finish()
            }
            // The per-request era defines no notification a client sends over HTTP; one at a
            // revision we serve is accepted and dropped, as its reference server does.
            (Era::PerRequest, Ok(Message::Notification)) => {
                match era::notification_version(req.headers()) {
                    Ok(()) => {
                        self.note(Operation::McpRequest, Ok(202), None);
                        HttpResponse::Accepted().finish()
                    }
                    Err(error) => {
                        self.note(Operation::McpRequest, Err(ErrorCode::BadRequest), None);
                        rpc_error(era.status_of(error.code), &Value::Null, error)
                    }
                }
            }
            // A client of that revision never sends a response: it is a malformed exchange.
            (Era::PerRequest, Ok(Message::Response)) => rejection(Rejection {
                id: Value::Null,
                error: RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: the body must be one JSON-RPC request or notification",
                ),
            }),
            (Era::Handshake, Ok(Message::Request { id, method, params })) => {
                self.request(era, &id, &method, params).await
            }
            (Era::PerRequest, Ok(Message::Request { id, method, params })) => {
                if let Err(error) = era::admit(req.headers(), &method, &params) {
                    self.note_refusal(Some((&method, &params)), ErrorCode::BadRequest);
                    return rpc_error(era.status_of(error.code), &id, error);
                }
                self.request(era, &id, &method, params).await
            }
        }
    }

    async fn request(self, era: Era, id: &Value, method: &str, params: Value) -> HttpResponse {
        let outcome = match (era, method) {
            (_, "tools/call") => return self.tools_call(era, id, params).await,
            (_, "tools/list") => Ok(tools_list(era, &self.caller.scopes)),
            (Era::Handshake, "initialize") => initialize(params),
            (Era::Handshake, "ping") => Ok(json!({})),
            (Era::PerRequest, "server/discover") => Ok(discover()),
            _ => {
                // Quickly: the handshake-era SDKs probe newer methods (`server/discover`)
                // and fall back on -32601 (at HTTP 200, as that era answers every error of a
                // request it read); the per-request era answers it at 404. Recorded as a
                // message that found nothing to serve.
                self.note(Operation::McpRequest, Err(ErrorCode::NotFound), None);
                let error = RpcError::new(jsonrpc::METHOD_NOT_FOUND, "Method not found");
                return rpc_error(era.status_of(error.code), id, error);
            }
        };
        match outcome {
            Ok(result) => {
                self.note(Operation::McpRequest, Ok(200), None);
                rpc_result(era, id, result)
            }
            // A -32602 is a validation failure (not recorded, as every 400).
            Err(error) => {
                self.note(Operation::McpRequest, Err(ErrorCode::BadRequest), None);
                rpc_error(era.status_of(error.code), id, error)
            }
        }
    }

    /// `tools/call`: one `mcp.tool_call` row whatever the outcome, beside the rows of the
    /// route invocations the tool makes.
    async fn tools_call(self, era: Era, id: &Value, params: Value) -> HttpResponse {
        let invalid = |message: &str| {
            RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("Invalid params: {message}"),
            )
        };
        // jsonrpc::read admits object or absent params only.
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let tool = match params.get("name") {
            Some(Value::String(name)) => tools::find(name).ok_or_else(|| invalid("unknown tool")),
            _ => Err(invalid("`name` is required and must be a string")),
        };
        let arguments = params.remove("arguments").unwrap_or(Value::Null);
        let tool = tool.and_then(|tool| match arguments {
            Value::Null | Value::Object(_) => Ok(tool),
            _ => Err(invalid("`arguments` must be an object")),
        });
        let tool = match tool {
            Ok(tool) => tool,
            Err(error) => {
                let known = served_tool(&params);
                self.note(Operation::McpToolCall, Err(ErrorCode::BadRequest), known);
                return rpc_error(era.status_of(error.code), id, error);
            }
        };
        // A person's connection lacking the tool's scope is asked to step up (the MCP
        // authorization's `insufficient_scope` challenge): the person may hand it more.
        if self.caller.connection && !tool.listed_for(&self.caller.scopes) {
            self.note(
                Operation::McpToolCall,
                Err(ErrorCode::Forbidden),
                Some(tool.name()),
            );
            return step_up(self.req, tool, &self.caller.scopes);
        }
        let cx = Ctx {
            services: self.services,
            caller: self.caller,
            trail: self.trail,
        };
        let result = tool.call(cx, arguments).await;
        let outcome = match &result {
            Ok(_) => Ok(200),
            Err(failure) => Err(failure.code),
        };
        self.note(Operation::McpToolCall, outcome, Some(tool.name()));
        match result {
            Ok(result) => rpc_result(era, id, result),
            Err(failure) => {
                api_core::log_cause(&failure, Some(tool.name()));
                rpc_result(era, id, tools::error_result(&failure))
            }
        }
    }
}

/// The step-up challenge (MCP authorization, "Scope Challenge Handling"): 403 with
/// `insufficient_scope`, the scopes the call needs together with those the token holds (a
/// client asking again asks for all of them), and where the resource's metadata is.
fn step_up(req: &HttpRequest, tool: &tools::Tool, held: &ScopeSet) -> HttpResponse {
    let mut scopes = held.clone();
    for op in tool.operations() {
        if !op.listed_for(held) {
            if let Some(first) = op.listing_scopes().next() {
                scopes = scopes.iter().chain(std::iter::once(first)).collect();
            }
        }
    }
    let origin = api_core::discovery::origin(req);
    let message = format!(
        "the tool `{}` needs a scope this connection does not hold: connect again granting {}",
        tool.name(),
        scopes
    );
    let challenge = format!(
        "Bearer realm=\"idreg\", error=\"insufficient_scope\", scope=\"{scopes}\", \
         resource_metadata=\"{origin}{}\", error_description=\"{}\"",
        api_core::discovery::Protected::Mcp.metadata_path(),
        "the tool needs a scope this connection does not hold"
    );
    let mut response = ApiError(Failure::new(ErrorCode::Forbidden, message)).error_response();
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(actix_web::http::header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The name of the tool a `tools/call` asks for, if it is one we serve. A row never names
/// what was asked for otherwise: a name we do not serve may be anything.
fn served_tool(params: &Map<String, Value>) -> Option<&'static str> {
    params
        .get("name")
        .and_then(Value::as_str)
        .and_then(tools::find)
        .map(|t| t.name())
}

/// What both eras tell a client about the server.
const INSTRUCTIONS: &str = "Verified identity and registry data about companies and persons, each \
    value with evidence. Every tool maps to a REST route of /v1 under the same token, scopes and \
    countries: content[0] is a one-line summary, content[1] the REST response body, and \
    structuredContent that body plus `summary`. Errors are isError results whose first text is \
    `<code>: <message>`.";

/// How long a client may keep a listing (`tools/list`, `server/discover`) of the per-request
/// era: five minutes. The tool set changes only with a deployment; a token's scopes never
/// change, and a narrowed grant is enforced on every call whatever a client cached.
const LISTING_TTL_MS: u64 = 300_000;

/// `initialize` (handshake era): the client's revision when we speak it, else our newest.
fn initialize(params: Value) -> Result<Value, RpcError> {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::new(
                jsonrpc::INVALID_PARAMS,
                "Invalid params: `protocolVersion` is required",
            )
        })?;
    Ok(json!({
        "protocolVersion": negotiate(requested),
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    }))
}

pub fn negotiate(requested: &str) -> &'static str {
    HANDSHAKE_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(HANDSHAKE_VERSIONS[0])
}

/// `server/discover` (per-request era): the revisions served, the capabilities, the same
/// instructions; the same for every caller, so any cache may share it.
fn discover() -> Value {
    json!({
        "supportedVersions": era::supported_versions(),
        "capabilities": { "tools": {} },
        "instructions": INSTRUCTIONS,
        "ttlMs": LISTING_TTL_MS,
        "cacheScope": "public",
    })
}

/// `tools/list`: the tools the caller's scopes list, ordered by name, never paginated. In the
/// per-request era it is cacheable for the caller's authorization only (it depends on the
/// token's scopes).
fn tools_list(era: Era, scopes: &ScopeSet) -> Value {
    let mut result = json!({ "tools": tools::listed_for(scopes) });
    if era == Era::PerRequest {
        result["ttlMs"] = json!(LISTING_TTL_MS);
        result["cacheScope"] = json!("private");
    }
    result
}

/// Both media types must be listed (wildcards do not count, `q=0` refuses one).
pub fn accepts_json_and_event_stream(req: &HttpRequest) -> bool {
    api_core::accepts(req.headers(), "application/json")
        && api_core::accepts(req.headers(), "text/event-stream")
}

/// A request without `Origin` (every non-browser client) passes; one with `Origin` must
/// name this server's own host (DNS-rebinding defence, as the MCP transport asks).
fn origin_is_ours(req: &HttpRequest) -> bool {
    let Some(origin) = req.headers().get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let info = req.connection_info();
    same_host(origin, info.host())
}

pub fn same_host(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false;
    };
    let authority = authority.trim_end_matches('/');
    let host = host.trim();
    if authority.eq_ignore_ascii_case(host) {
        return true;
    }
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    host.eq_ignore_ascii_case(&format!("{authority}{default_port}"))
        || authority.eq_ignore_ascii_case(&format!("{host}{default_port}"))
}

fn json_body(status: StatusCode, bytes: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(bytes)
}

/// A result, in the era's shape (the per-request era adds `resultType` and the server's name).
fn rpc_result(era: Era, id: &Value, result: Value) -> HttpResponse {
    let result = match (era, result) {
        (Era::PerRequest, Value::Object(map)) => era::complete(map),
        (_, result) => result,
    };
    let response = Response {
        jsonrpc: "2.0",
        id,
        result: Some(result),
        error: None,
    };
    match serde_json::to_vec(&response) {
        Ok(bytes) => json_body(StatusCode::OK, bytes),
        Err(e) => ApiError(Failure::internal(e)).error_response(),
    }
}

fn rpc_error(status: StatusCode, id: &Value, error: RpcError) -> HttpResponse {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result: None,
        error: Some(error),
    };
    match serde_json::to_vec(&response) {
        Ok(bytes) => json_body(status, bytes),
        Err(e) => ApiError(Failure::internal(e)).error_response(),
    }
}

/// A body that is no message we can act on: the JSON-RPC error, at HTTP 400 when no request
/// could be made out of it (-32700, -32600), else at 200.
fn rejection(rejected: Rejection) -> HttpResponse {
    let status = match rejected.error.code {
        jsonrpc::PARSE_ERROR | jsonrpc::INVALID_REQUEST => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    rpc_error(status, &rejected.id, rejected.error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn accepts(values: &[&str]) -> bool {
        let mut req = TestRequest::post();
        for v in values {
            req = req.append_header((header::ACCEPT, *v));
        }
        accepts_json_and_event_stream(&req.to_http_request())
    }

    #[test]
    fn accept_must_list_both_media_types() {
        assert!(accepts(&["application/json, text/event-stream"]));
        assert!(accepts(&["text/event-stream;q=0.9, Application/JSON"]));
        assert!(accepts(&["application/json", "text/event-stream"]));
        assert!(!accepts(&[]));
        assert!(!accepts(&["application/json"]));
        assert!(!accepts(&["text/event-stream"]));
        assert!(!accepts(&["*/*"]));
        assert!(!accepts(&["application/*, text/*"]));
        assert!(!accepts(&["application/json, text/event-stream;q=0"]));
    }

    #[test]
    fn negotiation_echoes_a_known_revision_else_offers_the_newest() {
        for v in HANDSHAKE_VERSIONS {
            assert_eq!(negotiate(v), v);
        }
        assert_eq!(negotiate("2026-07-28"), "2025-11-25");
        assert_eq!(negotiate("1999-01-01"), "2025-11-25");
    }

    #[test]
    fn origin_must_be_this_host() {
        assert!(same_host("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(same_host("https://api.example.com", "api.example.com"));
        assert!(same_host("https://api.example.com", "api.example.com:443"));
        assert!(same_host("http://API.example.com:80", "api.example.com"));
        assert!(!same_host("http://evil.example", "127.0.0.1:8080"));
        assert!(!same_host("null", "127.0.0.1:8080"));
        assert!(!same_host("http://127.0.0.1:9999", "127.0.0.1:8080"));
    }

    #[test]
    fn initialize_requires_a_protocol_version() {
        let error = initialize(json!({})).unwrap_err();
        assert_eq!(error.code, jsonrpc::INVALID_PARAMS);
        let result =
            initialize(json!({"protocolVersion": "2025-06-18", "capabilities": {}})).unwrap();
        assert_eq!(result["protocolVersion"], "2025-06-18");
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(result["serverInfo"]["name"], "idreg");
    }
}
