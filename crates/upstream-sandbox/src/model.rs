//! A language model speaking the Anthropic Messages API, under [`crate::MODEL_PREFIX`]:
//! `POST /anthropic/v1/messages`, answered as one JSON `Message` or, with `"stream": true`, as
//! server-sent events sent one by one with a short pause between them.
//!
//! It is a test upstream and knows no language. What it answers is scripted through the
//! control API: `/control/model/script` holds a queue of turns (a text, tool calls, an HTTP
//! error, a stream that breaks off, ...), and each accepted request takes the first. With an
//! empty script a small deterministic default model answers instead ([`default_model`]), so
//! the portal assistant can be demonstrated without scripting: it calls idreg's company and
//! person tools for an organisation number or an identifier ref it finds in the question, and
//! summarises the tool results it is sent back, citing their evidence.
//!
//! A request is checked in the API's order: the key (`x-api-key`, or `Authorization: Bearer`,
//! equal to [`crate::MODEL_API_KEY`]; else 401), the `anthropic-version` header (else 400),
//! then the body (`model`, `max_tokens`, `messages`; else 400). Errors have the API's shape,
//! `{"type":"error","error":{"type","message"},"request_id":"req_…"}`, and every answer carries
//! a `request-id` header. Every accepted body is kept, whole and in order, for
//! `/control/model/requests`.
//!
//! Requests run through the fault injector as the source `model` (an armed `http_5xx` fault
//! answers in the API's error shape, e.g. 529 `overloaded_error`).

mod default_model;
pub(crate) mod script;

use script::{empty_object, pause, Block, Plan, Reply};
pub use script::{ModelRequestRecord, DEFAULT_DELAY_MS};

use crate::faults::{Source, Upstream};
use crate::state::SandboxState;
use crate::MODEL_PREFIX;
use actix_web::body::{BodySize, MessageBody};
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// Path of the Messages endpoint under [`crate::MODEL_PREFIX`].
pub const MESSAGES_PATH: &str = "/v1/messages";

/// The largest request body taken (the hosted API's limit); larger ones get 413.
const MAX_BODY: usize = 32 * 1024 * 1024;

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(MODEL_PREFIX)
            .service(web::resource(MESSAGES_PATH).route(web::post().to(messages)))
            .default_service(web::to(not_found)),
    );
}

/// The model as the fault injector sees it.
pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Model,
    error: fault_error,
    field_fel: None,
};

// ---------------------------------------------------------------------------------------
// State: the script, the recorded requests, the id counters.
// ---------------------------------------------------------------------------------------

/// A `Message` (the non-streaming answer, and `message_start`'s `message`).
#[derive(Serialize)]
struct MessageObject {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'static str,
    model: String,
    content: Vec<ContentBlock>,
    stop_reason: Option<&'static str>,
    stop_sequence: Option<String>,
    usage: Usage,
}

#[derive(Serialize)]
struct Usage {
    input_tokens: u64,
    output_tokens: u64,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Delta<'a> {
    TextDelta { text: &'a str },
    InputJsonDelta { partial_json: &'a str },
}

#[derive(Serialize)]
struct StopDelta {
    stop_reason: &'static str,
    stop_sequence: Option<String>,
}

#[derive(Serialize)]
struct OutputUsage {
    output_tokens: u64,
}

#[derive(Serialize)]
struct ErrorObject {
    #[serde(rename = "type")]
    kind: String,
    message: String,
}

/// The body of an HTTP error.
#[derive(Serialize)]
struct ErrorBody {
    #[serde(rename = "type")]
    kind: &'static str,
    error: ErrorObject,
    request_id: String,
}

/// One server-sent event; its `type` is also the SSE event name.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event<'a> {
    MessageStart {
        message: MessageObject,
    },
    ContentBlockStart {
        index: usize,
        content_block: ContentBlock,
    },
    Ping,
    ContentBlockDelta {
        index: usize,
        delta: Delta<'a>,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: StopDelta,
        usage: OutputUsage,
    },
    MessageStop,
    Error {
        error: ErrorObject,
    },
}

impl Event<'_> {
    fn name(&self) -> &'static str {
        match self {
            Event::MessageStart { .. } => "message_start",
            Event::ContentBlockStart { .. } => "content_block_start",
            Event::Ping => "ping",
            Event::ContentBlockDelta { .. } => "content_block_delta",
            Event::ContentBlockStop { .. } => "content_block_stop",
            Event::MessageDelta { .. } => "message_delta",
            Event::MessageStop => "message_stop",
            Event::Error { .. } => "error",
        }
    }

    /// `event: <type>`, `data: <json>`, blank line.
    fn frame(&self) -> Bytes {
        let data = match self {
            // Spaced as the hosted API sends it: the data is JSON, not byte-normalised JSON.
            Event::Ping => r#"{"type": "ping"}"#.to_owned(),
            ev => serde_json::to_string(ev).unwrap_or_default(),
        };
        Bytes::from(format!("event: {}\ndata: {data}\n\n", self.name()))
    }
}

