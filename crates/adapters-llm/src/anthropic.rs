//! The Anthropic Messages API: `POST {base}/v1/messages` with `stream: true`.

use crate::config::LlmConfig;
use crate::http::{truncate, Flow, StreamDecoder, Transport};
use crate::sse::SseEvent;
use crate::wire::{count_field, input_object, messages, schema, str_field, tool_input};
use async_trait::async_trait;
use domain::assistant::conversation::{Block, Role};
use domain::assistant::model::{ModelError, ModelEvent, ModelReply, ModelRequest, StopReason};
use domain::assistant::ports::{LanguageModel, ModelSink};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The `anthropic-version` every request names.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A model behind the Anthropic Messages API (Anthropic's own, or a local server speaking
/// it).
#[derive(Debug)]
pub struct AnthropicModel {
    transport: Transport,
    model: String,
}

impl AnthropicModel {
    /// The model of `config` (whose protocol is not looked at). The error says what is wrong
    /// with the configuration, never the key.
    pub fn new(config: &LlmConfig) -> Result<AnthropicModel, String> {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = config.api_key.as_deref().filter(|k| !k.is_empty()) {
            let mut value = HeaderValue::from_str(key)
                .map_err(|_| "the API key holds characters an HTTP header cannot carry")?;
            value.set_sensitive(true);
            headers.insert("x-api-key", value);
        }
        Ok(AnthropicModel {
            transport: Transport::new(config, "/v1/messages", headers)?,
            model: config.model.clone(),
        })
    }
}

#[async_trait]
impl LanguageModel for AnthropicModel {
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
    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens,
        "stream": true,
        "messages": messages(&request.turns)
            .into_iter()
            .map(|(role, blocks)| message(role, blocks))
            .collect::<Vec<_>>(),
    });
    if !request.system.is_empty() {
        body["system"] = json!(request.system);
    }
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                Ok(json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": schema(tool)?,
                }))
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        body["tools"] = json!(tools);
    }
    Ok(body)
}

/// One message. In a user message the tool results come first, as the API requires.
fn message(role: Role, mut blocks: Vec<Block>) -> Value {
    if role == Role::User {
        blocks.sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
    }
    let content: Vec<Value> = blocks
        .into_iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => json!({
                "type": "tool_use",
                "id": id,
                "name": name,
                "input": input_object(&input),
            }),
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => json!({
                "type": "tool_result",
                "tool_use_id": tool_use_id,
                "content": content,
                "is_error": is_error,
            }),
        })
        .collect();
    json!({"role": role.as_str(), "content": content})
}

/// A tool_use block being streamed.
#[derive(Debug)]
struct ToolBlock {
    id: String,
    name: String,
    /// The `input_json_delta` fragments so far.
    input: String,
    /// The input `content_block_start` carried, when it was not the usual empty object.
    start_input: Option<String>,
}

impl ToolBlock {
    fn event(self) -> ModelEvent {
        let input = match (self.input.trim().is_empty(), self.start_input) {
            (true, Some(start)) => start,
            _ => tool_input(&self.input),
        };
        ModelEvent::ToolUse {
            id: self.id,
            name: self.name,
            input,
        }
    }
}

/// The stream, read by `data.type` (the `event:` name only when `type` is missing).
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    tools: BTreeMap<u64, ToolBlock>,
    stop: Option<StopReason>,
    input_tokens: u64,
    output_tokens: u64,
    /// `message_stop` was seen.
    complete: bool,
    /// Some tool call was passed on.
    called: bool,
}

impl Decoder {
    fn usage(&mut self, usage: Option<&Value>) {
        if let Some(usage) = usage {
            if let Some(n) = count_field(usage, "input_tokens") {
                self.input_tokens = n;
            }
            if let Some(n) = count_field(usage, "output_tokens") {
                self.output_tokens = n;
            }
        }
    }

    fn emit(&mut self, block: ToolBlock, sink: &dyn ModelSink) {
        self.called = true;
        sink.event(block.event());
    }
}

