//! OpenAI-compatible chat completions: `POST {base}/v1/chat/completions` with `stream: true`.

use crate::config::LlmConfig;
use crate::http::{truncate, Flow, StreamDecoder, Transport};
use crate::sse::SseEvent;
use crate::wire::{count_field, input_object, messages, schema, str_field, tool_input};
use async_trait::async_trait;
use domain::assistant::conversation::{Block, Role};
use domain::assistant::model::{ModelError, ModelEvent, ModelReply, ModelRequest, StopReason};
use domain::assistant::ports::{LanguageModel, ModelSink};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A model behind an OpenAI-compatible chat-completions endpoint (OpenAI, or a local server:
/// Ollama, vLLM, llama.cpp, LM Studio).
#[derive(Debug)]
pub struct OpenAiCompatModel {
    transport: Transport,
    model: String,
}

impl OpenAiCompatModel {
    /// The model of `config` (whose protocol is not looked at). The error says what is wrong
    /// with the configuration, never the key.
    pub fn new(config: &LlmConfig) -> Result<OpenAiCompatModel, String> {
        let mut headers = HeaderMap::new();
        if let Some(key) = config.api_key.as_deref().filter(|k| !k.is_empty()) {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
                .map_err(|_| "the API key holds characters an HTTP header cannot carry")?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Ok(OpenAiCompatModel {
            transport: Transport::new(config, "/v1/chat/completions", headers)?,
            model: config.model.clone(),
        })
    }
}

#[async_trait]
impl LanguageModel for OpenAiCompatModel {
    async fn stream(
        &self,
        request: &ModelRequest,
        sink: Arc<dyn ModelSink>,
    ) -> Result<ModelReply, ModelError> {
        let body = body(&self.model, request)?;
        let body = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Rejected(format!("the request could not be written: {e}")))?;
        self.transport
            .run(body, &mut Decoder::default(), &*sink)
            .await
    }

    fn model(&self) -> String {
        self.model.clone()
    }
}

/// The request body.
pub(crate) fn body(model: &str, request: &ModelRequest) -> Result<Value, ModelError> {
    let mut wire = Vec::new();
    if !request.system.is_empty() {
        wire.push(json!({"role": "system", "content": request.system}));
    }
    for (role, blocks) in messages(&request.turns) {
        match role {
            Role::User => user_messages(blocks, &mut wire),
            Role::Assistant => wire.push(assistant_message(blocks)),
        }
    }
    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": wire,
    });
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                Ok(json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": schema(tool)?,
                    },
                }))
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        body["tools"] = json!(tools);
    }
    Ok(body)
}

/// A user turn: one `tool` message per result (they must follow the assistant's calls
/// directly), then its text as one `user` message. There is no error flag: a failed result's
/// text goes in as `{"error": ...}`.
fn user_messages(blocks: Vec<Block>, wire: &mut Vec<Value>) {
    let mut texts = Vec::new();
    for block in blocks {
        match block {
            Block::Text(text) => texts.push(text),
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let content = if is_error {
                    let inner =
                        serde_json::from_str::<Value>(&content).unwrap_or(Value::String(content));
                    json!({ "error": inner }).to_string()
                } else {
                    content
                };
                wire.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
            // A tool call in a user turn has no place on this wire.
            Block::ToolUse { .. } => {}
        }
    }
    if !texts.is_empty() {
        wire.push(json!({"role": "user", "content": texts.join("\n\n")}));
    }
}

/// An assistant turn: its text (or `null`) and its tool calls, arguments as a JSON string.
fn assistant_message(blocks: Vec<Block>) -> Value {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block {
            Block::Text(text) => texts.push(text),
            Block::ToolUse { id, name, input } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": input_object(&input).to_string()},
            })),
            Block::ToolResult { .. } => {}
        }
    }
    let mut message = json!({
        "role": "assistant",
        "content": if texts.is_empty() { Value::Null } else { json!(texts.join("\n\n")) },
    });
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    message
}

/// A tool call being streamed.
#[derive(Debug, Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// The stream: chunks until `[DONE]`.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    calls: Vec<Call>,
    /// The wire's `index` → the call in `calls` it currently names.
    by_index: HashMap<u64, usize>,
    /// The tool calls were passed on (at the finish_reason).
    emitted: bool,
    finish: Option<StopReason>,
    done: bool,
    input_tokens: u64,
    output_tokens: u64,
}

