//! The assistant's routes, `/v1/assistant/*` on the portal's listener: authenticated by the
//! portal session (never a consumer credential), every write with the session's CSRF token
//! and, when sent, the portal's `Origin`. A message's answer is a server-sent-event stream.
//!
//! - `GET /v1/assistant`: whether the assistant is on, its model, and the grants a
//!   conversation may run under;
//! - `POST /v1/assistant/conversations` `{grant_id}` (201), `GET` the person's list;
//! - `GET` / `DELETE /v1/assistant/conversations/{id}` (204);
//! - `POST /v1/assistant/conversations/{id}/messages` `{message}`: `text/event-stream`, the
//!   events `accepted`, `text`, `tool_call`, `tool_result`, then `done` or `error`. A refusal
//!   before the stream starts is the API's JSON error with its status.

use crate::{cookie, fail, same_origin, CSRF_HEADER, SESSION_COOKIE};
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{read_body, AppServices, JsonBody};
use domain::assistant::conversation::{Block, Conversation, Role};
use domain::assistant::ports::Citation;
use domain::assistant::service::{
    AssistantEvent, AssistantService, AssistantSink, ConversationView,
};
use domain::portal::service::PortalCaller;
use domain::Failure;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The assistant's use cases, as app data the binary sets on the portal.
pub type Assistant = web::Data<Arc<AssistantService>>;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/assistant", web::get().to(status))
        .route("/v1/assistant/conversations", web::post().to(start))
        .route("/v1/assistant/conversations", web::get().to(list))
        .route("/v1/assistant/conversations/{id}", web::get().to(read))
        .route("/v1/assistant/conversations/{id}", web::delete().to(delete))
        .route(
            "/v1/assistant/conversations/{id}/messages",
            web::post().to(message),
        );
}

pub(crate) fn assistant(req: &HttpRequest) -> Result<Arc<AssistantService>, Failure> {
    req.app_data::<Assistant>()
        .map(|d| d.get_ref().clone())
        .ok_or_else(|| Failure::internal("the portal is served without the assistant"))
}

/// The signed-in person; for a write, also its CSRF token and origin.
async fn person(
    req: &HttpRequest,
    services: &AppServices,
    write: bool,
) -> Result<PortalCaller, Failure> {
    if write {
        same_origin(req)?;
    }
    let caller = services
        .portal_sign_in
        .caller(cookie(req, SESSION_COOKIE).as_deref())
        .await?;
    if write {
        let presented = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        services.portal_sign_in.check_csrf(&caller, presented)?;
    }
    Ok(caller)
}

pub(crate) fn conversation_json(c: &Conversation) -> Value {
    json!({
        "id": c.id.to_string(),
        "title": c.title,
        "grant_id": c.grant_id.to_string(),
        "created_at": api_core::dto::timestamp(c.created_at),
        "updated_at": api_core::dto::timestamp(c.updated_at),
    })
}

fn parsed_or_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

fn view_json(v: &ConversationView) -> Value {
    let turns: Vec<Value> = v
        .turns
        .iter()
        .map(|t| {
            let blocks: Vec<Value> = t
                .turn
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Text(text) => json!({"type": "text", "text": text}),
                    Block::ToolUse { id, name, input } => json!({
                        "type": "tool_call", "id": id, "name": name, "input": parsed_or_text(input)
                    }),
                    Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => json!({
                        "type": "tool_result", "id": tool_use_id, "ok": !is_error,
                        "content": parsed_or_text(content)
                    }),
                })
                .collect();
            json!({
                "seq": t.seq,
                "role": match t.turn.role { Role::User => "user", Role::Assistant => "assistant" },
                "at": api_core::dto::timestamp(t.at),
                "blocks": blocks,
            })
        })
        .collect();
    let mut out = conversation_json(&v.conversation);
    out["turns"] = Value::Array(turns);
    out
}

pub(crate) fn citation_json(c: &Citation) -> Value {
    match c {
        Citation::Call(r) => json!({"call_ref": r}),
        Citation::ListVersion(v) => json!({"list_version": v}),
    }
}

/// `GET /v1/assistant`.
async fn status(req: HttpRequest, services: AppServices) -> HttpResponse {
    let answer = async {
        let caller = person(&req, &services, false).await?;
        let assistant = assistant(&req)?;
        let live: Vec<Value> = assistant
            .grants(&caller)
            .await?
            .iter()
            .map(|e| {
                json!({
                    "grant_id": e.grant.id.to_string(),
                    "client_id": e.grant.client_id.to_string(),
                    "scopes": e.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    "countries": e.grant.countries.iter().map(|c| c.prefix()).collect::<Vec<_>>(),
                })
            })
            .collect();
        Ok::<_, Failure>(json!({
            "enabled": assistant.model_name().is_some(),
            "model": assistant.model_name(),
            "grants": live,
        }))
    }
    .await;
    match answer {
        Ok(v) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(v),
        Err(f) => fail(&f),
    }
}

