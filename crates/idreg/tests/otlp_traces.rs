//! Traces over OTLP: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the real binary sends each
//! request's span (named `request`, with its request id, method and route template) to the
//! collector over HTTP; the receiver here decodes the protobuf the exporter sent. Without the
//! variable nothing is sent (the other tests of the binary run that way).

use blackbox::TempDir;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
            _ => None,
        }
    })
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
        if let Some(span) = spans.iter().find(|s| {
            s.name == "request" && attribute(s, "request_id").as_deref() == Some(&request_id)
        }) {
            assert_eq!(attribute(span, "route").as_deref(), Some("/healthz"));
            assert_eq!(attribute(span, "method").as_deref(), Some("GET"));
            assert_eq!(service.as_deref(), Some("idreg"));
            assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
            return;
        }
    }
}
