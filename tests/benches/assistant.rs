//! The portal assistant's cost beside its model's: time to the first streamed byte of an
//! answer's text, and the whole message, through `POST /v1/assistant/conversations/{id}/messages`
//! against the same scripted turns asked of the sandbox's model directly.
//!
//! `cargo bench -p blackbox --bench assistant` (PostgreSQL; `IDREG_TEST_STORE=sqlite` for the
//! embedded store). The fully wired app on a loopback port with the in-process sandbox, its
//! model answering `IDREG_BENCH_MESSAGES` (default 40) scripted messages of each kind:
//!
//! - **text**: one model turn streaming a short answer;
//! - **tool round**: a `get_company_profile` call (a cached company), then the answer: two
//!   model turns and one tool call.
//!
//! For each kind it reports the model's own time to its first text byte and to its end
//! (measured against the sandbox's endpoint with the same turns), the assistant's, and the
//! difference of the medians: what the service adds per message (the session, the checks,
//! the conversation read, kept and sealed, the allowance spent, the audit rows written).

use blackbox::TestApp;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn messages() -> usize {
    std::env::var("IDREG_BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Time to the first `text` event (or text delta) and to the stream's end.
struct Timing {
    first_text: Duration,
    total: Duration,
}

/// Reads a response's stream, noting when the first piece of text arrives.
async fn timed(response: reqwest::Response, started: Instant, text_marker: &str) -> Timing {
    let mut response = response;
    let mut first_text = None;
    let mut seen = String::new();
    while let Some(chunk) = response.chunk().await.expect("the stream reads") {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if first_text.is_none() && seen.contains(text_marker) {
            first_text = Some(started.elapsed());
        }
    }
    Timing {
        first_text: first_text.unwrap_or_else(|| panic!("no text in the stream: {seen}")),
        total: started.elapsed(),
    }
}

fn percentile(values: &mut [Duration], p: f64) -> Duration {
    values.sort();
    let at = ((values.len() as f64 - 1.0) * p).round() as usize;
    values[at]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

struct Series {
    first: Vec<Duration>,
    total: Vec<Duration>,
}

impl Series {
    fn new() -> Series {
        Series {
            first: Vec::new(),
            total: Vec::new(),
        }
    }

    fn push(&mut self, t: Timing) {
        self.first.push(t.first_text);
        self.total.push(t.total);
    }

    fn medians(&mut self) -> (Duration, Duration) {
        (
            percentile(&mut self.first, 0.5),
            percentile(&mut self.total, 0.5),
        )
    }

    fn line(&mut self, what: &str) -> String {
        let p95 = percentile(&mut self.total, 0.95);
        let (first, total) = self.medians();
        format!(
            "{what:<38} first text p50 {:>9}   whole p50 {:>9}   whole p95 {:>9}",
            ms(first),
            ms(total),
            ms(p95)
        )
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run());
}

async fn run() {
    let n = messages();
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let person = blackbox::portal::sign_in(&app, &c.tenant_id, "bench@example.se", "admin").await;
    let sandbox = app.sandbox();
    let model_url = format!(
        "{}/v1/messages",
        app.app
            .sandbox
            .as_ref()
            .expect("the sandbox")
            .model_base_url()
    );
    let orgnr = upstream_sandbox::Dataset::standard()
        .active_ab_with_reports(1)
        .expect("an active company")
        .orgnr10()
        .to_owned();
    let text_turn =
        json!({"text": "The company is active; its board and signatories are on record."});
    let tool_turn =
        json!({"tool_calls": [{"name": "get_company_profile", "input": {"orgnr": orgnr}}]});
    let direct = reqwest::Client::new();
    // The marker of the first piece of an answer: a text delta (a tool call's turn has none:
    // its first content block).
    let ask_model = |turn: Value, marker: &'static str| {
        let direct = direct.clone();
        let model_url = model_url.clone();
        let sandbox = sandbox.clone();
        async move {
            sandbox.model_script(vec![turn]).expect("a scripted turn");
            let started = Instant::now();
            let r = direct
                .post(&model_url)
                .header("x-api-key", upstream_sandbox::MODEL_API_KEY)
                .header("anthropic-version", "2023-06-01")
                .json(&json!({
                    "model": "sandbox-model", "max_tokens": 1024, "stream": true,
                    "messages": [{"role": "user", "content": "bench"}]
                }))
                .send()
                .await
                .expect("the model answers");
            assert_eq!(r.status(), 200);
            timed(r, started, marker).await
        }
    };
    let new_conversation = || async {
        let r = person
            .http
            .post(format!("{}/v1/assistant/conversations", person.portal))
            .header("origin", &person.portal)
            .header("x-csrf-token", &person.csrf)
            .json(&json!({"grant_id": c.grant_id}))
            .send()
            .await
            .expect("a conversation");
        assert_eq!(r.status(), 201);
        let body: Value = r.json().await.expect("its JSON");
        body["id"].as_str().expect("an id").to_owned()
    };
    let ask = |conversation: String, turns: Vec<Value>| {
        let sandbox = sandbox.clone();
        let http = person.http.clone();
        let (portal, csrf) = (person.portal.clone(), person.csrf.clone());
        async move {
            sandbox.model_script(turns).expect("scripted turns");
            let started = Instant::now();
            let r = http
                .post(format!(
                    "{portal}/v1/assistant/conversations/{conversation}/messages"
                ))
                .header("origin", &portal)
                .header("x-csrf-token", &csrf)
                .json(&json!({"message": "Is the company still active?"}))
                .send()
                .await
                .expect("the assistant answers");
            assert_eq!(r.status(), 200);
            timed(r, started, "event: text").await
        }
    };

    // Warm: the company cached, the pools and the screening of nothing ready.
    let warm = new_conversation().await;
    ask(warm.clone(), vec![tool_turn.clone(), text_turn.clone()]).await;

    let (mut model_text, mut model_tool) = (Series::new(), Series::new());
    let (mut text, mut tool_round) = (Series::new(), Series::new());
    for i in 0..n {
        model_text.push(ask_model(text_turn.clone(), "text_delta").await);
        let t1 = ask_model(tool_turn.clone(), "content_block_start").await;
        let t2 = ask_model(text_turn.clone(), "text_delta").await;
        model_tool.push(Timing {
            first_text: t1.total + t2.first_text,
            total: t1.total + t2.total,
        });
        // A fresh conversation every ten messages: a long one's history grows the request.
        let conversation = if i % 10 == 0 {
            new_conversation().await
        } else {
            warm.clone()
        };
        text.push(ask(conversation.clone(), vec![text_turn.clone()]).await);
        tool_round.push(ask(conversation, vec![tool_turn.clone(), text_turn.clone()]).await);
    }

    let store = if std::env::var("IDREG_TEST_STORE").is_ok_and(|s| s.starts_with("sqlite")) {
        "SQLite"
    } else {
        "PostgreSQL"
    };
    println!(
        "assistant: {n} messages of each kind, {store}, the sandbox's model over loopback HTTP"
    );
    println!("{}", model_text.line("model alone, text"));
    println!("{}", text.line("assistant, text"));
    println!("{}", model_tool.line("model alone, tool call + text"));
    println!("{}", tool_round.line("assistant, tool round"));
    let (mf, mt) = model_text.medians();
    let (af, at) = text.medians();
    let (tmf, tmt) = model_tool.medians();
    let (taf, tat) = tool_round.medians();
    println!(
        "overhead per message (p50 difference): text first byte {} whole {}; tool round first byte {} whole {}",
        ms(af.saturating_sub(mf)),
        ms(at.saturating_sub(mt)),
        ms(taf.saturating_sub(tmf)),
        ms(tat.saturating_sub(tmt)),
    );
}