impl Decoder {
    /// One `delta.tool_calls` array. A fragment names its call by `index` (its position in the
    /// array when it has none); a fragment with a new `id` at an index in use starts a new call
    /// (servers that number every call 0).
    fn tool_fragments(&mut self, fragments: &[Value]) {
        if self.emitted {
            tracing::warn!("tool-call fragments after the finish_reason, skipped");
            return;
        }
        for (position, fragment) in fragments.iter().enumerate() {
            let index = count_field(fragment, "index").unwrap_or(position as u64);
            let id = str_field(fragment, "id").filter(|id| !id.is_empty());
            let current = self.by_index.get(&index).copied();
            let slot = match (current, id) {
                (Some(at), Some(id))
                    if !self.calls[at].id.is_empty() && self.calls[at].id != id =>
                {
                    None
                }
                (Some(at), _) => Some(at),
                (None, _) => None,
            };
            let at = slot.unwrap_or_else(|| {
                self.calls.push(Call::default());
                self.by_index.insert(index, self.calls.len() - 1);
                self.calls.len() - 1
            });
            let call = &mut self.calls[at];
            if let (Some(id), true) = (id, call.id.is_empty()) {
                call.id = id.to_owned();
            }
            let function = fragment.get("function").unwrap_or(&Value::Null);
            if let Some(name) = str_field(function, "name").filter(|n| !n.is_empty()) {
                if call.name.is_empty() {
                    call.name = name.to_owned();
                }
            }
            if let Some(arguments) = str_field(function, "arguments") {
                call.arguments.push_str(arguments);
            }
        }
    }

    /// Passes the tool calls on, once.
    fn emit(&mut self, sink: &dyn ModelSink) {
        if std::mem::replace(&mut self.emitted, true) {
            return;
        }
        for (n, call) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            sink.event(ModelEvent::ToolUse {
                id: if call.id.is_empty() {
                    format!("call_{n}")
                } else {
                    call.id
                },
                name: call.name,
                input: tool_input(&call.arguments),
            });
        }
    }
}

impl StreamDecoder for Decoder {
    fn event(&mut self, event: &SseEvent, sink: &dyn ModelSink) -> Result<Flow, ModelError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        let chunk: Value = match serde_json::from_str(&event.data) {
            Ok(chunk) => chunk,
            Err(_) => {
                tracing::warn!("a chat-completions chunk that is not JSON, skipped");
                return Ok(Flow::More);
            }
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let kind = str_field(error, "type")
                .or_else(|| str_field(error, "code"))
                .unwrap_or("error");
            let message = str_field(error, "message")
                .or_else(|| error.as_str())
                .unwrap_or_default();
            let text = truncate(&format!("{kind}: {message}"), 300);
            return Err(if kind.contains("overloaded") {
                ModelError::Overloaded(text)
            } else {
                ModelError::Interrupted(text)
            });
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            if let Some(n) = count_field(usage, "prompt_tokens") {
                self.input_tokens = n;
            }
            if let Some(n) = count_field(usage, "completion_tokens") {
                self.output_tokens = n;
            }
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        // One answer is asked for: the choice numbered 0.
        let Some(choice) = choices
            .into_iter()
            .flatten()
            .find(|c| count_field(c, "index").unwrap_or(0) == 0)
        else {
            return Ok(Flow::More);
        };
        if let Some(delta) = choice.get("delta") {
            // `reasoning` and `reasoning_content` are not the answer: not read.
            if let Some(text) = str_field(delta, "content").filter(|t| !t.is_empty()) {
                sink.event(ModelEvent::Text(text.to_owned()));
            }
            if let Some(fragments) = delta.get("tool_calls").and_then(Value::as_array) {
                self.tool_fragments(fragments);
            }
        }
        if let Some(reason) = str_field(choice, "finish_reason") {
            let called = !self.calls.is_empty();
            self.finish = Some(match reason {
                "tool_calls" | "function_call" => StopReason::ToolUse,
                // Some servers say `stop` after calling tools.
                "stop" if called => StopReason::ToolUse,
                "stop" => StopReason::EndTurn,
                "length" => StopReason::MaxTokens,
                _ => StopReason::Other,
            });
            self.emit(sink);
        }
        Ok(Flow::More)
    }

