#![doc = include_str!("../README.md")]

mod anthropic;
mod config;
mod http;
mod openai;
mod sse;
mod wire;

pub use anthropic::{AnthropicModel, ANTHROPIC_VERSION};
pub use config::{LlmConfig, Protocol};
pub use openai::OpenAiCompatModel;

use domain::assistant::ports::LanguageModel;
use std::sync::Arc;

/// The model `config` describes, behind the port: [`AnthropicModel`] or
/// [`OpenAiCompatModel`] by its protocol, each with one HTTP client of its own (rustls, no
/// redirects followed) shared by all its calls. The error says what is wrong with the
/// configuration; it never holds the key.
pub fn model(config: LlmConfig) -> Result<Arc<dyn LanguageModel>, String> {
    Ok(match config.protocol {
        Protocol::Anthropic => Arc::new(AnthropicModel::new(&config)?),
        Protocol::OpenAi => Arc::new(OpenAiCompatModel::new(&config)?),
    })
}