/// A rough token count: a token per four characters, at least one.
fn tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
}

fn output_tokens(blocks: &[Block]) -> u64 {
    tokens(
        blocks
            .iter()
            .map(|b| match b {
                Block::Text(t) => t.chars().count(),
                Block::Tool { input, .. } => input.to_string().chars().count(),
                Block::CutTool { prefix, .. } => prefix.chars().count(),
            })
            .sum(),
    )
}

/// Cuts a text into a few deltas (at most four) at word starts.
fn text_pieces(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let starts: Vec<usize> = text
        .match_indices(' ')
        .map(|(i, _)| i + 1)
        .filter(|&i| i < text.len())
        .collect();
    let words = starts.len() + 1;
    let parts = words.min(4);
    let mut pieces = Vec::with_capacity(parts);
    let mut from = 0;
    for k in 1..parts {
        let cut = starts[k * words / parts - 1];
        pieces.push(&text[from..cut]);
        from = cut;
    }
    pieces.push(&text[from..]);
    pieces
}

/// Cuts a tool's input JSON as a model streams it: an empty first fragment, then four pieces
/// cut anywhere (inside keys and strings too), so a client must join them before parsing.
fn json_fragments(json: &str) -> Vec<&str> {
    let mut out = vec![""];
    let mut from = 0;
    for k in 1..=4 {
        let mut cut = json.len() * k / 4;
        while !json.is_char_boundary(cut) {
            cut += 1;
        }
        if cut > from {
            out.push(&json[from..cut]);
            from = cut;
        }
    }
    out
}

/// What the answer is about, from the request.
struct Meta {
    id: String,
    model: String,
    input_tokens: u64,
}