    fn finish(&mut self, sink: &dyn ModelSink) -> Result<ModelReply, ModelError> {
        let stop = match self.finish {
            Some(stop) => stop,
            None if self.done => {
                let called = !self.calls.is_empty();
                self.emit(sink);
                if called {
                    StopReason::ToolUse
                } else {
                    StopReason::EndTurn
                }
            }
            None => {
                return Err(ModelError::Interrupted(
                    "the stream ended before its finish_reason and [DONE]".into(),
                ))
            }
        };
        Ok(ModelReply {
            stop,
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::assistant::conversation::Turn;
    use domain::assistant::model::ToolSpec;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Events(Mutex<Vec<ModelEvent>>);

    impl ModelSink for Events {
        fn event(&self, event: ModelEvent) {
            self.0.lock().unwrap().push(event);
        }
    }

    fn feed(chunks: &[&str]) -> (Result<ModelReply, ModelError>, Vec<ModelEvent>) {
        let sink = Events::default();
        let mut decoder = Decoder::default();
        for data in chunks {
            let event = SseEvent {
                event: "message".into(),
                data: (*data).into(),
            };
            if let Err(e) = decoder.event(&event, &sink) {
                return (Err(e), sink.0.into_inner().unwrap());
            }
        }
        let reply = decoder.finish(&sink);
        (reply, sink.0.into_inner().unwrap())
    }

    fn call(id: &str, name: &str, input: &str) -> ModelEvent {
        ModelEvent::ToolUse {
            id: id.into(),
            name: name.into(),
            input: input.into(),
        }
    }

    #[test]
    fn fragments_without_index_go_by_position() {
        let (reply, events) = feed(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}},{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]);
        assert_eq!(reply.unwrap().stop, StopReason::ToolUse);
        assert_eq!(
            events,
            vec![call("a", "f", r#"{"x":1}"#), call("b", "g", "{}")]
        );
    }

    #[test]
    fn a_new_id_at_an_index_in_use_starts_a_new_call() {
        let (reply, events) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","function":{"name":"g","arguments":"{\"b\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"2}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]);
        // `stop` after tool calls (Ollama) still asks for the tools.
        assert_eq!(reply.unwrap().stop, StopReason::ToolUse);
        assert_eq!(
            events,
            vec![
                call("call_1", "f", r#"{"a":1}"#),
                call("call_2", "g", r#"{"b":2}"#)
            ]
        );
    }

    #[test]
    fn reasoning_is_not_the_answer() {
        let (reply, events) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"reasoning":"hmm","reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Yes."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        ]);
        let reply = reply.unwrap();
        assert_eq!(reply.stop, StopReason::MaxTokens);
        assert_eq!((reply.input_tokens, reply.output_tokens), (3, 4));
        assert_eq!(events, vec![ModelEvent::Text("Yes.".into())]);
    }

    #[test]
    fn an_error_chunk_ends_the_stream() {
        let (reply, _) = feed(&[
            r#"{"choices":[{"index":0,"delta":{"content":"a"}}]}"#,
            r#"{"error":{"message":"boom","type":"server_error"}}"#,
        ]);
        assert!(matches!(reply, Err(ModelError::Interrupted(m)) if m.contains("boom")));
        let (reply, _) = feed(&[r#"{"error":{"message":"busy","type":"overloaded_error"}}"#]);
        assert!(matches!(reply, Err(ModelError::Overloaded(_))));
    }

    #[test]
    fn no_finish_and_no_done_is_an_interruption() {
        let (reply, _) = feed(&[r#"{"choices":[{"index":0,"delta":{"content":"a"}}]}"#]);
        assert!(matches!(reply, Err(ModelError::Interrupted(_))));
    }

    #[test]
    fn the_body_maps_turns_tools_and_results() {
        let request = ModelRequest {
            system: "Be brief.".into(),
            tools: vec![ToolSpec {
                name: "company_profile".into(),
                description: "A company's profile.".into(),
                input_schema: r#"{"type":"object"}"#.into(),
            }],
            turns: vec![
                Turn::user_text("Board of c-42?"),
                Turn {
                    role: Role::Assistant,
                    blocks: vec![
                        Block::ToolUse {
                            id: "call_1".into(),
                            name: "company_profile".into(),
                            input: r#"{"company_id":"c-42"}"#.into(),
                        },
                        Block::ToolUse {
                            id: "call_2".into(),
                            name: "company_profile".into(),
                            input: "not json".into(),
                        },
                    ],
                },
                Turn {
                    role: Role::User,
                    blocks: vec![
                        Block::ToolResult {
                            tool_use_id: "call_1".into(),
                            content: r#"{"board":["A"]}"#.into(),
                            is_error: false,
                        },
                        Block::ToolResult {
                            tool_use_id: "call_2".into(),
                            content: "forbidden".into(),
                            is_error: true,
                        },
                    ],
                },
            ],
            max_tokens: 512,
        };
        assert_eq!(
            body("gpt-x", &request).unwrap(),
            json!({
                "model": "gpt-x",
                "max_tokens": 512,
                "stream": true,
                "stream_options": {"include_usage": true},
                "tools": [{"type": "function", "function": {
                    "name": "company_profile",
                    "description": "A company's profile.",
                    "parameters": {"type": "object"},
                }}],
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Board of c-42?"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "company_profile", "arguments": "{\"company_id\":\"c-42\"}"}},
                        {"id": "call_2", "type": "function", "function": {"name": "company_profile", "arguments": "{}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "{\"board\":[\"A\"]}"},
                    {"role": "tool", "tool_call_id": "call_2", "content": "{\"error\":\"forbidden\"}"},
                ],
            })
        );
    }
}
