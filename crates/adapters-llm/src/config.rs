//! What an operator configures: which protocol, where, which model, the key, and the bounds on
//! every wait.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The wire format the endpoint speaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The Anthropic Messages API (`POST {base}/v1/messages`): Anthropic's own service, and
    /// the local servers that accept the same format (Ollama, llama.cpp, vLLM, LM Studio).
    Anthropic,
    /// OpenAI-compatible chat completions (`POST {base}/v1/chat/completions`).
    OpenAi,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Anthropic => "anthropic",
            Protocol::OpenAi => "openai",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Protocol {
    type Err = String;

    /// `anthropic`, or `openai` (also `openai-compat`, `openai_compat`), in any case.
    fn from_str(s: &str) -> Result<Protocol, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Protocol::Anthropic),
            "openai" | "openai-compat" | "openai_compat" => Ok(Protocol::OpenAi),
            other => Err(format!(
                "unknown model protocol {other:?}: expected \"anthropic\" or \"openai\""
            )),
        }
    }
}

/// The configuration of one model endpoint. [`LlmConfig::new`] fills in the defaults.
///
/// `Debug` never shows the API key.
#[derive(Clone, PartialEq, Eq)]
pub struct LlmConfig {
    pub protocol: Protocol,
    /// The endpoint's base address, such as `https://api.anthropic.com` or
    /// `http://localhost:11434`; `/v1/...` is appended (a base already ending in `/v1` is
    /// taken as it is).
    pub base_url: String,
    /// The model's name as the endpoint knows it.
    pub model: String,
    /// Sent as `x-api-key` (Anthropic) or `Authorization: Bearer` (OpenAI-compatible); none
    /// for a local server without authentication.
    pub api_key: Option<String>,
    /// Bound on establishing the connection (TCP and TLS). Default 10 s.
    pub connect_timeout: Duration,
    /// Bound on the wait from sending the request to the stream's first event (the response
    /// head included). Default 60 s.
    pub first_byte_timeout: Duration,
    /// Bound on the wait between two events once the stream has started (any complete line,
    /// a keep-alive comment too, counts as a sign of life). Default 60 s.
    pub idle_timeout: Duration,
    /// Bound on the whole model turn, retries and their waits included. Default 5 min.
    pub total_timeout: Duration,
    /// Retries of a failed attempt before anything streamed. Default 2 (three attempts).
    pub max_retries: u32,
    /// The backoff's base: the wait before retry `n` (from 0) is `retry_base × 2^n`, at most
    /// 8 s, times a jitter in [0.75, 1.0], unless the endpoint names its own wait.
    /// Default 0.5 s; tests shorten it.
    pub retry_base: Duration,
}

impl LlmConfig {
    /// The wait when the endpoint names none: at most this, before the jitter.
    pub const MAX_BACKOFF: Duration = Duration::from_secs(8);
    /// A wait named by `retry-after` or `retry-after-ms` is honoured up to this.
    pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

    /// A configuration with the default bounds.
    pub fn new(
        protocol: Protocol,
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
    ) -> LlmConfig {
        LlmConfig {
            protocol,
            base_url: base_url.into(),
            model: model.into(),
            api_key,
            connect_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            total_timeout: Duration::from_secs(300),
            max_retries: 2,
            retry_base: Duration::from_millis(500),
        }
    }
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("protocol", &self.protocol)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("connect_timeout", &self.connect_timeout)
            .field("first_byte_timeout", &self.first_byte_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("total_timeout", &self.total_timeout)
            .field("max_retries", &self.max_retries)
            .field("retry_base", &self.retry_base)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_key() {
        let config = LlmConfig::new(
            Protocol::Anthropic,
            "http://localhost:1",
            "m",
            Some("sk-very-secret".into()),
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }

    #[test]
    fn protocols_parse() {
        assert_eq!("Anthropic".parse::<Protocol>(), Ok(Protocol::Anthropic));
        assert_eq!(" openai ".parse::<Protocol>(), Ok(Protocol::OpenAi));
        assert!("gemini".parse::<Protocol>().is_err());
    }

    #[test]
    fn defaults() {
        let c = LlmConfig::new(Protocol::OpenAi, "http://x", "m", None);
        assert_eq!(c.first_byte_timeout, Duration::from_secs(60));
        assert_eq!(c.idle_timeout, Duration::from_secs(60));
        assert_eq!(c.total_timeout, Duration::from_secs(300));
        assert_eq!(c.max_retries, 2);
        assert_eq!(c.retry_base, Duration::from_millis(500));
    }
}
