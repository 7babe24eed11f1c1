//! The operator's metrics listener: `GET /metrics` on an address of its own, in the
//! Prometheus text format, read by Prometheus' official Python client; its counters moved by
//! known requests, its levels read at scrape time, and nothing in it that names a tenant, a
//! subject or an identifier.

use crate::screening::{checked, publish_policy};
use blackbox::store::StoreKind;
use blackbox::TestApp;
use serde_json::{json, Value};

const TEST_AB: &str = "5560021361";
const SCOPES: &str =
    "kyb:read monitoring:subscribe monitoring:read events:read screening:run screening:read";

/// The app's metrics listener on a free port, and its scrape's URL.
fn listener(app: &TestApp) -> (idreg::server::RunningServer, String) {
    let metrics = app
        .app
        .start_metrics("127.0.0.1:0")
        .expect("the metrics listener");
    let url = format!("{}/metrics", metrics.base_url());
    (metrics, url)
}

/// One scrape as the official client reads it.
struct Scrape {
    content_type: String,
    samples: Vec<(String, serde_json::Map<String, Value>, f64)>,
}

impl Scrape {
    /// The sum of the samples named `name` whose labels include every pair of `labels`.
    fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .filter(|(n, l, _)| {
                n == name
                    && labels
                        .iter()
                        .all(|(k, v)| l.get(*k).and_then(Value::as_str) == Some(*v))
            })
            .map(|(_, _, v)| v)
            .sum()
    }
}

