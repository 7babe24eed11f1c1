//! The language model (Anthropic Messages API) over real HTTP: checks, scripted turns,
//! streams read chunk by chunk, the default model's tool loop, and the recorded requests.

use crate::common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use upstream_sandbox::{FaultSpec, RunningSandbox, Source, MODEL_API_KEY};

fn messages_url(sb: &RunningSandbox) -> String {
    format!("{}/v1/messages", sb.model_base_url())
}

fn request(text: &str, stream: bool) -> Value {
    json!({
        "model": "sandbox-test",
        "max_tokens": 512,
        "stream": stream,
        "system": "You are a test.",
        "metadata": {"user_id": "ignored"},
        "messages": [{"role": "user", "content": text}]
    })
}

async fn post(sb: &RunningSandbox, c: &reqwest::Client, body: &Value) -> reqwest::Response {
    c.post(messages_url(sb))
        .header("x-api-key", MODEL_API_KEY)
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// One server-sent event: its name and its data, parsed.
#[derive(Debug)]
struct Sse {
    event: String,
    data: Value,
}

/// Reads a stream chunk by chunk and splits it into events at blank lines. Also returns how
/// many chunks arrived.
async fn read_events(mut resp: reqwest::Response) -> (Vec<Sse>, usize) {
    let mut buf = String::new();
    let mut chunks = 0;
    while let Some(chunk) = resp.chunk().await.unwrap() {
        chunks += 1;
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert!(buf.ends_with("\n\n"), "every event is terminated: {buf:?}");
    let events = buf
        .split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let mut event = String::new();
            let mut data = String::new();
            for line in e.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    event = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data.push_str(v);
                }
            }
            let data: Value = serde_json::from_str(&data).unwrap();
            assert_eq!(
                data["type"],
                event.as_str(),
                "the data's type is the event's name"
            );
            Sse { event, data }
        })
        .collect();
    (events, chunks)
}

fn names(events: &[Sse]) -> Vec<&str> {
    events.iter().map(|e| e.event.as_str()).collect()
}

/// The concatenated deltas of block `index` (text or partial JSON).
fn joined(events: &[Sse], index: u64) -> (String, usize) {
    let deltas: Vec<&str> = events
        .iter()
        .filter(|e| e.event == "content_block_delta" && e.data["index"] == index)
        .map(|e| {
            let d = &e.data["delta"];
            d["text"].as_str().or(d["partial_json"].as_str()).unwrap()
        })
        .collect();
    (deltas.concat(), deltas.len())
}

fn assert_error(body: &Value, kind: &str, request_id: &str) {
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    assert_eq!(body["request_id"], request_id);
}

fn request_id(resp: &reqwest::Response) -> String {
    let id = resp.headers()["request-id"].to_str().unwrap().to_owned();
    assert!(id.starts_with("req_"), "{id}");
    id
}

#[tokio::test]
async fn refuses_a_wrong_key_a_missing_version_and_a_bad_body() {
    let sb = start();
    let c = client();
    let url = messages_url(&sb);
    let body = request("Hej", false);

    for key in [None, Some("wrong-key")] {
        let mut b = c.post(&url).header("anthropic-version", "2023-06-01");
        if let Some(k) = key {
            b = b.header("x-api-key", k);
        }
        let resp = b.json(&body).send().await.unwrap();
        assert_eq!(resp.status(), 401);
        let id = request_id(&resp);
        assert_error(&resp.json().await.unwrap(), "authentication_error", &id);
    }

    let resp = c
        .post(&url)
        .header("x-api-key", MODEL_API_KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let id = request_id(&resp);
    assert_error(&resp.json().await.unwrap(), "invalid_request_error", &id);

    for bad in [
        json!({"max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}),
        json!({"model": "m", "max_tokens": 0, "messages": [{"role": "user", "content": "x"}]}),
        json!({"model": "m", "max_tokens": 10, "messages": []}),
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "system", "content": "x"}]}),
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": 5}]}),
        json!([1, 2]),
    ] {
        let resp = post(&sb, &c, &bad).await;
        assert_eq!(resp.status(), 400, "{bad}");
        let id = request_id(&resp);
        assert_error(&resp.json().await.unwrap(), "invalid_request_error", &id);
    }
    let resp = c
        .post(&url)
        .header("x-api-key", MODEL_API_KEY)
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);

    // A bearer token works as well as x-api-key.
    let resp = c
        .post(&url)
        .bearer_auth(MODEL_API_KEY)
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    request_id(&resp);

    // Only the accepted request was kept; every request was logged.
    assert_eq!(sb.control().model_requests(), vec![body]);
    assert_eq!(sb.control().calls_for(Source::Model).len(), 11);
    sb.stop().await;
}

