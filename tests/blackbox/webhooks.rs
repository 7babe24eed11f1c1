//! Webhooks over real HTTP, as a consumer meets them: an endpoint registered on the REST
//! surface, the event log pushed to a receiver on loopback that verifies every delivery with
//! the `standardwebhooks` library (the convention's Python implementation), in order, retried
//! while the receiver fails and carried across a restart of the service; an endpoint failing
//! for too long disabled with an event and resumed where it stopped; a rotated secret; and
//! the scope model (an endpoint is its credential's alone) with the address rules.

use crate::mcp::call_tool;
use crate::ongoing_screening::{company_subject, import_un_with, listing, rescreen, subscribe};
use crate::screening::{import_un, publish_policy};
use blackbox::TestApp;
use domain::screening::sanctions::EntryKind;
use domain::webhooks::dispatcher::DispatchReport;
use domain::webhooks::endpoint::RetrySchedule;
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

const SCOPES: &str =
    "kyb:read kyc:read monitoring:subscribe monitoring:read events:read screening:read";

/// The Python receiver (`tests/webhook_receiver/receiver.py`), on a loopback port.
pub(crate) struct Receiver {
    pub(crate) url: String,
    http: reqwest::Client,
    _child: tokio::process::Child,
}

impl Receiver {
    pub(crate) async fn start(python: &str) -> Receiver {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/webhook_receiver/receiver.py");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("starting the webhook receiver");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        tokio::io::BufReader::new(stdout)
            .read_line(&mut line)
            .await
            .unwrap();
        let port: u16 = line.trim().parse().expect("the receiver's port");
        Receiver {
            url: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
            _child: child,
        }
    }