/// How a stream ends.
enum End {
    /// `message_delta` with the stop reason, then `message_stop`.
    Stop(&'static str),
    /// An `error` event of this type, with the last block left open.
    Error(String),
    /// Nothing more: the last block is left open and the body ends.
    Cut,
}

fn stream_error_message(kind: &str) -> String {
    match kind {
        "overloaded_error" => "Overloaded".into(),
        other => format!("{other} (scripted by the sandbox)"),
    }
}

/// The events of one streamed answer, framed.
fn stream_events(meta: Meta, blocks: &[Block], end: End) -> Vec<Bytes> {
    let output = output_tokens(blocks);
    let mut events = vec![Event::MessageStart {
        message: MessageObject {
            id: meta.id,
            kind: "message",
            role: "assistant",
            model: meta.model,
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            usage: Usage {
                input_tokens: meta.input_tokens,
                output_tokens: 1,
            },
        },
    }
    .frame()];
    let open_end = !matches!(end, End::Stop(_));
    for (index, block) in blocks.iter().enumerate() {
        let start = match block {
            Block::Text(_) => ContentBlock::Text {
                text: String::new(),
            },
            Block::Tool { id, name, .. } | Block::CutTool { id, name, .. } => {
                ContentBlock::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: empty_object(),
                }
            }
        };
        events.push(
            Event::ContentBlockStart {
                index,
                content_block: start,
            }
            .frame(),
        );
        if index == 0 {
            events.push(Event::Ping.frame());
        }
        let json;
        let deltas: Vec<Delta> = match block {
            Block::Text(text) => text_pieces(text)
                .into_iter()
                .map(|text| Delta::TextDelta { text })
                .collect(),
            Block::Tool { input, .. } => {
                json = input.to_string();
                json_fragments(&json)
                    .into_iter()
                    .map(|partial_json| Delta::InputJsonDelta { partial_json })
                    .collect()
            }
            Block::CutTool { prefix, .. } => json_fragments(prefix)
                .into_iter()
                .map(|partial_json| Delta::InputJsonDelta { partial_json })
                .collect(),
        };
        events.extend(
            deltas
                .into_iter()
                .map(|delta| Event::ContentBlockDelta { index, delta }.frame()),
        );
        // A block the model was cut off in is not closed (as the hosted API streams it), nor
        // is the last block of a broken stream.
        let last = index + 1 == blocks.len();
        let left_open = matches!(block, Block::CutTool { .. }) || (last && open_end);
        if !left_open {
            events.push(Event::ContentBlockStop { index }.frame());
        }
    }
    match end {
        End::Stop(stop_reason) => {
            events.push(
                Event::MessageDelta {
                    delta: StopDelta {
                        stop_reason,
                        stop_sequence: None,
                    },
                    usage: OutputUsage {
                        output_tokens: output,
                    },
                }
                .frame(),
            );
            events.push(Event::MessageStop.frame());
        }
        End::Error(kind) => events.push(
            Event::Error {
                error: ErrorObject {
                    message: stream_error_message(&kind),
                    kind,
                },
            }
            .frame(),
        ),
        End::Cut => {}
    }
    events
}

/// The non-streaming answer.
fn message_object(meta: Meta, blocks: Vec<Block>, stop: &'static str) -> MessageObject {
    let output = output_tokens(&blocks);
    MessageObject {
        id: meta.id,
        kind: "message",
        role: "assistant",
        model: meta.model,
        content: blocks
            .into_iter()
            .map(|b| match b {
                Block::Text(text) => ContentBlock::Text { text },
                Block::Tool { id, name, input } => ContentBlock::ToolUse { id, name, input },
                // Cut off before its input was whole: the block carries no input.
                Block::CutTool { id, name, .. } => ContentBlock::ToolUse {
                    id,
                    name,
                    input: empty_object(),
                },
            })
            .collect(),
        stop_reason: Some(stop),
        stop_sequence: None,
        usage: Usage {
            input_tokens: meta.input_tokens,
            output_tokens: output,
        },
    }
}

/// The API's error type for an HTTP status.
fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    }
}

/// The HTTP status of an error type (a non-streaming answer to a `stream_error` turn).
fn error_status(kind: &str) -> StatusCode {
    let code = match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    };
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn error_response(status: StatusCode, message: &str, request_id: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header(("request-id", request_id))
        .json(ErrorBody {
            kind: "error",
            error: ErrorObject {
                kind: error_type(status).into(),
                message: message.into(),
            },
            request_id: request_id.into(),
        })
}

/// A scripted error's message.
fn scripted_message(status: StatusCode) -> String {
    let reason = match status.as_u16() {
        529 => "Overloaded",
        _ => status.canonical_reason().unwrap_or("Error"),
    };
    format!("{reason} (scripted by the sandbox)")
}

/// The request id of a request (set by [`messages`] before anything else runs).
#[derive(Clone)]
struct RequestId(String);

/// An armed fault's answer, in the API's error shape.
fn fault_error(status: StatusCode, req: &HttpRequest) -> HttpResponse {
    let id = req
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_else(|| "req_sandbox_fault".into());
    let message = match status {
        StatusCode::GATEWAY_TIMEOUT => "Request timed out (sandbox fault)".to_owned(),
        s => scripted_message(s).replace("scripted by the sandbox", "sandbox fault"),
    };
    error_response(status, &message, &id)
}

