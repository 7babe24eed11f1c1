//! Both adapters against a real HTTP server on 127.0.0.1 that replays recorded streams (in
//! random small pieces) and scripted failures.

mod support;

use adapters_llm::{model, AnthropicModel, LlmConfig, OpenAiCompatModel, Protocol};
use domain::assistant::conversation::{Block, Role, Turn};
use domain::assistant::model::{
    ModelError, ModelEvent, ModelReply, ModelRequest, StopReason, ToolSpec,
};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{fixture, Collected, Reply, Server};

const KEY: &str = "sk-test-0123456789-SECRET";

fn config(protocol: Protocol, server: &Server, key: Option<&str>) -> LlmConfig {
    let mut config = LlmConfig::new(
        protocol,
        server.base.clone(),
        "test-model",
        key.map(str::to_owned),
    );
    config.connect_timeout = Duration::from_secs(2);
    config.first_byte_timeout = Duration::from_secs(5);
    config.idle_timeout = Duration::from_secs(5);
    config.total_timeout = Duration::from_secs(30);
    config.retry_base = Duration::from_millis(10);
    config
}

fn request() -> ModelRequest {
    ModelRequest {
        system: "You are idreg's portal assistant.".into(),
        tools: vec![ToolSpec {
            name: "company_profile".into(),
            description: "The stored profile of a company.".into(),
            input_schema: r#"{"type":"object","properties":{"company_id":{"type":"string"}},"required":["company_id"]}"#.into(),
        }],
        turns: vec![Turn::user_text("Who sits on the board of sandbox-0001?")],
        max_tokens: 1024,
    }
}

/// A request with a full tool round: the question, the model's call, its result.
fn tool_round() -> ModelRequest {
    let mut request = request();
    request.turns.push(Turn {
        role: Role::Assistant,
        blocks: vec![
            Block::Text("Let me look ".into()),
            Block::Text("that up.".into()),
            Block::ToolUse {
                id: "call_k3x9q2m7".into(),
                name: "company_profile".into(),
                input: r#"{"company_id":"sandbox-0001"}"#.into(),
            },
        ],
    });
    request.turns.push(Turn {
        role: Role::User,
        blocks: vec![Block::ToolResult {
            tool_use_id: "call_k3x9q2m7".into(),
            content: r#"{"name":"Sandbox AB"}"#.into(),
            is_error: false,
        }],
    });
    request
}

async fn run(
    protocol: Protocol,
    server: &Server,
    key: Option<&str>,
    request: &ModelRequest,
) -> (Result<ModelReply, ModelError>, Arc<Collected>) {
    run_with(config(protocol, server, key), request).await
}

async fn run_with(
    config: LlmConfig,
    request: &ModelRequest,
) -> (Result<ModelReply, ModelError>, Arc<Collected>) {
    let model = model(config).expect("a valid configuration");
    let sink = Arc::new(Collected::default());
    let reply = model.stream(request, sink.clone()).await;
    (reply, sink)
}

fn tool_use(id: &str, name: &str, input: &str) -> (String, String, String) {
    (id.into(), name.into(), input.into())
}

// ---- Anthropic ----------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_text_deltas_concatenate_whatever_the_split() {
    for seed in 0..8 {
        let server = Server::start(vec![Reply::stream(
            fixture("anthropic-stream-text.sse"),
            seed,
        )])
        .await;
        let (reply, sink) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
        assert_eq!(
            reply.unwrap(),
            ModelReply {
                stop: StopReason::EndTurn,
                input_tokens: 11,
                output_tokens: 6
            },
            "seed {seed}"
        );
        assert_eq!(sink.text(), "Hello there!");
        assert!(
            sink.events().len() >= 3,
            "text goes to the sink delta by delta"
        );
    }
}

