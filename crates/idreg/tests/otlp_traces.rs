//! Traces: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the real binary sends each request's span
//! (named for its method and route template, with OpenTelemetry's HTTP attributes and the
//! request id, a child of the caller's `traceparent`) to the collector over HTTP; the receiver
//! here decodes the protobuf the exporter sent. Without the variable nothing is sent, and the
//! trace context still flows: the caller's trace id is in every log line of the request and
//! the register the request calls receives the context.

use blackbox::{free_port, TempDir};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const OTLP: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A collector on loopback: every POST's path and body, as received.
async fn collector() -> (
    String,
    tokio::sync::mpsc::UnboundedReceiver<(String, Vec<u8>)>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let (head_end, length, path) = loop {
                    let n = stream.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_string();
                        let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
                        let length = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        break (i + 4, length, path);
                    }
                };
                while buf.len() < head_end + length {
                    let n = stream.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let _ = tx.send((path, buf[head_end..head_end + length].to_vec()));
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n",
                    )
                    .await;
            });
        }
    });
    (url, rx)
}

fn attribute(span: &opentelemetry_proto::tonic::trace::v1::Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|a| a.key == key).and_then(|a| {
        match a.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            AnyValue::IntValue(n) => Some(n.to_string()),
            _ => None,
        }
    })
}

/// A caller's trace context: W3C `traceparent`, version 00, sampled.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_SPAN}-01")
}