// ---------------------------------------------------------------------------------------
// The streamed body.
// ---------------------------------------------------------------------------------------

/// A response body fed event by event by a task (the task pauses between events; the body
/// ends when the task is done, and the task stops when the client goes away).
struct EventStream {
    rx: mpsc::Receiver<Bytes>,
}

impl MessageBody for EventStream {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Infallible>>> {
        self.rx.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}

/// A `200 text/event-stream` answer sending `events` one by one: the first at once, the
/// second after `stall_after_start + delay`, every other after `delay`.
fn event_stream(
    events: Vec<Bytes>,
    delay: Duration,
    stall_after_start: Duration,
    shutdown: watch::Receiver<bool>,
    request_id: &str,
) -> HttpResponse {
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        for (i, event) in events.into_iter().enumerate() {
            let wait = match i {
                0 => Duration::ZERO,
                1 => stall_after_start + delay,
                _ => delay,
            };
            if !pause(shutdown.clone(), wait).await || tx.send(event).await.is_err() {
                break;
            }
        }
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("cache-control", "no-cache"))
        .insert_header(("request-id", request_id))
        .body(EventStream { rx })
}

// ---------------------------------------------------------------------------------------
// The routes.
// ---------------------------------------------------------------------------------------

async fn not_found(state: web::Data<SandboxState>) -> HttpResponse {
    let id = state.model.next_request_id();
    error_response(StatusCode::NOT_FOUND, "Not found", &id)
}

/// `POST /anthropic/v1/messages`.
async fn messages(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    payload: web::Payload,
) -> HttpResponse {
    let request_id = state.model.next_request_id();
    req.extensions_mut().insert(RequestId(request_id.clone()));
    let st = state.clone();
    let r = req.clone();
    let id = request_id.clone();
    let mut resp = state
        .faults
        .guarded(&UPSTREAM, &req, move |_| async move {
            answer(&st, &r, payload, &id).await
        })
        .await;
    if !resp.headers().contains_key("request-id") {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&request_id) {
            resp.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static("request-id"),
                v,
            );
        }
    }
    resp
}

fn authorised(req: &HttpRequest) -> bool {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    header("x-api-key") == Some(crate::MODEL_API_KEY)
        || header("authorization")
            .and_then(|a| a.strip_prefix("Bearer "))
            .is_some_and(|t| t.trim() == crate::MODEL_API_KEY)
}

/// Checks a request body; the error says what is wrong.
fn check_body(body: &Value) -> Result<(), String> {
    let Some(obj) = body.as_object() else {
        return Err("the body must be a JSON object".into());
    };
    match obj.get("model") {
        Some(Value::String(m)) if !m.is_empty() => {}
        Some(_) => return Err("model: must be a non-empty string".into()),
        None => return Err("model: field required".into()),
    }
    match obj.get("max_tokens") {
        Some(v) if v.as_u64().is_some_and(|n| n > 0) => {}
        Some(_) => return Err("max_tokens: must be a positive integer".into()),
        None => return Err("max_tokens: field required".into()),
    }
    let messages = match obj.get("messages") {
        Some(Value::Array(m)) if !m.is_empty() => m,
        Some(Value::Array(_)) => return Err("messages: at least one message is required".into()),
        Some(_) => return Err("messages: must be an array".into()),
        None => return Err("messages: field required".into()),
    };
    for (i, m) in messages.iter().enumerate() {
        match m.get("role").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            Some(other) => {
                return Err(format!(
                    "messages.{i}.role: must be user or assistant, not {other}"
                ))
            }
            None => return Err(format!("messages.{i}.role: field required")),
        }
        match m.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(blocks)) => {
                if let Some(j) = blocks
                    .iter()
                    .position(|b| b.get("type").and_then(Value::as_str).is_none())
                {
                    return Err(format!(
                        "messages.{i}.content.{j}: a content block needs a type"
                    ));
                }
            }
            Some(_) => {
                return Err(format!(
                    "messages.{i}.content: must be a string or an array of content blocks"
                ))
            }
            None => return Err(format!("messages.{i}.content: field required")),
        }
    }
    match obj.get("system") {
        None | Some(Value::String(_) | Value::Array(_)) => {}
        Some(_) => return Err("system: must be a string or an array of text blocks".into()),
    }
    match obj.get("stream") {
        None | Some(Value::Bool(_)) => {}
        Some(_) => return Err("stream: must be a boolean".into()),
    }
    match obj.get("tools") {
        None => {}
        Some(Value::Array(tools)) => {
            if let Some(i) = tools
                .iter()
                .position(|t| t.get("name").and_then(Value::as_str).is_none())
            {
                return Err(format!("tools.{i}.name: field required"));
            }
        }
        Some(_) => return Err("tools: must be an array".into()),
    }
    match obj.get("tool_choice") {
        None | Some(Value::Object(_)) => {}
        Some(_) => return Err("tool_choice: must be an object".into()),
    }
    Ok(())
}

