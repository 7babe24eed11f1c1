//! An upstream plugged in from outside the sandbox (as a country crate plugs in its own):
//! served under its name, under fault injection and the call log like the sandbox's own
//! sources, with its own control routes and reset, and refused when its name is taken.

use crate::common::{client, start_with};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use upstream_sandbox::{FaultSpec, Sandbox, SandboxConfig, SandboxPlugin, Source};

/// A register with one counter: `GET /count` reads it, `POST /control/plugins/xx-count/bump`
/// raises it.
struct Counter {
    name: &'static str,
    count: AtomicU32,
}

fn unavailable(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "feil": "utilgjengelig" }))
}

impl SandboxPlugin for Counter {
    fn name(&self) -> &'static str {
        self.name
    }
    fn error(&self) -> fn(StatusCode, &HttpRequest) -> HttpResponse {
        unavailable
    }
    fn answer(&self, req: &HttpRequest, path: &str, _body: &[u8]) -> HttpResponse {
        match (req.method().as_str(), path) {
            ("GET", "/count") => {
                HttpResponse::Ok().json(json!({ "count": self.count.load(Ordering::SeqCst) }))
            }
            _ => HttpResponse::NotFound().json(json!({ "path": path })),
        }
    }
    fn control(&self, req: &HttpRequest, path: &str, body: &[u8]) -> HttpResponse {
        match (req.method().as_str(), path) {
            ("POST", "/bump") => {
                let by: Value = serde_json::from_slice(body).unwrap_or(json!({}));
                let by = by["by"].as_u64().unwrap_or(1) as u32;
                self.count.fetch_add(by, Ordering::SeqCst);
                HttpResponse::NoContent().finish()
            }
            _ => HttpResponse::NotFound().finish(),
        }
    }
    fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }
}

fn counter(name: &'static str) -> Arc<dyn SandboxPlugin> {
    Arc::new(Counter {
        name,
        count: AtomicU32::new(0),
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugged_in_upstream_is_served_faulted_logged_controlled_and_reset() {
    let sb = start_with(SandboxConfig::default().with_plugin(counter("xx-count")));
    let c = client();
    let base = sb.plugin_base_url("xx-count");
    let read = |c: reqwest::Client, url: String| async move {
        let r = c.get(url).send().await.unwrap();
        (
            r.status().as_u16(),
            r.json::<Value>().await.unwrap_or(Value::Null),
        )
    };
    assert_eq!(
        read(c.clone(), format!("{base}/count")).await,
        (200, json!({"count": 0}))
    );
    assert_eq!(read(c.clone(), format!("{base}/nothing")).await.0, 404);

    // Its own control route, loopback only like the rest of /control.
    let r = c
        .post(format!("{}/plugins/xx-count/bump", sb.control_url()))
        .json(&json!({ "by": 3 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(
        read(c.clone(), format!("{base}/count")).await,
        (200, json!({"count": 3}))
    );
    let r = c
        .post(format!("{}/plugins/xx-other/bump", sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // Faults armed over HTTP by its name answer in its own error shape, then pass.
    let r = c
        .post(format!("{}/faults/xx-count", sb.control_url()))
        .json(&FaultSpec::http_5xx(502).times(1))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(
        read(c.clone(), format!("{base}/count")).await,
        (502, json!({"feil": "utilgjengelig"}))
    );
    assert_eq!(read(c.clone(), format!("{base}/count")).await.0, 200);
    // In process too, with a malformed answer.
    sb.control()
        .inject_fault(Source::Plugin("xx-count"), FaultSpec::malformed().times(1))
        .unwrap();
    let r = c.get(format!("{base}/count")).send().await.unwrap();
    assert!(r.json::<Value>().await.is_err(), "cut in half");

    // Every call is logged under its name, and the log reads back over HTTP.
    let calls = sb.control().calls_for(Source::Plugin("xx-count"));
    assert_eq!(calls.len(), 6);
    assert_eq!(calls[3].status, Some(502));
    assert_eq!(calls[5].fault, Some(upstream_sandbox::FaultKind::Malformed));
    let listed: Value = c
        .get(format!("{}/calls?source=xx-count", sb.control_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed = listed["calls"].as_array().expect("calls").clone();
    assert_eq!(listed.len(), 6, "{listed:?}");
    let again: upstream_sandbox::CallRecord = serde_json::from_value(listed[3].clone()).unwrap();
    assert_eq!(again.source, Source::Plugin("xx-count"));
    assert!(sb.control().calls_for(Source::Lt).is_empty());

    // A reset puts it back to the start with the rest.
    let r = c
        .post(format!("{}/reset", sb.control_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(
        read(c.clone(), format!("{base}/count")).await,
        (200, json!({"count": 0}))
    );

    // The root lists it; the sandbox's own sources still answer.
    let root: Value = c
        .get(&sb.base_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(root["plugins"]["xx-count"], base);
    // Its links are the sandbox's own address whatever Host a request names.
    for page in [sb.base_url.clone(), sb.control_url()] {
        let spoofed: Value = c
            .get(&page)
            .header("host", "attacker.example")
            .header("x-forwarded-host", "attacker.example")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(spoofed["base_url"], sb.base_url, "{page}");
        assert!(
            !spoofed.to_string().contains("attacker"),
            "{page}: {spoofed}"
        );
    }
    let unknown = c
        .post(format!("{}/faults/xx-none", sb.control_url()))
        .json(&FaultSpec::timeout())
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let sources: Value = unknown.json().await.unwrap();
    assert!(sources["sources"]
        .as_array()
        .unwrap()
        .contains(&json!("xx-count")));
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_may_not_take_the_sandboxs_names_or_another_plugins() {
    for name in ["lt", "control", "scb", "XX", "xx/yy"] {
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let e = Sandbox::start(SandboxConfig::default().with_plugin(counter(leaked)))
            .err()
            .unwrap_or_else(|| panic!("{name} was accepted"));
        assert!(!e.to_string().is_empty());
    }
    let e = Sandbox::start(
        SandboxConfig::default()
            .with_plugin(counter("xx-a"))
            .with_plugin(counter("xx-a")),
    )
    .expect_err("a name twice is refused");
    assert!(e.to_string().contains("xx-a"), "{e}");
}