/// Scrapes with `prometheus_client`'s parser; `None` when the Python clients are missing
/// (a skip outside `cargo xtask test`, a failure in it).
async fn scrape(url: &str) -> Option<Scrape> {
    let python = blackbox::test_python("prometheus-client")?;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/metrics_clients/read_metrics.py"
    );
    let output = tokio::process::Command::new(python)
        .arg(script)
        .arg(url)
        .output()
        .await
        .expect("running the metrics reader");
    assert!(
        output.status.success(),
        "the official client could not read the scrape: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read: Value = serde_json::from_slice(&output.stdout).expect("the reader's JSON");
    Some(Scrape {
        content_type: read["content_type"].as_str().unwrap_or_default().to_owned(),
        samples: read["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s[0].as_str().unwrap().to_owned(),
                    s[1].as_object().unwrap().clone(),
                    s[2].as_f64().unwrap(),
                )
            })
            .collect(),
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn known_requests_move_the_counters_the_official_client_reads() {
    let app = TestApp::spawn().await;
    let (metrics, url) = listener(&app);
    let Some(before) = scrape(&url).await else {
        return;
    };
    assert_eq!(
        before.content_type,
        "text/plain; version=0.0.4; charset=utf-8"
    );

    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    // Two reads of one company: the first asks the register, the second is served cached.
    let mut subject = String::new();
    for _ in 0..2 {
        let a = app
            .get(&format!("/v1/companies/{TEST_AB}"), Some(&token))
            .await;
        assert_eq!(a.status, 200, "{}", a.text);
        subject = a.body["data"]["subject_id"].as_str().unwrap().to_owned();
    }
    let unknown = app.get("/v1/nowhere/at/all", Some(&token)).await;
    assert_eq!(unknown.status, 404);
    // A paid read spends from the budget; with the budget set to nothing, the next is refused.
    let paid = app
        .get(&format!("/v1/companies/{TEST_AB}/officers"), Some(&token))
        .await;
    assert_eq!(paid.status, 200, "{}", paid.text);
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "0"])
        .await
        .expect("budget set");
    let refused = app
        .get(
            &format!("/v1/companies/{TEST_AB}/beneficial-owners"),
            Some(&token),
        )
        .await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    // A subscription logs its creation; its first scheduled run is claimed and, with no
    // budget for its full reading, deferred.
    let sub = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd",
                    "check_days": 1, "full_refresh_days": 7}),
        )
        .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    let report = app.run_scheduler().await;
    assert_eq!(report.claimed, 1, "{report:?}");
    // A screening check against an imported list.
    crate::screening::import_un(&app).await;
    publish_policy(&app).await;
    let check = checked(&app, &token, json!({"name": "Nobody In Particular"})).await;
    let band = check.body["band"].as_str().unwrap().to_owned();

    let after = scrape(&url).await.expect("the second scrape");
    let moved =
        |name: &str, labels: &[(&str, &str)]| after.sum(name, labels) - before.sum(name, labels);
    let company = [
        ("method", "GET"),
        ("route", "/v1/companies/{orgnr}"),
        ("status", "200"),
    ];
    let requests: Vec<_> = after
        .samples
        .iter()
        .filter(|(n, _, _)| n == "idreg_http_requests_total")
        .collect();
    assert_eq!(
        moved("idreg_http_requests_total", &company),
        2.0,
        "{requests:?}"
    );
    assert_eq!(
        moved(
            "idreg_http_request_duration_seconds_count",
            &[("method", "GET"), ("route", "/v1/companies/{orgnr}")]
        ),
        2.0
    );
    assert_eq!(
        moved(
            "idreg_http_requests_total",
            &[("route", "unmatched"), ("status", "404")]
        ),
        1.0
    );
    assert_eq!(
        moved(
            "idreg_http_requests_total",
            &[
                ("route", "/oauth/token"),
                ("method", "POST"),
                ("status", "200")
            ]
        ),
        1.0
    );
    // The register was asked for the first read only, and each call was timed.
    let ok_calls = moved("idreg_upstream_calls_total", &[("outcome", "ok")]);
    assert!(ok_calls >= 1.0, "upstream calls counted: {ok_calls}");
    assert_eq!(
        moved("idreg_upstream_call_duration_seconds_count", &[]),
        moved("idreg_upstream_calls_total", &[])
    );
    let paid_spend = |spender, outcome| {
        moved(
            "idreg_budget_spends_total",
            &[
                ("budget", "paid"),
                ("spender", spender),
                ("outcome", outcome),
            ],
        )
    };
    assert_eq!(paid_spend("on_demand", "spent"), 1.0);
    assert_eq!(paid_spend("on_demand", "refused"), 1.0);
    assert_eq!(paid_spend("scheduled", "refused"), 1.0);
    assert_eq!(moved("idreg_scheduler_claimed_runs_total", &[]), 1.0);
    assert_eq!(moved("idreg_scheduler_deferred_runs_total", &[]), 1.0);
    assert_eq!(moved("idreg_scheduler_run_lag_seconds_count", &[]), 1.0);
    assert_eq!(
        moved(
            "idreg_events_appended_total",
            &[("type", "subscription.created")]
        ),
        1.0
    );
    assert_eq!(
        moved("idreg_screening_checks_total", &[("band", band.as_str())]),
        1.0
    );
    // Levels, read at scrape time.
    assert_eq!(after.sum("idreg_store_reachable", &[]), 1.0);
    assert!(after.sum("idreg_store_connections", &[("state", "max")]) >= 1.0);
    assert!(after.sum("idreg_store_connections", &[("state", "open")]) >= 1.0);
    assert_eq!(after.sum("idreg_scheduler_due_runs", &[]), 0.0);
    assert_eq!(
        after
            .samples
            .iter()
            .filter(|(n, l, _)| n == "idreg_screening_list_age_seconds" && l["list"] == "un_sc")
            .count(),
        1
    );

    // Nothing in the scrape names a tenant, a grant, a subject or an identifier.
    let text = reqwest::get(&url).await.unwrap().text().await.unwrap();
    for secret in [
        c.tenant_id.as_str(),
        c.grant_id.as_str(),
        c.client_id.as_str(),
        subject.as_str(),
        TEST_AB,
        "556002-1361",
    ] {
        assert!(!text.contains(secret), "the scrape names {secret}");
    }
    // The consumer origin does not serve the scrape.
    assert_eq!(app.get("/metrics", None).await.status, 404);
    metrics.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scrape_answers_while_the_store_is_down_and_says_so() {
    let app = TestApp::spawn().await;
    let (metrics, url) = listener(&app);
    let outage = app.db.outage().await;
    let answer = reqwest::get(&url).await.unwrap();
    assert_eq!(answer.status(), 200);
    let text = answer.text().await.unwrap();
    let expected = match app.db.kind() {
        StoreKind::Postgres => "idreg_store_reachable 0",
        // The embedded store's outage is its write lock held elsewhere: reads go on (WAL).
        StoreKind::Sqlite => "idreg_store_reachable 1",
    };
    assert!(text.lines().any(|l| l == expected), "{text}");
    assert!(
        text.contains("idreg_store_connections{state=\"max\"}"),
        "{text}"
    );
    drop(outage);
    let mut text = String::new();
    for _ in 0..50 {
        text = reqwest::get(&url).await.unwrap().text().await.unwrap();
        if text.lines().any(|l| l == "idreg_store_reachable 1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        text.lines().any(|l| l == "idreg_store_reachable 1"),
        "{text}"
    );
    metrics.stop().await;
}

/// A method is a label a client controls: 300 requests with made-up methods, to a route and
/// to no route, add one `_OTHER` series per route template and status, not 300.
#[tokio::test(flavor = "multi_thread")]
async fn made_up_methods_add_no_series() {
    let app = TestApp::spawn().await;
    let (metrics, url) = listener(&app);
    let series = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("idreg_http_requests_total{"))
            .count()
    };
    let before = series(&reqwest::get(&url).await.unwrap().text().await.unwrap());
    for i in 0..300 {
        let method = reqwest::Method::from_bytes(format!("MADEUP{i}").as_bytes()).unwrap();
        let path = if i % 2 == 0 {
            "/v1/usage"
        } else {
            "/no/such/route"
        };
        let answer = app
            .http
            .request(method, app.url(path))
            .send()
            .await
            .unwrap();
        assert!(answer.status().as_u16() < 500);
    }
    let text = reqwest::get(&url).await.unwrap().text().await.unwrap();
    assert!(!text.contains("MADEUP"), "a made-up method became a label");
    assert!(text.contains(r#"method="_OTHER""#), "{text}");
    assert!(
        series(&text) <= before + 4,
        "{} series after 300 made-up methods (from {before})",
        series(&text)
    );
    metrics.stop().await;
}

#[test]
fn a_metrics_listener_on_the_consumer_address_is_refused() {
    let refused = idreg::metrics::check_apart("127.0.0.1:8080", Some("127.0.0.1:8080"))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("must not be the consumer listener"),
        "{refused}"
    );
    assert!(idreg::metrics::check_apart("127.0.0.1:8080", Some("127.0.0.1:9464")).is_ok());
    assert!(idreg::metrics::check_apart("127.0.0.1:8080", None).is_ok());
    // Port 0 is a free port the system picks for each: never the same one.
    assert!(idreg::metrics::check_apart("127.0.0.1:0", Some("127.0.0.1:0")).is_ok());
}