#[tokio::test]
async fn a_scripted_text_streams_event_by_event() {
    let sb = start();
    let c = client();
    let text = "Testbolag 4 is an active company registered in Sundsvall.";
    sb.control()
        .model_script(vec![json!({ "text": text })])
        .unwrap();

    let resp = post(&sb, &c, &request("Tell me about it", true)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert_eq!(resp.headers()["cache-control"], "no-cache");
    request_id(&resp);
    let (events, chunks) = read_events(resp).await;
    assert_eq!(
        names(&events),
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(chunks > 1, "the body came in several chunks");
    let start = &events[0].data["message"];
    assert_eq!(start["id"], "msg_sandbox_1");
    assert_eq!(start["model"], "sandbox-test");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["stop_reason"], Value::Null);
    assert!(start["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        events[1].data["content_block"],
        json!({"type": "text", "text": ""})
    );
    let (joined_text, n) = joined(&events, 0);
    assert_eq!(joined_text, text);
    assert_eq!(n, 4);
    assert_eq!(events[8].data["delta"]["stop_reason"], "end_turn");
    assert!(events[8].data["usage"]["output_tokens"].as_u64().unwrap() > 1);

    // The script is used up: the default model answers the next one, without streaming.
    assert!(sb.control().model_script_remaining().is_empty());
    let resp = post(&sb, &c, &request("Hello", false)).await;
    assert_eq!(resp.status(), 200);
    let msg: Value = resp.json().await.unwrap();
    assert_eq!(msg["type"], "message");
    assert_eq!(msg["id"], "msg_sandbox_2");
    assert_eq!(msg["stop_reason"], "end_turn");
    assert!(msg["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("sandbox model"));
    sb.stop().await;
}

#[tokio::test]
async fn the_first_bytes_arrive_before_the_end() {
    let sb = start();
    let c = client();
    sb.control()
        .model_script(vec![
            json!({"text": "Slow answer.", "stall_after_start_ms": 600}),
        ])
        .unwrap();
    let t0 = Instant::now();
    let mut resp = post(&sb, &c, &request("x", true)).await;
    let first = resp.chunk().await.unwrap().unwrap();
    let first_at = t0.elapsed();
    assert!(String::from_utf8_lossy(&first).starts_with("event: message_start\n"));
    while resp.chunk().await.unwrap().is_some() {}
    let end_at = t0.elapsed();
    assert!(first_at < Duration::from_millis(400), "{first_at:?}");
    assert!(end_at >= Duration::from_millis(600), "{end_at:?}");

    // stall_ms holds even the headers.
    sb.control()
        .model_script(vec![json!({"text": "Late.", "stall_ms": 300})])
        .unwrap();
    let t0 = Instant::now();
    let resp = post(&sb, &c, &request("x", false)).await;
    assert!(t0.elapsed() >= Duration::from_millis(300));
    assert_eq!(resp.status(), 200);
    sb.stop().await;
}

#[tokio::test]
async fn scripted_tool_calls_stream_their_input_in_fragments() {
    let sb = start();
    let c = client();
    let input = json!({"orgnr": "5560021361", "note": "två ord"});
    let turn = json!({
        "text": "Let me look that up.",
        "tool_calls": [
            {"name": "get_company_profile", "input": input},
            {"name": "get_officers", "input": {"orgnr": "5560021361"}}
        ]
    });
    sb.control().model_script(vec![turn.clone(), turn]).unwrap();

    let resp = post(&sb, &c, &request("Who is 5560021361?", true)).await;
    let (events, _) = read_events(resp).await;
    let starts: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "content_block_start")
        .map(|e| &e.data["content_block"])
        .collect();
    assert_eq!(starts.len(), 3);
    assert_eq!(starts[0]["type"], "text");
    assert_eq!(starts[1]["type"], "tool_use");
    assert_eq!(starts[1]["id"], "toolu_sandbox_1");
    assert_eq!(starts[1]["name"], "get_company_profile");
    assert_eq!(starts[1]["input"], json!({}));
    assert_eq!(starts[2]["id"], "toolu_sandbox_2");
    assert_eq!(joined(&events, 0).0, "Let me look that up.");
    let (json1, fragments) = joined(&events, 1);
    assert!(fragments >= 3, "{fragments}");
    let first = events
        .iter()
        .find(|e| e.event == "content_block_delta" && e.data["index"] == 1)
        .unwrap();
    assert_eq!(first.data["delta"]["type"], "input_json_delta");
    assert_eq!(first.data["delta"]["partial_json"], "");
    assert_eq!(serde_json::from_str::<Value>(&json1).unwrap(), input);
    assert_eq!(
        serde_json::from_str::<Value>(&joined(&events, 2).0).unwrap(),
        json!({"orgnr": "5560021361"})
    );
    let stops = events
        .iter()
        .filter(|e| e.event == "content_block_stop")
        .count();
    assert_eq!(stops, 3);
    let delta = events.iter().find(|e| e.event == "message_delta").unwrap();
    assert_eq!(delta.data["delta"]["stop_reason"], "tool_use");
    assert_eq!(events.last().unwrap().event, "message_stop");

    // The same turn without streaming.
    let msg: Value = post(&sb, &c, &request("again", false))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(msg["stop_reason"], "tool_use");
    assert_eq!(
        msg["content"][1],
        json!({"type": "tool_use", "id": "toolu_sandbox_3", "name": "get_company_profile", "input": input})
    );
    sb.stop().await;
}

#[tokio::test]
async fn a_truncated_tool_call_stops_at_max_tokens() {
    let sb = start();
    let c = client();
    sb.control()
        .model_script(vec![json!({
            "truncated_tool": {"name": "get_company_profile", "input_prefix": "{\"orgnr\": \"55"}
        })])
        .unwrap();
    let (events, _) = read_events(post(&sb, &c, &request("x", true)).await).await;
    assert_eq!(joined(&events, 0).0, "{\"orgnr\": \"55");
    assert!(serde_json::from_str::<Value>(&joined(&events, 0).0).is_err());
    assert!(!events.iter().any(|e| e.event == "content_block_stop"));
    let delta = events.iter().find(|e| e.event == "message_delta").unwrap();
    assert_eq!(delta.data["delta"]["stop_reason"], "max_tokens");
    assert_eq!(events.last().unwrap().event, "message_stop");
    sb.stop().await;
}

#[tokio::test]
async fn scripted_http_errors_carry_retry_after() {
    let sb = start();
    let c = client();
    sb.control()
        .model_script(vec![
            json!({"status": 429, "retry_after": 7}),
            json!({"status": 529}),
            json!({"status": 500}),
        ])
        .unwrap();
    let resp = post(&sb, &c, &request("x", true)).await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()["retry-after"], "7");
    let id = request_id(&resp);
    assert_error(&resp.json().await.unwrap(), "rate_limit_error", &id);

    let resp = post(&sb, &c, &request("x", true)).await;
    assert_eq!(resp.status(), 529);
    assert!(resp.headers().get("retry-after").is_none());
    let id = request_id(&resp);
    assert_error(&resp.json().await.unwrap(), "overloaded_error", &id);

    let resp = post(&sb, &c, &request("x", false)).await;
    assert_eq!(resp.status(), 500);
    let id = request_id(&resp);
    assert_error(&resp.json().await.unwrap(), "api_error", &id);

    // The fault machinery works on the model too, in the API's error shape.
    sb.control()
        .inject_fault(Source::Model, FaultSpec::http_5xx(529).times(1))
        .unwrap();
    let resp = post(&sb, &c, &request("x", true)).await;
    assert_eq!(resp.status(), 529);
    let id = request_id(&resp);
    assert_error(&resp.json().await.unwrap(), "overloaded_error", &id);
    let calls = sb.control().calls_for(Source::Model);
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[3].status, Some(529));
    sb.stop().await;
}

#[tokio::test]
async fn a_stream_can_break_off_with_an_error_event_or_without_an_end() {
    let sb = start();
    let c = client();
    sb.control()
        .model_script(vec![
            json!({"stream_error": "overloaded_error", "text": "Checking the"}),
            json!({"cut_off": true}),
            json!({"stream_error": "overloaded_error"}),
        ])
        .unwrap();

    let resp = post(&sb, &c, &request("x", true)).await;
    assert_eq!(resp.status(), 200);
    let (events, _) = read_events(resp).await;
    assert_eq!(events[0].event, "message_start");
    assert_eq!(joined(&events, 0).0, "Checking the");
    let last = events.last().unwrap();
    assert_eq!(last.event, "error");
    assert_eq!(last.data["error"]["type"], "overloaded_error");
    assert!(!names(&events).contains(&"message_stop"));
    assert!(!names(&events).contains(&"message_delta"));

    let (events, _) = read_events(post(&sb, &c, &request("x", true)).await).await;
    assert_eq!(events[0].event, "message_start");
    assert!(!joined(&events, 0).0.is_empty());
    assert_eq!(events.last().unwrap().event, "content_block_delta");

    // Without streaming an error event is the HTTP error it stands for.
    let resp = post(&sb, &c, &request("x", false)).await;
    assert_eq!(resp.status(), 529);
    sb.stop().await;
}

fn tools() -> Value {
    json!([
        {"name": "get_company_profile", "description": "profile",
         "input_schema": {"type": "object", "properties": {"orgnr": {"type": "string"}}, "required": ["orgnr"]}},
        {"name": "get_officers", "description": "officers",
         "input_schema": {"type": "object", "properties": {"orgnr": {"type": "string"}}, "required": ["orgnr"]}},
        {"name": "get_signatories", "description": "signatories",
         "input_schema": {"type": "object", "properties": {"orgnr": {"type": "string"}}, "required": ["orgnr"]}},
        {"name": "get_person_profile", "description": "person",
         "input_schema": {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}}
    ])
}

#[tokio::test]
async fn the_default_model_calls_the_tools_then_cites_their_evidence() {
    let sb = start();
    let c = client();
    let question = "What do you know about 556002-1361?";
    let mut body = json!({
        "model": "sandbox-test",
        "max_tokens": 1024,
        "stream": true,
        "tools": tools(),
        "tool_choice": {"type": "auto"},
        "messages": [{"role": "user", "content": question}]
    });

    // Round 1: a tool call.
    let (events, _) = read_events(post(&sb, &c, &body).await).await;
    let tool_start = events
        .iter()
        .find(|e| e.event == "content_block_start" && e.data["content_block"]["type"] == "tool_use")
        .unwrap();
    let index = tool_start.data["index"].as_u64().unwrap();
    let block = &tool_start.data["content_block"];
    assert_eq!(block["name"], "get_company_profile");
    let input: Value = serde_json::from_str(&joined(&events, index).0).unwrap();
    assert_eq!(input, json!({"orgnr": "5560021361"}));
    let delta = events.iter().find(|e| e.event == "message_delta").unwrap();
    assert_eq!(delta.data["delta"]["stop_reason"], "tool_use");
    let preface = joined(&events, 0).0;

    // Round 2: the tool result goes back; the answer cites its call_ref and its summary.
    let id = block["id"].as_str().unwrap();
    let result = json!({
        "summary": "Testbolag 4 bokat av SKV Aktiebolag, active since 1990.",
        "stale": false,
        "data": {"name": {"value": "Testbolag 4", "evidence": {"call_ref": "call_01JSANDBOXA"}},
                 "tax": {"f_skatt": true, "evidence": {"call_ref": "call_01JSANDBOXB"}}}
    });
    body["messages"] = json!([
        {"role": "user", "content": question},
        {"role": "assistant", "content": [
            {"type": "text", "text": preface},
            {"type": "tool_use", "id": id, "name": "get_company_profile", "input": input}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": result.to_string()}]}
    ]);
    let (events, _) = read_events(post(&sb, &c, &body).await).await;
    let text = joined(&events, 0).0;
    assert!(text.contains("get_company_profile"), "{text}");
    assert!(text.contains("call_01JSANDBOXA"), "{text}");
    assert!(text.contains("call_01JSANDBOXB"), "{text}");
    assert!(
        text.contains("Testbolag 4 bokat av SKV Aktiebolag, active since 1990."),
        "{text}"
    );
    let delta = events.iter().find(|e| e.event == "message_delta").unwrap();
    assert_eq!(delta.data["delta"]["stop_reason"], "end_turn");

    // Asking who signs calls the officer tools too, with the same argument.
    let msg: Value = post(
        &sb,
        &c,
        &json!({"model": "m", "max_tokens": 100, "tools": tools(),
                "messages": [{"role": "user", "content": "Who can sign for 5560021361?"}]}),
    )
    .await
    .json()
    .await
    .unwrap();
    let calls: Vec<(&str, &Value)> = msg["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| (b["name"].as_str().unwrap(), &b["input"]))
        .collect();
    let orgnr = json!({"orgnr": "5560021361"});
    assert_eq!(
        calls,
        [
            ("get_company_profile", &orgnr),
            ("get_officers", &orgnr),
            ("get_signatories", &orgnr)
        ]
    );

    // An identifier ref calls the person profile.
    let msg: Value = post(
        &sb,
        &c,
        &json!({"model": "m", "max_tokens": 100, "tools": tools(),
                "messages": [{"role": "user", "content": "Show idr_01JSANDBOX0000000000000000."}]}),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(msg["content"][1]["name"], "get_person_profile");
    assert_eq!(
        msg["content"][1]["input"],
        json!({"ref": "idr_01JSANDBOX0000000000000000"})
    );

    // A failed tool is reported with its text.
    let msg: Value = post(
        &sb,
        &c,
        &json!({"model": "m", "max_tokens": 100, "messages": [
            {"role": "user", "content": "5560021361?"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_x", "name": "get_officers", "input": {"orgnr": "5560021361"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_x", "is_error": true,
                 "content": [{"type": "text", "text": "budget_exceeded: the daily budget is spent"}]}]}
        ]}),
    )
    .await
    .json()
    .await
    .unwrap();
    let text = msg["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("get_officers reported an error: budget_exceeded: the daily budget is spent"),
        "{text}"
    );
    sb.stop().await;
}

#[tokio::test]
async fn the_control_api_scripts_and_records_and_reset_clears_both() {
    let sb = start();
    let c = client();
    let control = sb.control_url();

    let index: Value = c.get(&control).send().await.unwrap().json().await.unwrap();
    assert_eq!(index["model"], sb.model_base_url());
    assert_eq!(index["model_api_key"], MODEL_API_KEY);
    assert!(index["model_control"]["script"]
        .as_str()
        .unwrap()
        .ends_with("/control/model/script"));

    // An invalid turn is refused and nothing is added.
    let resp = c
        .post(format!("{control}/model/script"))
        .json(&json!([{"text": "fine"}, {"status": 200}]))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let resp = c
        .post(format!("{control}/model/script"))
        .json(&json!([{"text": "one"}, {"text": "two", "delay_ms": 0}, {"status": 503}]))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let left: Value = resp.json().await.unwrap();
    assert_eq!(left.as_array().unwrap().len(), 3);

    let first = request("first", false);
    let msg: Value = post(&sb, &c, &first).await.json().await.unwrap();
    assert_eq!(msg["content"][0]["text"], "one");
    let second = request("second", true);
    let (events, _) = read_events(post(&sb, &c, &second).await).await;
    assert_eq!(joined(&events, 0).0, "two");

    let left: Value = c
        .get(format!("{control}/model/script"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(left, json!([{"status": 503}]));

    let recorded: Value = c
        .get(format!("{control}/model/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let recorded = recorded.as_array().unwrap();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0]["body"], first);
    assert_eq!(recorded[1]["body"], second);
    let t0 =
        chrono::DateTime::parse_from_rfc3339(recorded[0]["received_at"].as_str().unwrap()).unwrap();
    let t1 =
        chrono::DateTime::parse_from_rfc3339(recorded[1]["received_at"].as_str().unwrap()).unwrap();
    assert!(t0 <= t1);
    assert_eq!(sb.control().model_requests(), vec![first, second]);

    let resp = c
        .delete(format!("{control}/model/requests"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    assert!(sb.control().model_requests().is_empty());

    // Reset empties the script and the recorded requests.
    post(&sb, &c, &request("third", false)).await;
    sb.control()
        .model_script(vec![json!({"text": "later"})])
        .unwrap();
    assert_eq!(sb.control().model_requests().len(), 1);
    let resp = c.post(format!("{control}/reset")).send().await.unwrap();
    assert_eq!(resp.status(), 204);
    assert!(sb.control().model_requests().is_empty());
    assert!(sb.control().model_script_remaining().is_empty());
    let recorded: Value = c
        .get(format!("{control}/model/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(recorded, json!([]));

    // In process: clear_model forgets both.
    sb.control()
        .model_script(vec![json!({"text": "x"})])
        .unwrap();
    post(&sb, &c, &request("fourth", false)).await;
    sb.control()
        .model_script(vec![json!({"cut_off": true})])
        .unwrap();
    sb.control().clear_model();
    assert!(sb.control().model_requests().is_empty());
    assert!(sb.control().model_script_remaining().is_empty());
    sb.stop().await;
}