async fn answer(
    state: &SandboxState,
    req: &HttpRequest,
    payload: web::Payload,
    request_id: &str,
) -> HttpResponse {
    let bad = |message: &str| error_response(StatusCode::BAD_REQUEST, message, request_id);
    // Read first, so that a refused request leaves the connection usable.
    let read = payload.to_bytes_limited(MAX_BODY).await;
    if !authorised(req) {
        return error_response(StatusCode::UNAUTHORIZED, "invalid x-api-key", request_id);
    }
    if !req.headers().contains_key("anthropic-version") {
        return bad("anthropic-version: header is required");
    }
    let bytes = match read {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return bad(&format!("the body could not be read: {e}")),
        Err(_) => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Request exceeds the maximum allowed number of bytes",
                request_id,
            )
        }
    };
    let body: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return bad(&format!("the body is not valid JSON: {e}")),
    };
    if let Err(message) = check_body(&body) {
        return bad(&message);
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let streaming = body.get("stream").and_then(Value::as_bool) == Some(true);
    let input_tokens = tokens(bytes.len());

    let plan = match state.model.next_turn() {
        Some(turn) => match turn.plan() {
            Ok(plan) => plan,
            Err(e) => {
                return error_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("invalid scripted turn: {e}"),
                    request_id,
                )
            }
        },
        None => {
            let (parts, stop) = default_model::reply(&body);
            Plan {
                reply: Reply::Message { parts, stop },
                stall: Duration::ZERO,
                stall_after_start: Duration::ZERO,
                delay: Duration::from_millis(DEFAULT_DELAY_MS),
            }
        }
    };
    state.model.record(body);
    if !state.model.pause(plan.stall).await {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the sandbox is stopping",
            request_id,
        );
    }

    let meta = || Meta {
        id: state.model.next_message_id(),
        model: model.clone(),
        input_tokens,
    };
    let (blocks, end) = match plan.reply {
        Reply::Status {
            status,
            retry_after,
        } => {
            let mut resp = error_response(status, &scripted_message(status), request_id);
            if let Some(secs) = retry_after {
                resp.headers_mut().insert(
                    actix_web::http::header::RETRY_AFTER,
                    actix_web::http::header::HeaderValue::from(secs),
                );
            }
            return resp;
        }
        Reply::Message { parts, stop } => (state.model.blocks(parts), End::Stop(stop)),
        Reply::Broken { text, error } => {
            let blocks = vec![Block::Text(text)];
            match error {
                Some(kind) => (blocks, End::Error(kind)),
                None => (blocks, End::Cut),
            }
        }
    };
    if streaming {
        return event_stream(
            stream_events(meta(), &blocks, end),
            plan.delay,
            plan.stall_after_start,
            state.model.shutdown.clone(),
            request_id,
        );
    }
    match end {
        End::Stop(stop) => HttpResponse::Ok()
            .insert_header(("request-id", request_id))
            .json(message_object(meta(), blocks, stop)),
        // Not streaming, an error event becomes the HTTP error it stands for ...
        End::Error(kind) => {
            let status = error_status(&kind);
            HttpResponse::build(status)
                .insert_header(("request-id", request_id))
                .json(ErrorBody {
                    kind: "error",
                    error: ErrorObject {
                        message: stream_error_message(&kind),
                        kind,
                    },
                    request_id: request_id.into(),
                })
        }
        // ... and a cut-off answer is half a JSON body.
        End::Cut => {
            let json = serde_json::to_string(&message_object(meta(), blocks, "end_turn"))
                .unwrap_or_default();
            let mut half = json.len() / 2;
            while !json.is_char_boundary(half) {
                half += 1;
            }
            HttpResponse::Ok()
                .content_type("application/json")
                .insert_header(("request-id", request_id))
                .body(json[..half].to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::script::ScriptTurn;
    use super::*;
    use serde_json::json;

    fn turn(v: Value) -> Result<Plan, String> {
        serde_json::from_value::<ScriptTurn>(v)
            .map_err(|e| e.to_string())?
            .plan()
    }

    #[test]
    fn turns_are_checked() {
        assert!(turn(json!({"text": "Hej"})).is_ok());
        assert!(
            turn(json!({"tool_calls": [{"name": "x", "input": {"a": 1}}], "text": "pre"})).is_ok()
        );
        assert!(turn(json!({"truncated_tool": {"name": "x", "input_prefix": "{\"a"}})).is_ok());
        assert!(turn(json!({"status": 429, "retry_after": 3, "stall_ms": 10})).is_ok());
        assert!(turn(json!({"stream_error": "overloaded_error"})).is_ok());
        assert!(turn(json!({"cut_off": true, "delay_ms": 0})).is_ok());

        assert!(turn(json!({})).is_err());
        assert!(turn(json!({"stall_ms": 5})).is_err());
        assert!(turn(json!({"status": 200})).is_err());
        assert!(turn(json!({"status": 500, "text": "no"})).is_err());
        assert!(turn(json!({"retry_after": 1, "text": "no"})).is_err());
        assert!(turn(json!({"tool_calls": []})).is_err());
        assert!(turn(json!({"tool_calls": [{"name": "x", "input": [1]}]})).is_err());
        assert!(turn(json!({"status": 500, "cut_off": true})).is_err());
        assert!(turn(json!({"text": "x", "nope": 1})).is_err());
    }

    #[test]
    fn text_is_cut_at_word_starts() {
        let t = "Here is what the register says about the company.";
        let pieces = text_pieces(t);
        assert_eq!(pieces.len(), 4);
        assert_eq!(pieces.concat(), t);
        assert!(pieces.iter().all(|p| !p.is_empty()));
        assert_eq!(text_pieces("Hej"), ["Hej"]);
        assert_eq!(text_pieces("två ord"), ["två ", "ord"]);
        assert!(text_pieces("").is_empty());
    }

    #[test]
    fn json_is_cut_anywhere_after_an_empty_fragment() {
        let j = r#"{"orgnr":"5560021361","note":"åäö"}"#;
        let f = json_fragments(j);
        assert_eq!(f[0], "");
        assert_eq!(f.len(), 5);
        assert_eq!(f.concat(), j);
        assert_eq!(json_fragments("{}").concat(), "{}");
    }

    #[test]
    fn a_cut_off_tool_block_is_left_open() {
        let meta = Meta {
            id: "msg_sandbox_1".into(),
            model: "m".into(),
            input_tokens: 3,
        };
        let blocks = [
            Block::Text("Looking".into()),
            Block::CutTool {
                id: "toolu_sandbox_1".into(),
                name: "get_company_profile".into(),
                prefix: "{\"orgnr\": \"55".into(),
            },
        ];
        let events: Vec<String> = stream_events(meta, &blocks, End::Stop("max_tokens"))
            .iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect();
        let stops = events
            .iter()
            .filter(|e| e.starts_with("event: content_block_stop"))
            .count();
        assert_eq!(stops, 1);
        assert!(events.last().unwrap().starts_with("event: message_stop"));
        assert!(events[2].contains(r#"data: {"type": "ping"}"#));
    }
}
