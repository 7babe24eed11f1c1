//! The Assistant page: the person's conversations, the open one's transcript, and the
//! question form. It works as plain form posts (the answer shown once complete); its one
//! script (`assets/assistant.js`, the only script the portal serves, allowed on this page
//! alone) streams the answer from `/v1/assistant/*` as it is written.

use crate::assistant::assistant;
use crate::page::{caller, nav, page_with_script, problem, see_other, write};
use crate::views::{
    AssistantGrant, AssistantPage, BlockView, ConversationItem, OpenConversation, TurnView,
};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::AppServices;
use askama::Template;
use domain::assistant::conversation::{Block, Role};
use domain::assistant::ports::Citation;
use domain::assistant::service::{AssistantEvent, AssistantSink, EligibleGrant};
use domain::Failure;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

const SCRIPT: &str = include_str!("../assets/assistant.js");

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/assistant", web::get().to(show))
        .route("/assistant", web::post().to(start))
        .route("/assistant/{id}/messages", web::post().to(ask))
        .route("/assistant/{id}/delete", web::post().to(delete))
        .route("/assets/assistant.js", web::get().to(script));
}

async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "max-age=300"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(SCRIPT)
}

#[derive(Deserialize, Default)]
struct Query {
    #[serde(default)]
    c: Option<String>,
}

/// A tool's result as the page shows it: its summary when the content carries one.
fn result_line(content: &str, is_error: bool) -> String {
    let v: Value = serde_json::from_str(content).unwrap_or(Value::Null);
    if is_error {
        let code = v["error"]["code"].as_str().unwrap_or("error");
        let message = v["error"]["message"].as_str().unwrap_or_default();
        return format!("Refused ({code}): {message}");
    }
    let cited: Vec<String> = api_core::evidence::citations(&v)
        .into_iter()
        .map(|c| match c {
            Citation::Call(r) | Citation::ListVersion(r) => r,
        })
        .collect();
    if cited.is_empty() {
        "Answered.".to_owned()
    } else {
        format!("Answered (evidence: {}).", cited.join(", "))
    }
}

/// `GET /assistant[?c={conversation}]`.
async fn show(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let answer = async {
        let assistant = assistant(&req)?;
        let query: Query = crate::page::query(&req)?;
        let Some(model) = assistant.model_name() else {
            return Ok::<_, Failure>((None, Vec::new(), Vec::new(), None));
        };
        let grants: Vec<AssistantGrant> = assistant
            .grants(&caller)
            .await?
            .into_iter()
            .map(|EligibleGrant { grant: g, scopes }| AssistantGrant {
                id: g.id.to_string(),
                label: format!(
                    "{} ({}) · {} · {}",
                    g.id,
                    if g.client_id.is_test() {
                        "test mode"
                    } else {
                        "live"
                    },
                    scopes
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    g.countries
                        .iter()
                        .map(|c| c.prefix())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect();
        let list = assistant.list(&caller).await?;
        let open = match query.c.as_deref() {
            Some(id) => Some(assistant.read(&caller, id).await?),
            None => None,
        };
        Ok((Some(model), grants, list, open))
    }
    .await;
    let (model, grants, list, open) = match answer {
        Ok(a) => a,
        Err(f) => return problem(&f, Some(&caller), "/assistant"),
    };
    let open_id = open.as_ref().map(|o| o.conversation.id);
    let body = AssistantPage {
        title: "Assistant",
        nav: Some(nav(&caller)),
        csrf: caller.csrf.clone(),
        enabled: model.is_some(),
        model: model.unwrap_or_default(),
        grants,
        conversations: list
            .iter()
            .map(|c| ConversationItem {
                id: c.id.to_string(),
                title: c.title.clone(),
                updated: crate::page::day(c.updated_at),
                current: Some(c.id) == open_id,
            })
            .collect(),
        open: open.map(|v| OpenConversation {
            id: v.conversation.id.to_string(),
            title: v.conversation.title.clone(),
            grant_id: v.conversation.grant_id.to_string(),
            turns: v
                .turns
                .iter()
                .map(|t| {
                    let tools = t.turn.role == Role::User
                        && t.turn
                            .blocks
                            .iter()
                            .all(|b| matches!(b, Block::ToolResult { .. }));
                    let (role, label) = match t.turn.role {
                        Role::User if tools => ("tools", "idreg's tools"),
                        Role::User => ("user", "You"),
                        Role::Assistant => ("assistant", "Assistant"),
                    };
                    TurnView {
                        role,
                        label,
                        blocks: t
                            .turn
                            .blocks
                            .iter()
                            .map(|b| match b {
                                Block::Text(text) => BlockView {
                                    kind: "text",
                                    text: text.clone(),
                                    state: "",
                                },
                                Block::ToolUse { name, .. } => BlockView {
                                    kind: "tool_call",
                                    text: name.clone(),
                                    state: "",
                                },
                                Block::ToolResult {
                                    content, is_error, ..
                                } => BlockView {
                                    kind: "tool_result",
                                    text: result_line(content, *is_error),
                                    state: if *is_error { "failed" } else { "ok" },
                                },
                            })
                            .collect(),
                    }
                })
                .collect(),
        }),
    }
    .render();
    page_with_script(StatusCode::OK, body)
}

/// `POST /assistant` (form): a new conversation under the chosen grant.
async fn start(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    let (caller, form) = match write(&req, payload, &services).await {
        Ok(w) => w,
        Err(f) => return problem(&f, None, "/assistant"),
    };
    let answer = async { assistant(&req)?.start(&caller, form.get("grant_id")).await }.await;
    match answer {
        Ok(c) => see_other(&format!("/assistant?c={}", c.id)),
        Err(f) => problem(&f, Some(&caller), "/assistant"),
    }
}

/// Collects an answer's events (the form post waits for the whole answer).
#[derive(Default)]
struct Collected(std::sync::Mutex<Vec<AssistantEvent>>);

impl AssistantSink for Collected {
    fn event(&self, event: AssistantEvent) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(event);
    }
}

/// `POST /assistant/{id}/messages` (form): answered in full, then back to the conversation.
async fn ask(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let back = format!("/assistant?c={}", urlencode(&id));
    let (caller, form) = match write(&req, payload, &services).await {
        Ok(w) => w,
        Err(f) => return problem(&f, None, &back),
    };
    let answer = async {
        let assistant = assistant(&req)?;
        let prepared = assistant
            .prepare(
                &api_core::request_context(&req),
                &caller,
                &id,
                form.get("message"),
            )
            .await?;
        let events = Arc::new(Collected::default());
        assistant.answer(prepared, events.clone()).await;
        let last = events
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last()
            .cloned();
        match last {
            Some(AssistantEvent::Error { code, message }) => Err(Failure::new(code, message)),
            _ => Ok(()),
        }
    }
    .await;
    match answer {
        Ok(()) => see_other(&back),
        Err(f) => problem(&f, Some(&caller), &back),
    }
}

/// `POST /assistant/{id}/delete` (form).
async fn delete(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let (caller, _) = match write(&req, payload, &services).await {
        Ok(w) => w,
        Err(f) => return problem(&f, None, "/assistant"),
    };
    let answer = async { assistant(&req)?.delete(&caller, &id).await }.await;
    match answer {
        Ok(()) => see_other("/assistant"),
        Err(f) => problem(&f, Some(&caller), "/assistant"),
    }
}

/// A path segment for a link back: the id as sent is never trusted into a URL unescaped.
fn urlencode(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}
