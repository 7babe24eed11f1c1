//! What is asked of a language model and what it streams back, in the port's own words: a
//! system prompt, the tools offered, the turns so far. JSON travels as text (the domain reads
//! no JSON); the adapters speak the wire formats (Anthropic Messages, OpenAI-compatible chat
//! completions).

use crate::assistant::conversation::{Block, Turn};

/// A tool offered to the model: its name, what it does, and its input schema (a JSON Schema
/// object, as text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: String,
}

/// One model turn asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRequest {
    pub system: String,
    pub tools: Vec<ToolSpec>,
    pub turns: Vec<Turn>,
    pub max_tokens: u32,
}

/// What the model streamed, piece by piece: text as it is written, and each tool call once
/// its block is complete (its input as the model wrote it: possibly not JSON at all, when
/// the model was cut off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelEvent {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
}

/// Why the model stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// It answered.
    EndTurn,
    /// It asks for the tools it called to be run.
    ToolUse,
    /// It ran out of tokens: a tool call it was writing may be cut off.
    MaxTokens,
    /// Anything else (a stop sequence, a content filter).
    Other,
}

/// How a model turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelReply {
    pub stop: StopReason,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why a model turn failed, after the adapter's retries (429, 529 and 5xx are retried with
/// backoff while nothing has streamed yet).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// Still rate limited (429) after the retries.
    #[error("the model is rate limited: {0}")]
    RateLimited(String),
    /// Still overloaded (529, or an overload error event) after the retries.
    #[error("the model is overloaded: {0}")]
    Overloaded(String),
    /// Unreachable, a server error, or no answer within the timeouts.
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
    /// The model endpoint refused the request (400, 401, 403, 404): a configuration fault.
    #[error("the model endpoint refused the request: {0}")]
    Rejected(String),
    /// The stream broke off after it had started (an error event, a closed connection, no
    /// end event): what streamed so far is not an answer.
    #[error("the model's answer broke off: {0}")]
    Interrupted(String),
}

impl ModelEvent {
    /// The block a streamed event leaves in the assistant's turn.
    pub fn block(&self) -> Block {
        match self {
            ModelEvent::Text(t) => Block::Text(t.clone()),
            ModelEvent::ToolUse { id, name, input } => Block::ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
            },
        }
    }
}
