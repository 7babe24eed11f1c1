//! The model's script and state: the turns `/control/model/script` queues, what each one
//! plans (a message, an HTTP error, a stream that breaks off), and what the model keeps
//! between requests (the script, the requests received, the ids it hands out). Nothing here
//! speaks HTTP: `model.rs` answers the wire, the sandbox's state holds a [`ModelState`].

use crate::util::lock;
use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// The pause between two events of a stream unless a turn sets `delay_ms`.
pub const DEFAULT_DELAY_MS: u64 = 5;

/// One accepted request, as `GET /control/model/requests` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelRequestRecord {
    /// When it was received (RFC 3339, UTC, milliseconds).
    pub received_at: String,
    /// The request body, parsed, whole.
    pub body: Value,
}

/// The model's part of a running sandbox.
pub(crate) struct ModelState {
    pub(super) script: Mutex<VecDeque<ScriptTurn>>,
    pub(super) requests: Mutex<Vec<ModelRequestRecord>>,
    pub(super) messages: AtomicU64,
    pub(super) tools: AtomicU64,
    pub(super) request_ids: AtomicU64,
    /// Turns true when the sandbox stops: stalls and streams end early.
    pub(super) shutdown: watch::Receiver<bool>,
}

impl ModelState {
    pub fn new(shutdown: watch::Receiver<bool>) -> Self {
        ModelState {
            script: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            messages: AtomicU64::new(0),
            tools: AtomicU64::new(0),
            request_ids: AtomicU64::new(0),
            shutdown,
        }
    }