#[tokio::test]
async fn anthropic_request_carries_headers_and_the_mapped_conversation() {
    let server = Server::start(vec![Reply::stream(fixture("anthropic-stream-text.sse"), 1)]).await;
    let (reply, _) = run(Protocol::Anthropic, &server, Some(KEY), &tool_round()).await;
    reply.unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.headers["x-api-key"], KEY);
    assert_eq!(r.headers["anthropic-version"], "2023-06-01");
    assert_eq!(r.headers["content-type"], "application/json");
    assert!(!r.headers.contains_key("authorization"));
    assert_eq!(
        r.json(),
        json!({
            "model": "test-model",
            "max_tokens": 1024,
            "stream": true,
            "system": "You are idreg's portal assistant.",
            "tools": [{
                "name": "company_profile",
                "description": "The stored profile of a company.",
                "input_schema": {"type": "object", "properties": {"company_id": {"type": "string"}}, "required": ["company_id"]},
            }],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Who sits on the board of sandbox-0001?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look that up."},
                    {"type": "tool_use", "id": "call_k3x9q2m7", "name": "company_profile", "input": {"company_id": "sandbox-0001"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_k3x9q2m7", "content": "{\"name\":\"Sandbox AB\"}", "is_error": false},
                ]},
            ],
        })
    );
}

#[tokio::test]
async fn anthropic_tool_input_fragments_accumulate_to_the_exact_json() {
    for seed in 0..8 {
        let server = Server::start(vec![Reply::stream(
            fixture("anthropic-stream-tool-use.sse"),
            seed,
        )])
        .await;
        let (reply, sink) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
        assert_eq!(
            reply.unwrap(),
            ModelReply {
                stop: StopReason::ToolUse,
                input_tokens: 377,
                output_tokens: 65
            }
        );
        assert_eq!(
            sink.text(),
            "I'll check the current weather in Paris for you."
        );
        assert_eq!(
            sink.tool_uses(),
            vec![tool_use(
                "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                "get_weather",
                r#"{"location": "Paris"}"#
            )]
        );
        // The tool call comes after the text, once its block is closed.
        assert!(matches!(
            sink.events().last(),
            Some(ModelEvent::ToolUse { .. })
        ));
    }
}

#[tokio::test]
async fn anthropic_crlf_line_ends_read_the_same() {
    let crlf = String::from_utf8(fixture("anthropic-stream-tool-use.sse"))
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    for seed in 0..4 {
        let server = Server::start(vec![Reply::stream(crlf.clone(), seed)]).await;
        let (reply, sink) = run(Protocol::Anthropic, &server, None, &request()).await;
        assert_eq!(reply.unwrap().stop, StopReason::ToolUse);
        assert_eq!(
            sink.tool_uses(),
            vec![tool_use(
                "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                "get_weather",
                r#"{"location": "Paris"}"#
            )]
        );
    }
}

#[tokio::test]
async fn anthropic_multibyte_text_split_inside_characters_arrives_whole() {
    let text = "Styrelsen i Exempel AB: Åsa Öberg (ordförande), Jörg Müller – 🇸🇪✓";
    let mut stream = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for piece in text.split_inclusive(' ') {
        let data = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}});
        stream.push_str(&format!("event: content_block_delta\ndata: {data}\n\n"));
    }
    stream.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":20}}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    // One byte at a time: every multi-byte character is cut.
    let server = Server::start(vec![Reply::Stream {
        body: stream.clone().into_bytes(),
        seed: 0,
        max_piece: 1,
    }])
    .await;
    let (reply, sink) = run(Protocol::Anthropic, &server, None, &request()).await;
    assert_eq!(reply.unwrap().output_tokens, 20);
    assert_eq!(sink.text(), text);
    for seed in 0..4 {
        let server = Server::start(vec![Reply::Stream {
            body: stream.clone().into_bytes(),
            seed,
            max_piece: 3,
        }])
        .await;
        let (reply, sink) = run(Protocol::Anthropic, &server, None, &request()).await;
        reply.unwrap();
        assert_eq!(sink.text(), text);
    }
}