/// `POST /v1/assistant/conversations` `{grant_id}`.
async fn start(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    let answer = async {
        let caller = person(&req, &services, true).await?;
        let grant = JsonBody::parse(&read_body(payload).await?)?.required_str("grant_id")?;
        assistant(&req)?.start(&caller, &grant).await
    }
    .await;
    match answer {
        Ok(c) => HttpResponse::Created().json(conversation_json(&c)),
        Err(f) => fail(&f),
    }
}

/// `GET /v1/assistant/conversations`.
async fn list(req: HttpRequest, services: AppServices) -> HttpResponse {
    let answer = async {
        let caller = person(&req, &services, false).await?;
        assistant(&req)?.list(&caller).await
    }
    .await;
    match answer {
        Ok(list) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(json!({"data": list.iter().map(conversation_json).collect::<Vec<_>>()})),
        Err(f) => fail(&f),
    }
}

/// `GET /v1/assistant/conversations/{id}`.
async fn read(req: HttpRequest, id: web::Path<String>, services: AppServices) -> HttpResponse {
    let answer = async {
        let caller = person(&req, &services, false).await?;
        assistant(&req)?.read(&caller, &id).await
    }
    .await;
    match answer {
        Ok(v) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(view_json(&v)),
        Err(f) => fail(&f),
    }
}

/// `DELETE /v1/assistant/conversations/{id}`.
async fn delete(req: HttpRequest, id: web::Path<String>, services: AppServices) -> HttpResponse {
    let answer = async {
        let caller = person(&req, &services, true).await?;
        assistant(&req)?.delete(&caller, &id).await
    }
    .await;
    match answer {
        Ok(()) => HttpResponse::NoContent().finish(),
        Err(f) => fail(&f),
    }
}

/// Events on their way to the browser, one SSE frame each.
struct Frames(mpsc::UnboundedSender<Bytes>);

/// One server-sent event: its name and its JSON data on one line.
pub(crate) fn frame(event: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

pub(crate) fn event_frame(event: &AssistantEvent) -> Bytes {
    match event {
        AssistantEvent::Accepted { message, model } => {
            frame("accepted", &json!({"message": message, "model": model}))
        }
        AssistantEvent::Text(t) => frame("text", &json!({ "text": t })),
        AssistantEvent::ToolCall { id, name, input } => frame(
            "tool_call",
            &json!({"id": id, "name": name, "input": parsed_or_text(input)}),
        ),
        AssistantEvent::ToolResult {
            id,
            name,
            outcome,
            citations,
        } => frame(
            "tool_result",
            &match outcome {
                Ok(summary) => json!({
                    "id": id, "name": name, "ok": true, "summary": summary,
                    "cited": citations.iter().map(citation_json).collect::<Vec<_>>(),
                }),
                Err((code, message)) => json!({
                    "id": id, "name": name, "ok": false,
                    "error": code.as_str(), "message": message,
                }),
            },
        ),
        AssistantEvent::Done {
            stop,
            cited,
            calls_left,
        } => frame(
            "done",
            &json!({
                "stop": stop.as_str(),
                "cited": cited.iter().map(citation_json).collect::<Vec<_>>(),
                "calls_left_today": calls_left,
            }),
        ),
        AssistantEvent::Error { code, message } => frame(
            "error",
            &json!({"error": code.as_str(), "message": message}),
        ),
    }
}

impl AssistantSink for Frames {
    fn event(&self, event: AssistantEvent) {
        // A browser gone away closes the channel; the answer still runs to its end and is
        // kept (the person finds it in the conversation).
        let _ = self.0.send(event_frame(&event));
    }
}

/// `POST /v1/assistant/conversations/{id}/messages` `{message}`.
async fn message(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let prepared = async {
        let caller = person(&req, &services, true).await?;
        let text = JsonBody::parse(&read_body(payload).await?)?.required_str("message")?;
        let assistant = assistant(&req)?;
        let prepared = assistant
            .prepare(&api_core::request_context(&req), &caller, &id, &text)
            .await?;
        Ok::<_, Failure>((assistant, prepared))
    }
    .await;
    let (assistant, prepared) = match prepared {
        Ok(p) => p,
        Err(f) => return fail(&f),
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Arc::new(Frames(tx));
    // The answer runs on its own task: a closed browser does not cut it short.
    actix_web::rt::spawn(async move { assistant.answer(prepared, sink).await });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|bytes| (Ok::<_, actix_web::Error>(bytes), rx))
    });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body)
}