    /// Appends turns to the script: all of them, or none when one is not a valid turn (the
    /// error names it by its position, from 0).
    pub fn append_script(&self, turns: Vec<Value>) -> Result<(), String> {
        let parsed = turns
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                let turn: ScriptTurn =
                    serde_json::from_value(v).map_err(|e| format!("turn {i}: {e}"))?;
                turn.plan().map_err(|e| format!("turn {i}: {e}"))?;
                Ok(turn)
            })
            .collect::<Result<Vec<_>, String>>()?;
        lock(&self.script).extend(parsed);
        Ok(())
    }

    /// The turns not yet used, next first.
    pub fn script(&self) -> Vec<Value> {
        lock(&self.script)
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
            .collect()
    }

    pub fn clear_script(&self) {
        lock(&self.script).clear();
    }

    /// The accepted requests, oldest first.
    pub fn requests(&self) -> Vec<ModelRequestRecord> {
        lock(&self.requests).clone()
    }

    pub fn clear_requests(&self) {
        lock(&self.requests).clear();
    }

    /// Script and recorded requests emptied, ids counted from 1 again.
    pub fn reset(&self) {
        self.clear_script();
        self.clear_requests();
        for counter in [&self.messages, &self.tools, &self.request_ids] {
            counter.store(0, Ordering::Relaxed);
        }
    }

    pub(super) fn next_turn(&self) -> Option<ScriptTurn> {
        lock(&self.script).pop_front()
    }

    pub(super) fn record(&self, body: Value) {
        lock(&self.requests).push(ModelRequestRecord {
            received_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            body,
        });
    }

    pub(super) fn next_request_id(&self) -> String {
        format!(
            "req_sandbox_{}",
            self.request_ids.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    pub(super) fn next_message_id(&self) -> String {
        format!(
            "msg_sandbox_{}",
            self.messages.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    pub(super) fn next_tool_id(&self) -> String {
        format!(
            "toolu_sandbox_{}",
            self.tools.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    /// Gives the tool blocks their ids.
    pub(super) fn blocks(&self, parts: Vec<Part>) -> Vec<Block> {
        parts
            .into_iter()
            .map(|p| match p {
                Part::Text(text) => Block::Text(text),
                Part::Tool { name, input } => Block::Tool {
                    id: self.next_tool_id(),
                    name,
                    input,
                },
                Part::CutTool { name, prefix } => Block::CutTool {
                    id: self.next_tool_id(),
                    name,
                    prefix,
                },
            })
            .collect()
    }

    /// Sleeps `d`, or less when the sandbox stops. Returns false when cut short.
    pub(super) async fn pause(&self, d: Duration) -> bool {
        pause(self.shutdown.clone(), d).await
    }
}

pub(super) async fn pause(mut shutdown: watch::Receiver<bool>, d: Duration) -> bool {
    if d.is_zero() {
        return true;
    }
    if *shutdown.borrow() {
        return false;
    }
    tokio::select! {
        _ = tokio::time::sleep(d) => true,
        _ = shutdown.changed() => false,
    }
}

// ---------------------------------------------------------------------------------------
// The script.
// ---------------------------------------------------------------------------------------

/// One scripted turn (an element of the array `POST /control/model/script` takes). Exactly
/// one of `text` (alone), `tool_calls`, `truncated_tool`, `status`, `stream_error` and
/// `cut_off` says what it is; `text` may also preface tool calls or be the text streamed
/// before a stream breaks off. The README lists the forms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScriptTurn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) tool_calls: Option<Vec<ScriptToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) truncated_tool: Option<TruncatedTool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) status: Option<u16>,
    /// Seconds, for the `retry-after` header of a `status` turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) retry_after: Option<u64>,
    /// The `error.type` of the `error` event that ends the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stream_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) cut_off: Option<bool>,
    /// Wait before answering anything (headers included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stall_ms: Option<u64>,
    /// Wait after `message_start` (streams only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stall_after_start_ms: Option<u64>,
    /// The pause between two events (default [`DEFAULT_DELAY_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) delay_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScriptToolCall {
    pub(super) name: String,
    #[serde(default = "empty_object")]
    pub(super) input: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TruncatedTool {
    pub(super) name: String,
    /// The start of the input JSON, where the model was cut off.
    pub(super) input_prefix: String,
}

pub(super) fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// How one request is answered.
pub(super) struct Plan {
    pub(super) reply: Reply,
    pub(super) stall: Duration,
    pub(super) stall_after_start: Duration,
    pub(super) delay: Duration,
}

pub(super) enum Reply {
    /// A whole message.
    Message {
        parts: Vec<Part>,
        stop: &'static str,
    },
    /// An HTTP error, before anything streams.
    Status {
        status: StatusCode,
        retry_after: Option<u64>,
    },
    /// A stream that starts, streams some text, then ends with an `error` event (`error`
    /// set) or just ends.
    Broken { text: String, error: Option<String> },
}

/// A content block to answer, before its id is given.
pub(super) enum Part {
    Text(String),
    Tool {
        name: String,
        input: Value,
    },
    /// A tool call the model was cut off in: its input is an unfinished JSON text.
    CutTool {
        name: String,
        prefix: String,
    },
}

/// A content block with its id.
pub(super) enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        input: Value,
    },
    CutTool {
        id: String,
        name: String,
        prefix: String,
    },
}

/// The text streamed before a broken stream ends, unless the turn gives one.
pub(super) const BROKEN_TEXT: &str = "Let me check the register for";

impl ScriptTurn {
    /// What the turn answers, or why it is not a valid turn.
    pub(super) fn plan(&self) -> Result<Plan, String> {
        let cut_off = self.cut_off == Some(true);
        let kinds = [
            self.tool_calls.is_some(),
            self.truncated_tool.is_some(),
            self.status.is_some(),
            self.stream_error.is_some(),
            cut_off,
        ]
        .into_iter()
        .filter(|k| *k)
        .count();
        if kinds > 1 {
            return Err(
                "give only one of tool_calls, truncated_tool, status, stream_error and \
                 cut_off"
                    .into(),
            );
        }
        if self.retry_after.is_some() && self.status.is_none() {
            return Err("retry_after goes with status".into());
        }
        let text = self.text.clone();
        let reply = if let Some(calls) = &self.tool_calls {
            if calls.is_empty() {
                return Err("tool_calls is empty".into());
            }
            let mut parts: Vec<Part> = text
                .filter(|t| !t.is_empty())
                .map(Part::Text)
                .into_iter()
                .collect();
            for c in calls {
                if c.name.is_empty() {
                    return Err("a tool call needs a name".into());
                }
                if !c.input.is_object() {
                    return Err(format!("the input of {} must be a JSON object", c.name));
                }
                parts.push(Part::Tool {
                    name: c.name.clone(),
                    input: c.input.clone(),
                });
            }
            Reply::Message {
                parts,
                stop: "tool_use",
            }
        } else if let Some(t) = &self.truncated_tool {
            if t.name.is_empty() {
                return Err("truncated_tool needs a name".into());
            }
            let mut parts: Vec<Part> = text
                .filter(|t| !t.is_empty())
                .map(Part::Text)
                .into_iter()
                .collect();
            parts.push(Part::CutTool {
                name: t.name.clone(),
                prefix: t.input_prefix.clone(),
            });
            Reply::Message {
                parts,
                stop: "max_tokens",
            }
        } else if let Some(status) = self.status {
            if text.is_some() {
                return Err("a status turn has no text".into());
            }
            let status = StatusCode::from_u16(status)
                .ok()
                .filter(|s| s.is_client_error() || s.is_server_error())
                .ok_or_else(|| format!("status must be 400..=599, not {status}"))?;
            Reply::Status {
                status,
                retry_after: self.retry_after,
            }
        } else if let Some(error) = &self.stream_error {
            if error.is_empty() {
                return Err("stream_error names an error type, e.g. overloaded_error".into());
            }
            Reply::Broken {
                text: text.unwrap_or_else(|| BROKEN_TEXT.into()),
                error: Some(error.clone()),
            }
        } else if cut_off {
            Reply::Broken {
                text: text.unwrap_or_else(|| BROKEN_TEXT.into()),
                error: None,
            }
        } else if let Some(text) = text {
            Reply::Message {
                parts: vec![Part::Text(text)],
                stop: "end_turn",
            }
        } else {
            return Err(
                "a turn needs one of text, tool_calls, truncated_tool, status, \
                 stream_error or cut_off"
                    .into(),
            );
        };
        Ok(Plan {
            reply,
            stall: Duration::from_millis(self.stall_ms.unwrap_or(0)),
            stall_after_start: Duration::from_millis(self.stall_after_start_ms.unwrap_or(0)),
            delay: Duration::from_millis(self.delay_ms.unwrap_or(DEFAULT_DELAY_MS)),
        })
    }
}

// ---------------------------------------------------------------------------------------
// The wire format.
// ---------------------------------------------------------------------------------------