#[tokio::test]
async fn anthropic_max_tokens_passes_the_cut_off_input_on_as_text() {
    let server = Server::start(vec![Reply::stream(
        fixture("anthropic-stream-tool-use-max-tokens.sse"),
        3,
    )])
    .await;
    let (reply, sink) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
    assert_eq!(
        reply.unwrap(),
        ModelReply {
            stop: StopReason::MaxTokens,
            input_tokens: 450,
            output_tokens: 124
        }
    );
    assert_eq!(
        sink.text(),
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."
    );
    let expected = "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes";
    assert_eq!(
        sink.tool_uses(),
        vec![tool_use(
            "toolu_01EKqbqmZrGRXy18eN7m9kvY",
            "make_file",
            expected
        )]
    );
    // Not JSON: the caller refuses to run it.
    assert!(serde_json::from_str::<serde_json::Value>(expected).is_err());
}

#[tokio::test]
async fn anthropic_error_event_after_text_is_an_overload_and_not_retried() {
    let server = Server::start(vec![Reply::stream(
        fixture("anthropic-stream-error.reconstructed.sse"),
        5,
    )])
    .await;
    let (reply, sink) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
    assert_eq!(
        reply,
        Err(ModelError::Overloaded(
            "overloaded_error: Overloaded".into()
        ))
    );
    assert_eq!(sink.text(), "Checking the");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn anthropic_other_error_events_interrupt() {
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n\
                  event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"internal_error\",\"message\":\"engine died\"}}\n\n";
    let server = Server::start(vec![Reply::stream(stream.as_bytes().to_vec(), 0)]).await;
    let (reply, _) = run(Protocol::Anthropic, &server, None, &request()).await;
    assert_eq!(
        reply,
        Err(ModelError::Interrupted(
            "internal_error: engine died".into()
        ))
    );
}

#[tokio::test]
async fn anthropic_ollama_shaped_stream_is_tolerated() {
    for seed in 0..4 {
        let server = Server::start(vec![Reply::stream(
            fixture("anthropic-stream-tool-use.ollama.reconstructed.sse"),
            seed,
        )])
        .await;
        let (reply, sink) = run(Protocol::Anthropic, &server, None, &tool_round()).await;
        assert_eq!(
            reply.unwrap(),
            ModelReply {
                stop: StopReason::ToolUse,
                input_tokens: 231,
                output_tokens: 38
            }
        );
        assert_eq!(sink.text(), "Let me look up that company.");
        assert_eq!(
            sink.tool_uses(),
            vec![tool_use(
                "call_k3x9q2m7",
                "company_profile",
                r#"{"company_id":"sandbox-0001"}"#
            )]
        );
        assert!(!server.requests()[0].headers.contains_key("x-api-key"));
    }
}

#[tokio::test]
async fn anthropic_stream_without_message_stop_is_interrupted_and_not_retried() {
    let body = fixture("anthropic-stream-text.sse");
    let text = String::from_utf8(body.clone()).unwrap();
    let cut = text.find("event: message_delta").unwrap();
    for clean in [true, false] {
        let server = Server::start(vec![Reply::Cut {
            body: body.clone(),
            bytes: cut,
            clean,
        }])
        .await;
        let (reply, sink) = run(Protocol::Anthropic, &server, None, &request()).await;
        assert!(
            matches!(reply, Err(ModelError::Interrupted(_))),
            "clean {clean}: {reply:?}"
        );
        assert_eq!(sink.text(), "Hello there!");
        assert_eq!(server.requests().len(), 1);
    }
}

// ---- OpenAI-compatible --------------------------------------------------------------------

#[tokio::test]
async fn openai_text_streams_and_the_request_is_mapped() {
    for seed in 0..4 {
        let server =
            Server::start(vec![Reply::stream(fixture("openai-stream-text.sse"), seed)]).await;
        let (reply, sink) = run(Protocol::OpenAi, &server, Some(KEY), &tool_round()).await;
        assert_eq!(
            reply.unwrap(),
            ModelReply {
                stop: StopReason::EndTurn,
                input_tokens: 14,
                output_tokens: 30
            }
        );
        assert_eq!(
            sink.text(),
            "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app."
        );
        let r = &server.requests()[0];
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.headers["authorization"], format!("Bearer {KEY}"));
        assert!(!r.headers.contains_key("x-api-key"));
        assert_eq!(
            r.json(),
            json!({
                "model": "test-model",
                "max_tokens": 1024,
                "stream": true,
                "stream_options": {"include_usage": true},
                "tools": [{"type": "function", "function": {
                    "name": "company_profile",
                    "description": "The stored profile of a company.",
                    "parameters": {"type": "object", "properties": {"company_id": {"type": "string"}}, "required": ["company_id"]},
                }}],
                "messages": [
                    {"role": "system", "content": "You are idreg's portal assistant."},
                    {"role": "user", "content": "Who sits on the board of sandbox-0001?"},
                    {"role": "assistant", "content": "Let me look that up.", "tool_calls": [
                        {"id": "call_k3x9q2m7", "type": "function", "function": {"name": "company_profile", "arguments": "{\"company_id\":\"sandbox-0001\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_k3x9q2m7", "content": "{\"name\":\"Sandbox AB\"}"},
                ],
            })
        );
    }
}

#[tokio::test]
async fn openai_two_parallel_tool_calls_accumulate_by_index() {
    for seed in 0..8 {
        let server = Server::start(vec![Reply::stream(
            fixture("openai-stream-tool-calls.sse"),
            seed,
        )])
        .await;
        let (reply, sink) = run(Protocol::OpenAi, &server, None, &request()).await;
        assert_eq!(
            reply.unwrap(),
            ModelReply {
                stop: StopReason::ToolUse,
                input_tokens: 149,
                output_tokens: 60
            }
        );
        assert_eq!(sink.text(), "");
        assert_eq!(
            sink.tool_uses(),
            vec![
                tool_use(
                    "call_JMW1whyEaYG438VE1OIflxA2",
                    "GetWeatherArgs",
                    r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#
                ),
                tool_use(
                    "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                    "get_stock_price",
                    r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#
                ),
            ]
        );
        assert!(!server.requests()[0].headers.contains_key("authorization"));
    }
}

#[tokio::test]
async fn openai_stream_without_finish_or_done_is_interrupted() {
    let body = fixture("openai-stream-text.sse");
    let text = String::from_utf8(body.clone()).unwrap();
    let cut = text.find("\"finish_reason\":\"stop\"").unwrap();
    let cut = text[..cut].rfind("data: ").unwrap();
    let server = Server::start(vec![Reply::Cut {
        body,
        bytes: cut,
        clean: true,
    }])
    .await;
    let (reply, sink) = run(Protocol::OpenAi, &server, None, &request()).await;
    assert!(
        matches!(reply, Err(ModelError::Interrupted(_))),
        "{reply:?}"
    );
    assert!(sink.text().starts_with("I'm unable"));
}

#[tokio::test]
async fn openai_base_ending_in_v1_is_not_doubled() {
    let server = Server::start(vec![Reply::stream(fixture("openai-stream-text.sse"), 0)]).await;
    let mut config = config(Protocol::OpenAi, &server, None);
    config.base_url = format!("{}/v1/", server.base);
    let (reply, _) = run_with(config, &request()).await;
    reply.unwrap();
    assert_eq!(server.requests()[0].path, "/v1/chat/completions");
}

// ---- Retries, errors, timeouts ------------------------------------------------------------

const OVERLOADED: &str = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_that_wait() {
    let server = Server::start(vec![
        Reply::status(
            429,
            &[("retry-after", "1")],
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        ),
        Reply::stream(fixture("anthropic-stream-text.sse"), 2),
    ])
    .await;
    let started = Instant::now();
    let (reply, sink) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
    assert_eq!(reply.unwrap().stop, StopReason::EndTurn);
    assert_eq!(sink.text(), "Hello there!");
    assert_eq!(server.requests().len(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_429_that_persists_is_rate_limited() {
    let server = Server::start(vec![Reply::status(
        429,
        &[],
        r#"{"error":{"message":"quota","type":"rate_limit_error"}}"#,
    )])
    .await;
    let (reply, _) = run(Protocol::OpenAi, &server, Some(KEY), &request()).await;
    assert_eq!(
        reply,
        Err(ModelError::RateLimited("HTTP 429: quota".into()))
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_529_three_times_is_overloaded_after_the_retries() {
    let server = Server::start(vec![Reply::status(529, &[], OVERLOADED)]).await;
    let (reply, _) = run(Protocol::Anthropic, &server, Some(KEY), &request()).await;
    assert_eq!(
        reply,
        Err(ModelError::Overloaded("HTTP 529: Overloaded".into()))
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_then_succeed() {
    let server = Server::start(vec![
        Reply::status(503, &[], "upstream down"),
        Reply::status(
            500,
            &[],
            r#"{"type":"error","error":{"type":"api_error","message":"Internal"}}"#,
        ),
        Reply::stream(fixture("openai-stream-text.sse"), 4),
    ])
    .await;
    let (reply, _) = run(Protocol::OpenAi, &server, None, &request()).await;
    assert_eq!(reply.unwrap().stop, StopReason::EndTurn);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn server_errors_that_persist_are_unavailable() {
    let server = Server::start(vec![Reply::status(502, &[], "Bad Gateway")]).await;
    let mut config = config(Protocol::Anthropic, &server, None);
    config.max_retries = 1;
    let (reply, _) = run_with(config, &request()).await;
    assert_eq!(
        reply,
        Err(ModelError::Unavailable("HTTP 502: Bad Gateway".into()))
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn x_should_retry_false_stops_the_retries() {
    let server = Server::start(vec![Reply::status(
        500,
        &[("x-should-retry", "false")],
        "{}",
    )])
    .await;
    let (reply, _) = run(Protocol::Anthropic, &server, None, &request()).await;
    assert!(
        matches!(reply, Err(ModelError::Unavailable(_))),
        "{reply:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_401_is_rejected_at_once_without_the_key() {
    // A careless server echoes the key it refused.
    let body = format!(
        r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {KEY}"}}}}"#
    );
    for protocol in [Protocol::Anthropic, Protocol::OpenAi] {
        let server = Server::start(vec![Reply::status(401, &[], &body)]).await;
        let (reply, _) = run(protocol, &server, Some(KEY), &request()).await;
        let Err(ModelError::Rejected(message)) = reply else {
            panic!("{reply:?}");
        };
        assert!(
            message.starts_with("HTTP 401: invalid x-api-key"),
            "{message}"
        );
        assert!(
            !message.contains(KEY) && !message.contains("SECRET"),
            "{message}"
        );
        assert_eq!(server.requests().len(), 1, "not retried");
    }
}

#[tokio::test]
async fn a_400_names_the_upstream_message_at_most_300_characters() {
    let long = "x".repeat(1000);
    let body = format!(r#"{{"error":{{"message":"  {long}  ","type":"invalid_request_error"}}}}"#);
    let server = Server::start(vec![Reply::status(400, &[], &body)]).await;
    let (reply, _) = run(Protocol::OpenAi, &server, None, &request()).await;
    let Err(ModelError::Rejected(message)) = reply else {
        panic!("{reply:?}");
    };
    let upstream = message.strip_prefix("HTTP 400: ").unwrap();
    assert_eq!(
        upstream.chars().count(),
        301,
        "300 characters and the cut mark"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let server = Server::start(vec![Reply::status(
        307,
        &[("location", "http://127.0.0.1:9/elsewhere")],
        "",
    )])
    .await;
    let (reply, _) = run(Protocol::Anthropic, &server, None, &request()).await;
    assert!(matches!(reply, Err(ModelError::Rejected(_))), "{reply:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_200_that_is_not_an_event_stream_is_rejected() {
    let server = Server::start(vec![Reply::status(
        200,
        &[],
        r#"{"id":"msg_1","content":[]}"#,
    )])
    .await;
    let (reply, _) = run(Protocol::Anthropic, &server, None, &request()).await;
    assert!(matches!(reply, Err(ModelError::Rejected(_))), "{reply:?}");
}

#[tokio::test]
async fn no_listener_is_unavailable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let mut config = LlmConfig::new(Protocol::Anthropic, base, "m", None);
    config.retry_base = Duration::from_millis(10);
    let (reply, _) = run_with(config, &request()).await;
    assert!(
        matches!(reply, Err(ModelError::Unavailable(ref m)) if m.contains("connect")),
        "{reply:?}"
    );
}

#[tokio::test]
async fn a_stall_longer_than_the_first_byte_timeout_is_unavailable() {
    for reply in [
        Reply::Silent {
            stall: Duration::from_secs(5),
        },
        Reply::Stall {
            before: b": keep-alive\n\n".to_vec(),
            stall: Duration::from_secs(5),
        },
    ] {
        let server = Server::start(vec![reply]).await;
        let mut config = config(Protocol::Anthropic, &server, None);
        config.first_byte_timeout = Duration::from_millis(300);
        config.max_retries = 1;
        let started = Instant::now();
        let (reply, _) = run_with(config, &request()).await;
        assert!(
            matches!(reply, Err(ModelError::Unavailable(ref m)) if m.contains("within")),
            "{reply:?}"
        );
        assert_eq!(
            server.requests().len(),
            2,
            "a timeout before the stream is retried"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn a_stall_after_the_stream_started_is_interrupted() {
    let body = fixture("anthropic-stream-text.sse");
    let text = String::from_utf8(body.clone()).unwrap();
    let cut = text.find("event: content_block_stop").unwrap();
    let server = Server::start(vec![Reply::Stall {
        before: body[..cut].to_vec(),
        stall: Duration::from_secs(5),
    }])
    .await;
    let mut config = config(Protocol::Anthropic, &server, None);
    config.idle_timeout = Duration::from_millis(300);
    let (reply, sink) = run_with(config, &request()).await;
    assert!(
        matches!(reply, Err(ModelError::Interrupted(ref m)) if m.contains("within")),
        "{reply:?}"
    );
    assert_eq!(sink.text(), "Hello there!");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn the_total_timeout_bounds_the_retries() {
    let server = Server::start(vec![Reply::status(503, &[("retry-after", "2")], "busy")]).await;
    let mut config = config(Protocol::OpenAi, &server, None);
    config.total_timeout = Duration::from_secs(1);
    config.max_retries = 5;
    let started = Instant::now();
    let (reply, _) = run_with(config, &request()).await;
    assert_eq!(reply, Err(ModelError::Unavailable("HTTP 503: busy".into())));
    assert_eq!(
        server.requests().len(),
        1,
        "a wait past the total bound is not taken"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn configuration_faults_are_refused_without_the_key() {
    let bad = LlmConfig::new(Protocol::Anthropic, "not a url", "m", Some(KEY.into()));
    let error = model(bad).err().unwrap();
    assert!(!error.contains(KEY), "{error}");
    let bad = LlmConfig::new(
        Protocol::OpenAi,
        "http://127.0.0.1:1",
        "m",
        Some(format!("{KEY}\n")),
    );
    let error = model(bad).err().unwrap();
    assert!(!error.contains(KEY), "{error}");
    let empty = LlmConfig::new(Protocol::OpenAi, "http://127.0.0.1:1", " ", None);
    assert!(model(empty).is_err());
    let fine = LlmConfig::new(Protocol::OpenAi, "http://127.0.0.1:1", "qwen3", None);
    assert_eq!(model(fine).unwrap().model(), "qwen3");
    let keyed = LlmConfig::new(
        Protocol::Anthropic,
        "http://127.0.0.1:1",
        "m",
        Some(KEY.into()),
    );
    for shown in [
        format!("{keyed:?}"),
        format!("{:?}", AnthropicModel::new(&keyed).unwrap()),
        format!("{:?}", OpenAiCompatModel::new(&keyed).unwrap()),
    ] {
        assert!(!shown.contains(KEY), "{shown}");
    }
}