/// The store's statement counter, as the scrape shows it.
async fn statements(url: &str) -> u64 {
    let text = reqwest::get(url).await.unwrap().text().await.unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("idreg_store_statements_total "))
        .unwrap_or_else(|| panic!("no statement counter in\n{text}"))
        .parse()
        .unwrap()
}

/// What a cached company read costs the store, counted by the store's connections. On
/// PostgreSQL three statements, each one round trip: the guard's one read of grant, tenant
/// and permit; the cached row with its evidence and its subject's canonical id and aliases;
/// the audit rows' one insert. On the embedded store (in process, no round trips) sixteen:
/// the guard's three reads and the cached read's five, each group in a read transaction
/// (`BEGIN`, `COMMIT`), and the audit and access rows' two inserts in the trail's write
/// transaction. A change that adds a statement to the request path fails here.
#[tokio::test(flavor = "multi_thread")]
async fn what_a_cached_read_costs_the_store_in_statements() {
    let app = TestApp::spawn().await;
    let (metrics, url) = listener(&app);
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let path = format!("/v1/companies/{TEST_AB}");
    assert_eq!(app.get(&path, Some(&token)).await.status, 200);
    // A scrape costs reads of its own (the backlog, the lists): measured, then taken off.
    let a = statements(&url).await;
    let b = statements(&url).await;
    let scrape = b - a;
    const READS: u64 = 10;
    for _ in 0..READS {
        let read = app.get(&path, Some(&token)).await;
        assert_eq!(read.status, 200, "{}", read.text);
    }
    let spent = statements(&url).await - b - scrape;
    let per_read = match app.db.kind() {
        StoreKind::Postgres => 3,
        StoreKind::Sqlite => 5 + 7 + 4,
    };
    assert_eq!(
        spent,
        READS * per_read,
        "{READS} cached reads cost {spent} statements (a scrape {scrape})"
    );
    metrics.stop().await;
}