#[tokio::test(flavor = "multi_thread")]
async fn each_request_span_goes_to_the_collector_with_its_request_id() {
    let (collector_url, mut received) = collector().await;
    let state = TempDir::new();
    let base = format!("http://127.0.0.1:{}", free_port());
    let _served = Served(
        Command::new(env!("CARGO_BIN_EXE_idreg"))
            .args(["serve", "--sandbox"])
            .env_remove("DATABASE_URL")
            .env("IDREG_STATE_DIR", &state.path)
            .env("IDREG_LISTEN", base.trim_start_matches("http://"))
            .env("IDREG_LOG", "info")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector_url)
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env_remove("OTEL_SERVICE_NAME")
            .current_dir(&state.path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting idreg serve"),
    );
    let http = reqwest::Client::new();
    let started = Instant::now();
    let answer = loop {
        match http.get(format!("{base}/healthz")).send().await {
            Ok(a) => break a,
            Err(_) if started.elapsed() < Duration::from_secs(60) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("idreg did not start: {e}"),
        }
    };
    assert_eq!(answer.status(), 200);
    // The request under test: a caller's trace context, a child span expected.
    let answer = http
        .get(format!("{base}/healthz"))
        .header("traceparent", traceparent())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let request_id = answer.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();

    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let (path, body) = tokio::time::timeout(left, received.recv())
            .await
            .expect("the span reached the collector in time")
            .expect("the collector runs");
        assert_eq!(path, "/v1/traces");
        let export = ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP protobuf");
        let service = export.resource_spans.iter().find_map(|r| {
            r.resource.as_ref()?.attributes.iter().find_map(|a| {
                (a.key == "service.name").then(|| match a.value.as_ref()?.value.as_ref()? {
                    AnyValue::StringValue(s) => Some(s.clone()),
                    _ => None,
                })?
            })
        });
        let spans: Vec<_> = export
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .collect();
        if let Some(span) = spans
            .iter()
            .find(|s| attribute(s, "request_id").as_deref() == Some(&request_id))
        {
            // Named by route template, a server span, with the semantic conventions' names.
            assert_eq!(span.name, "GET /healthz");
            assert_eq!(span.kind, 2, "SPAN_KIND_SERVER");
            assert_eq!(attribute(span, "http.route").as_deref(), Some("/healthz"));
            assert_eq!(
                attribute(span, "http.request.method").as_deref(),
                Some("GET")
            );
            assert_eq!(
                attribute(span, "http.response.status_code").as_deref(),
                Some("200")
            );
            // The caller's trace, the caller's span its parent.
            assert_eq!(hex(&span.trace_id), TRACE_ID);
            assert_eq!(hex(&span.parent_span_id), PARENT_SPAN);
            assert_eq!(attribute(span, "trace_id").as_deref(), Some(TRACE_ID));
            assert_eq!(service.as_deref(), Some("idreg"));
            assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
            return;
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `idreg <args>` on the state folder's embedded store: its one JSON line.
fn admin(state: &TempDir, args: &[&str]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .arg("admin")
        .args(args)
        .env_remove("DATABASE_URL")
        .env("IDREG_STATE_DIR", &state.path)
        .env("IDREG_LOG", "warn")
        .current_dir(&state.path)
        .output()
        .expect("running idreg admin");
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// No exporter: a caller's `traceparent` still joins the request to the caller's trace. Every
/// log line of the request (JSON) carries the caller's trace id, a request without one gets a
/// trace id of its own, and the register the request calls receives the caller's trace with
/// a span of idreg's as parent.
#[tokio::test(flavor = "multi_thread")]
async fn a_callers_trace_context_reaches_the_logs_and_the_registers_without_an_exporter() {
    use std::io::BufRead;
    let state = TempDir::new();
    let log = state.path.join("serve.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .args(["serve", "--sandbox", "--listen", "127.0.0.1:0"])
        .env_remove("DATABASE_URL")
        .env_remove(OTLP)
        .env("IDREG_STATE_DIR", &state.path)
        .env("IDREG_LOG", "info")
        .env("IDREG_LOG_FORMAT", "json")
        .current_dir(&state.path)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("starting idreg serve");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _served = Served(child);
    let printed: serde_json::Value = serde_json::from_str(&line).expect("the address line");
    let base = printed["idreg"].as_str().unwrap().to_owned();
    let control = printed["sandbox_control"].as_str().unwrap().to_owned();

    let tenant = admin(
        &state,
        &[
            "tenant",
            "create",
            "--name",
            "Trace AB",
            "--country",
            "SE",
            "--activate",
        ],
    );
    let tenant = tenant["tenant_id"].as_str().unwrap();
    let grant = admin(
        &state,
        &[
            "grant",
            "create",
            "--tenant",
            tenant,
            "--scopes",
            "kyb:read",
            "--countries",
            "SE",
        ],
    );
    let http = reqwest::Client::new();
    let token: serde_json::Value = http
        .post(format!("{base}/oauth/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", grant["client_id"].as_str().unwrap()),
            ("client_secret", grant["client_secret"].as_str().unwrap()),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["access_token"].as_str().unwrap();
    let read = http
        .get(format!("{base}/v1/companies/5560021361"))
        .bearer_auth(token)
        .header("traceparent", traceparent())
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    let request_id = read.headers()["x-request-id"].to_str().unwrap().to_owned();
    let untraced = http.get(format!("{base}/healthz")).send().await.unwrap();
    let untraced_id = untraced.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();

    // The register got the caller's trace, under a span of idreg's.
    let calls: serde_json::Value = reqwest::get(format!("{control}/calls"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let parents: Vec<&str> = calls
        .as_array()
        .or_else(|| calls["calls"].as_array())
        .expect("the call log")
        .iter()
        .filter_map(|c| c["traceparent"].as_str())
        .collect();
    assert!(!parents.is_empty(), "{calls}");
    for parent in &parents {
        let parts: Vec<&str> = parent.split('-').collect();
        assert_eq!(parts.len(), 4, "{parent}");
        assert_eq!(parts[1], TRACE_ID, "{parent}");
        assert_ne!(
            parts[2], PARENT_SPAN,
            "idreg's own span is the parent: {parent}"
        );
        assert_eq!(
            parts[3], "01",
            "the caller's sampling decision travels on: {parent}"
        );
    }

    // Every log line of each request names its trace.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let of = |id: &str| -> Vec<&serde_json::Value> {
            lines
                .iter()
                .filter(|l| l["span"]["request_id"].as_str() == Some(id))
                .collect()
        };
        let (traced, other) = (of(&request_id), of(&untraced_id));
        if !traced.is_empty() && !other.is_empty() {
            for l in &traced {
                assert_eq!(l["span"]["trace_id"].as_str(), Some(TRACE_ID), "{l}");
            }
            let own = other[0]["span"]["trace_id"].as_str().unwrap_or_default();
            assert!(
                own.len() == 32 && own != TRACE_ID && own.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}",
                other[0]
            );
            return;
        }
        assert!(Instant::now() < deadline, "{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