impl StreamDecoder for Decoder {
    fn event(&mut self, event: &SseEvent, sink: &dyn ModelSink) -> Result<Flow, ModelError> {
        let data: Value = match serde_json::from_str(&event.data) {
            Ok(data) => data,
            Err(_) => {
                tracing::warn!(event = %event.event, "an Anthropic stream event that is not JSON, skipped");
                return Ok(Flow::More);
            }
        };
        let kind = str_field(&data, "type").unwrap_or(&event.event);
        let index = count_field(&data, "index");
        match kind {
            "message_start" => self.usage(data.get("message").and_then(|m| m.get("usage"))),
            "content_block_start" => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                match str_field(block, "type") {
                    Some("tool_use") => {
                        let start_input = block
                            .get("input")
                            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                            .map(Value::to_string);
                        self.tools.insert(
                            index.unwrap_or_default(),
                            ToolBlock {
                                id: str_field(block, "id").unwrap_or_default().to_owned(),
                                name: str_field(block, "name").unwrap_or_default().to_owned(),
                                input: String::new(),
                                start_input,
                            },
                        );
                    }
                    Some("text") => match str_field(block, "text") {
                        Some(text) if !text.is_empty() => {
                            sink.event(ModelEvent::Text(text.to_owned()))
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                match str_field(delta, "type") {
                    Some("text_delta") => match str_field(delta, "text") {
                        Some(text) if !text.is_empty() => {
                            sink.event(ModelEvent::Text(text.to_owned()))
                        }
                        _ => {}
                    },
                    Some("input_json_delta") => {
                        let fragment = str_field(delta, "partial_json").unwrap_or_default();
                        match self.tools.get_mut(&index.unwrap_or_default()) {
                            Some(tool) => tool.input.push_str(fragment),
                            None => tracing::warn!(
                                index,
                                "tool input for a block that was not started, skipped"
                            ),
                        }
                    }
                    // thinking, signature, citations and whatever comes next.
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(tool) = self.tools.remove(&index.unwrap_or_default()) {
                    self.emit(tool, sink);
                }
            }
            "message_delta" => {
                if let Some(reason) = data.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    self.stop = Some(match reason {
                        "end_turn" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        _ => StopReason::Other,
                    });
                }
                self.usage(data.get("usage"));
            }
            "message_stop" => {
                self.complete = true;
                return Ok(Flow::Done);
            }
            "error" => {
                let error = data.get("error").unwrap_or(&Value::Null);
                let kind = str_field(error, "type").unwrap_or("error");
                let message = truncate(str_field(error, "message").unwrap_or_default(), 300);
                let text = if message.is_empty() {
                    kind.to_owned()
                } else {
                    format!("{kind}: {message}")
                };
                return Err(if kind == "overloaded_error" {
                    ModelError::Overloaded(text)
                } else {
                    ModelError::Interrupted(text)
                });
            }
            // ping, and any event type added later.
            _ => {}
        }
        Ok(Flow::More)
    }

    fn finish(&mut self, sink: &dyn ModelSink) -> Result<ModelReply, ModelError> {
        if !self.complete {
            return Err(ModelError::Interrupted(
                "the stream ended before message_stop".into(),
            ));
        }
        // A tool block the token limit cut off gets no content_block_stop: it is passed on as
        // written, for the caller to refuse.
        for (_, tool) in std::mem::take(&mut self.tools) {
            self.emit(tool, sink);
        }
        let stop = self.stop.unwrap_or(if self.called {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        });
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

    #[test]
    fn the_body_maps_turns_tools_and_results() {
        let request = ModelRequest {
            system: "Be brief.".into(),
            tools: vec![ToolSpec {
                name: "company_profile".into(),
                description: "A company's profile.".into(),
                input_schema: r#"{"type":"object","properties":{"company_id":{"type":"string"}}}"#
                    .into(),
            }],
            turns: vec![
                Turn::user_text("Who sits on the board of c-42?"),
                Turn {
                    role: Role::Assistant,
                    blocks: vec![
                        Block::Text("Let me look.".into()),
                        Block::ToolUse {
                            id: "toolu_1".into(),
                            name: "company_profile".into(),
                            input: r#"{"company_id":"c-42"}"#.into(),
                        },
                        Block::ToolUse {
                            id: "toolu_2".into(),
                            name: "company_profile".into(),
                            input: r#"{"company_id": "c-4"#.into(),
                        },
                    ],
                },
                Turn {
                    role: Role::User,
                    blocks: vec![
                        Block::ToolResult {
                            tool_use_id: "toolu_1".into(),
                            content: r#"{"board":["A"]}"#.into(),
                            is_error: false,
                        },
                        Block::ToolResult {
                            tool_use_id: "toolu_2".into(),
                            content: "its input was cut off".into(),
                            is_error: true,
                        },
                    ],
                },
            ],
            max_tokens: 1024,
        };
        let body = body("claude-x", &request).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "claude-x",
                "max_tokens": 1024,
                "stream": true,
                "system": "Be brief.",
                "tools": [{
                    "name": "company_profile",
                    "description": "A company's profile.",
                    "input_schema": {"type":"object","properties":{"company_id":{"type":"string"}}},
                }],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Who sits on the board of c-42?"}]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_1", "name": "company_profile", "input": {"company_id": "c-42"}},
                        {"type": "tool_use", "id": "toolu_2", "name": "company_profile", "input": {}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"board\":[\"A\"]}", "is_error": false},
                        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "its input was cut off", "is_error": true},
                    ]},
                ],
            })
        );
    }

    #[test]
    fn tool_results_precede_text_in_a_merged_user_message() {
        let request = ModelRequest {
            system: String::new(),
            tools: vec![],
            turns: vec![
                Turn::user_text("also this"),
                Turn {
                    role: Role::User,
                    blocks: vec![Block::ToolResult {
                        tool_use_id: "t".into(),
                        content: "{}".into(),
                        is_error: false,
                    }],
                },
            ],
            max_tokens: 10,
        };
        let body = body("m", &request).unwrap();
        assert!(body.get("system").is_none() && body.get("tools").is_none());
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["type"], "tool_result");
        assert_eq!(content[1]["type"], "text");
    }

    #[test]
    fn a_tool_schema_that_is_not_json_is_refused() {
        let request = ModelRequest {
            system: String::new(),
            tools: vec![ToolSpec {
                name: "broken".into(),
                description: String::new(),
                input_schema: "{".into(),
            }],
            turns: vec![Turn::user_text("hi")],
            max_tokens: 10,
        };
        assert!(matches!(body("m", &request), Err(ModelError::Rejected(_))));
    }
}