    pub(crate) async fn control(&self, settings: Value) {
        let r = self
            .http
            .post(format!("{}/control", self.url))
            .body(settings.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
    }

    pub(crate) async fn received(&self) -> Value {
        self.http
            .get(format!("{}/received", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    fn seqs(received: &Value) -> Vec<i64> {
        received["accepted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect()
    }
}

pub(crate) async fn spawn(delays: &[i64], disable_after: chrono::Duration) -> TestApp {
    let delays = delays.to_vec();
    TestApp::spawn_with(move |c| {
        c.webhook_allow_loopback = true;
        c.webhook_schedule = RetrySchedule {
            delays: delays.into_iter().map(chrono::Duration::seconds).collect(),
            disable_after,
        };
    })
    .await
}

pub(crate) async fn dispatch(app: &TestApp) -> DispatchReport {
    app.app
        .services
        .dispatcher
        .tick()
        .await
        .expect("a webhook pass")
}

pub(crate) async fn create(app: &TestApp, token: &str, body: Value) -> Value {
    let a = app.post_json("/v1/webhooks", Some(token), &body).await;
    assert_eq!(a.status, 201, "{}", a.text);
    a.body
}

async fn deliveries(app: &TestApp, token: &str, id: &str) -> Vec<Value> {
    let a = app
        .get(&format!("/v1/webhooks/{id}/deliveries"), Some(token))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["deliveries"].as_array().unwrap().clone()
}

async fn log(app: &TestApp, token: &str) -> Vec<Value> {
    let a = app.get("/v1/events?limit=1000", Some(token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["events"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listing_and_a_delisting_reach_the_receiver_signed_in_order_across_failures_and_a_restart(
) {
    let Some(python) = blackbox::test_python("standardwebhooks") else {
        return;
    };
    let mut app = spawn(&[2], chrono::Duration::hours(1)).await;
    import_un(&app).await;
    publish_policy(&app).await;
    rescreen(&app).await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = company_subject(&app, &token).await;
    subscribe(&app, &token, &subject, "company").await;

    // Registered after the subscription: the endpoint starts at the log's head.
    let receiver = Receiver::start(&python).await;
    let made = create(
        &app,
        &token,
        json!({"url": format!("{}/hook", receiver.url), "types": ["screening.changed"], "description": "compliance inbox"}),
    )
    .await;
    let id = made["id"].as_str().unwrap().to_owned();
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{made}");
    assert_eq!(made["status"], "active");
    assert_eq!(made["cursor"], 1);
    let read = app.get(&format!("/v1/webhooks/{id}"), Some(&token)).await;
    assert_eq!(read.status, 200);
    assert!(!read.text.contains(&secret), "the secret is shown once");
    receiver
        .control(json!({"secret": secret, "fail_first": 2}))
        .await;

    // A version listing the company, then one delisting it: two screening.changed events.
    import_un_with(
        &app,
        vec![listing(
            "TEST.WH1",
            EntryKind::Organisation,
            "Testbolag 4 bokat av SKV Aktiebolag",
            None,
        )],
    )
    .await;
    assert_eq!(rescreen(&app).await.logged, 1);
    let first = dispatch(&app).await;
    assert_eq!((first.delivered, first.failed), (0, 1), "{first:?}");
    // Not due again before the schedule's delay.
    assert_eq!(dispatch(&app).await, DispatchReport::default());
    import_un(&app).await;
    assert_eq!(rescreen(&app).await.logged, 1);
    app.clock.advance(chrono::Duration::seconds(2));
    let second = dispatch(&app).await;
    assert_eq!((second.delivered, second.failed), (0, 1), "{second:?}");

    // The service restarts: where each endpoint stands is in the store.
    app.restart().await;
    app.clock.advance(chrono::Duration::seconds(2));
    let third = dispatch(&app).await;
    assert_eq!((third.delivered, third.failed), (2, 0), "{third:?}");

    // The receiver verified both, in the log's order, each the event as the log shows it.
    let got = receiver.received().await;
    assert_eq!(got["rejected"], 0, "{got}");
    assert_eq!(got["failed"], 2);
    let logged: Vec<Value> = log(&app, &token)
        .await
        .into_iter()
        .filter(|e| e["type"] == "screening.changed")
        .collect();
    assert_eq!(logged.len(), 2);
    assert_eq!(got["accepted"], Value::Array(logged.clone()));
    assert_eq!(Receiver::seqs(&got), [2, 3]);
    assert_eq!(logged[0]["data"]["appeared"][0]["band"], "hit");
    assert_eq!(logged[1]["data"]["disappeared"][0]["entry"], "removed");
    for (h, e) in got["headers"].as_array().unwrap().iter().zip(&logged) {
        assert_eq!(h["webhook-id"], e["id"]);
        assert_eq!(h["content-type"], "application/json");
    }

    // The delivery log: two refusals of the first event, then both delivered.
    let log = deliveries(&app, &token, &id).await;
    let summary: Vec<(i64, i64, &str, Option<i64>)> = log
        .iter()
        .map(|d| {
            (
                d["seq"].as_i64().unwrap(),
                d["attempt"].as_i64().unwrap(),
                d["outcome"].as_str().unwrap(),
                d["status_code"].as_i64(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (2, 1, "refused", Some(503)),
            (2, 2, "refused", Some(503)),
            (2, 3, "delivered", Some(204)),
            (3, 1, "delivered", Some(204)),
        ]
    );
    assert!(log[0]["next_attempt_at"].is_string());
    let now = app.get(&format!("/v1/webhooks/{id}"), Some(&token)).await;
    assert_eq!(
        (now.body["cursor"].as_i64(), now.body["failures"].as_i64()),
        (Some(3), Some(0))
    );
    assert!(now.body["failing_since"].is_null());
    // Nothing more to send.
    assert_eq!(dispatch(&app).await, DispatchReport::default());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_failing_too_long_is_disabled_with_an_event_and_resumes_where_it_stopped() {
    let Some(python) = blackbox::test_python("standardwebhooks") else {
        return;
    };
    let app = spawn(&[30], chrono::Duration::seconds(90)).await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let receiver = Receiver::start(&python).await;
    let made = create(
        &app,
        &token,
        json!({"url": format!("{}/hook", receiver.url), "start_after": 0}),
    )
    .await;
    let id = made["id"].as_str().unwrap().to_owned();
    let secret = made["secret"].as_str().unwrap().to_owned();
    receiver
        .control(json!({"secret": secret, "fail_first": 1000}))
        .await;
    let subject = company_subject(&app, &token).await;
    subscribe(&app, &token, &subject, "company").await;

    // Failing: 0 s, 30 s, 60 s; at 90 s it has failed for the whole allowance.
    for _ in 0..3 {
        assert_eq!(dispatch(&app).await.failed, 1);
        app.clock.advance(chrono::Duration::seconds(30));
    }
    let last = dispatch(&app).await;
    assert_eq!((last.failed, last.disabled), (1, 1), "{last:?}");
    let now = app.get(&format!("/v1/webhooks/{id}"), Some(&token)).await;
    assert_eq!(now.body["status"], "disabled");
    assert_eq!(now.body["disabled_reason"], "failing");
    assert_eq!(now.body["cursor"], 0);
    let disabled: Vec<Value> = log(&app, &token)
        .await
        .into_iter()
        .filter(|e| e["type"] == "webhook.endpoint_disabled")
        .collect();
    assert_eq!(disabled.len(), 1);
    let d = &disabled[0]["data"];
    assert_eq!(d["endpoint_id"], id.as_str());
    assert_eq!(d["reason"], "failing");
    assert_eq!(d["last_delivered_seq"], 0);
    assert_eq!(d["failed_attempts"], 4);
    // Disabled: nothing is tried.
    assert_eq!(dispatch(&app).await, DispatchReport::default());

    // The receiver recovers and the consumer enables the endpoint: it resumes at its cursor,
    // the subscription's event first, then the event that told of the disabling.
    receiver.control(json!({"fail_first": 0})).await;
    let back = app
        .post_json(
            &format!("/v1/webhooks/{id}/enable"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(back.status, 200, "{}", back.text);
    assert_eq!(back.body["status"], "active");
    assert_eq!(back.body["failures"], 0);
    assert_eq!(dispatch(&app).await.delivered, 2);
    let got = receiver.received().await;
    assert_eq!(Receiver::seqs(&got), [1, 2]);
    assert_eq!(got["accepted"][0]["type"], "subscription.created");
    assert_eq!(got["accepted"][1]["type"], "webhook.endpoint_disabled");

    // A rotated secret: the receiver still holding the old one refuses the next delivery;
    // given the new one, it verifies the retry.
    let rotated = app
        .post_json(
            &format!("/v1/webhooks/{id}/rotate-secret"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    let new_secret = rotated.body["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, secret);
    assert!(rotated.body["secret_rotated_at"].is_string());
    let ended = app.get("/v1/subscriptions", Some(&token)).await;
    let sub_id = ended.body["subscriptions"][0]["subscription_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let end = app
        .post_json(
            &format!("/v1/subscriptions/{sub_id}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(end.status, 200, "{}", end.text);
    let refused = dispatch(&app).await;
    assert_eq!(refused.failed, 1);
    assert_eq!(receiver.received().await["rejected"], 1);
    receiver.control(json!({"secret": new_secret})).await;
    app.clock.advance(chrono::Duration::seconds(30));
    assert_eq!(dispatch(&app).await.delivered, 1);
    let got = receiver.received().await;
    assert_eq!(Receiver::seqs(&got), [1, 2, 3]);
    assert_eq!(got["accepted"][2]["type"], "subscription.ended");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_is_its_credentials_alone_and_unsafe_addresses_are_refused() {
    // The default deployment: no loopback receivers.
    let app = TestApp::spawn().await;
    let a = app.provision(SCOPES, "SE", "SE").await;
    let b = app.grant(&a.tenant_id, "events:read", "SE").await;
    let no_events = app.grant(&a.tenant_id, "kyb:read", "SE").await;
    let (ta, tb, tn) = (
        app.token(&a).await,
        app.token(&b).await,
        app.token(&no_events).await,
    );

    for (body, field) in [
        (json!({}), "url"),
        (json!({"url": "http://hooks.example.com/idreg"}), "url"),
        (json!({"url": "https://10.1.2.3/idreg"}), "url"),
        (
            json!({"url": "https://169.254.169.254/latest/meta-data"}),
            "url",
        ),
        (json!({"url": "https://[::1]/idreg"}), "url"),
        (json!({"url": "http://127.0.0.1:9/idreg"}), "url"),
        (json!({"url": "https://user:pw@hooks.example.com/"}), "url"),
        (json!({"url": "ftp://hooks.example.com/"}), "url"),
        (json!({"url": 42}), "url"),
        (
            json!({"url": "https://hooks.example.com/", "types": []}),
            "types",
        ),
        (
            json!({"url": "https://hooks.example.com/", "types": ["company.renamed"]}),
            "types",
        ),
        (
            json!({"url": "https://hooks.example.com/", "start_after": -1}),
            "start_after",
        ),
        (
            json!({"url": "https://hooks.example.com/", "description": "x".repeat(201)}),
            "description",
        ),
    ] {
        let r = app.post_json("/v1/webhooks", Some(&ta), &body).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text);
        assert_eq!(r.error_code(), "bad_request");
        assert!(
            r.body["message"].as_str().unwrap().contains(field),
            "{body}: {}",
            r.text
        );
    }
    // Without events:read: refused before anything is read.
    let r = app
        .post_json(
            "/v1/webhooks",
            Some(&tn),
            &json!({"url": "https://hooks.example.com/idreg"}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);

    let made = create(&app, &ta, json!({"url": "https://hooks.example.com/idreg"})).await;
    let id = made["id"].as_str().unwrap().to_owned();
    assert!(made["types"].is_null() && made["description"].is_null());
    // Another credential of the same tenant neither sees nor touches it.
    let listed = app.get("/v1/webhooks", Some(&tb)).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body["endpoints"], json!([]));
    for path in [
        format!("/v1/webhooks/{id}"),
        format!("/v1/webhooks/{id}/deliveries"),
    ] {
        assert_eq!(app.get(&path, Some(&tb)).await.status, 404, "{path}");
    }
    for action in ["disable", "enable", "rotate-secret"] {
        let r = app
            .post_json(
                &format!("/v1/webhooks/{id}/{action}"),
                Some(&tb),
                &json!({}),
            )
            .await;
        assert_eq!(r.status, 404, "{action}: {}", r.text);
    }
    assert_eq!(
        app.get("/v1/webhooks/whk_nonsense", Some(&ta)).await.status,
        404
    );
    let bad_cursor = app
        .get(
            &format!("/v1/webhooks/{id}/deliveries?cursor=01"),
            Some(&ta),
        )
        .await;
    assert_eq!(bad_cursor.error_code(), "invalid_cursor");

    // The owner disables it and lists it; the MCP tools answer the same bodies.
    let off = app
        .post_json(&format!("/v1/webhooks/{id}/disable"), Some(&ta), &json!({}))
        .await;
    assert_eq!(off.status, 200);
    assert_eq!(
        (
            off.body["status"].as_str(),
            off.body["disabled_reason"].as_str()
        ),
        (Some("disabled"), Some("consumer"))
    );
    let listed = call_tool(&app, &ta, "list_webhooks", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    assert_eq!(
        listed["structuredContent"]["endpoints"][0]["id"],
        id.as_str()
    );
    assert_eq!(
        listed["structuredContent"]["endpoints"][0]["status"],
        "disabled"
    );
    let on = call_tool(&app, &ta, "enable_webhook", json!({"id": id})).await;
    assert_eq!(on["structuredContent"]["status"], "active", "{on}");
    let other = call_tool(&app, &tb, "get_webhook", json!({"id": id})).await;
    assert_eq!(other["isError"], true, "{other}");
    let made = call_tool(
        &app,
        &ta,
        "create_webhook",
        json!({"url": "https://hooks.example.com/second", "types": ["screening.changed"]}),
    )
    .await;
    assert_eq!(made["isError"], false, "{made}");
    assert!(made["structuredContent"]["secret"]
        .as_str()
        .unwrap()
        .starts_with("whsec_"));

    // A credential holds ten at most: the eleventh is 409, and nothing is made.
    for n in 3..=10 {
        create(
            &app,
            &ta,
            json!({"url": format!("https://hooks.example.com/{n}")}),
        )
        .await;
    }
    let over = app
        .post_json(
            "/v1/webhooks",
            Some(&ta),
            &json!({"url": "https://hooks.example.com/11"}),
        )
        .await;
    assert_eq!(over.status, 409, "{}", over.text);
    assert_eq!(over.error_code(), "webhook_limit_reached");
    let listed = app.get("/v1/webhooks", Some(&ta)).await;
    assert_eq!(listed.body["endpoints"].as_array().unwrap().len(), 10);
    // Another credential of the tenant has its own ten.
    create(&app, &tb, json!({"url": "https://hooks.example.com/b"})).await;
}
