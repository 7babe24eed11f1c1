//! The kit over real HTTP: a loopback server (raw HTTP/1.1 on `127.0.0.1:0`, so lengths,
//! delays and redirects are exactly what each test says) answers a client built by
//! `build_client`, and each test checks what `exchange` and `conclude` make of it.

use connector_kit::{
    build_client, conclude, exchange, new_request_id, read_json, send, status_failure, AnswerMeta,
    Operation, Timeouts, TlsConfig, Transport, REQUEST_ID,
};
use domain::companies::profile::{RegistryFailure, UpstreamCall};
use domain::evidence::EvidenceSource;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with every request it reads.
#[derive(Clone)]
struct Reply {
    /// Waits this long before answering.
    delay: Duration,
    /// The whole answer as written: status line, headers, blank line, body.
    bytes: Vec<u8>,
    /// After writing, keeps the connection open without another byte (instead of closing).
    hang: bool,
}

impl Reply {
    /// A status and body with a `Content-Length`.
    fn sized(status: &str, headers: &str, body: &[u8]) -> Reply {
        let mut bytes = format!(
            "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        Reply {
            delay: Duration::ZERO,
            bytes,
            hang: false,
        }
    }

    /// A 200 whose body is sent chunked (no `Content-Length`), in pieces of `piece` bytes.
    fn chunked(body: &[u8], piece: usize) -> Reply {
        let mut bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for c in body.chunks(piece) {
            bytes.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
            bytes.extend_from_slice(c);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"0\r\n\r\n");
        Reply {
            delay: Duration::ZERO,
            bytes,
            hang: false,
        }
    }
}

/// A running loopback server and how many requests it has read.
struct Server {
    url: String,
    requests: Arc<AtomicUsize>,
}

async fn serve(reply: Reply) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/things", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream, reply.clone(), counter.clone()));
        }
    });
    Server { url, requests }
}

/// Reads one request (head and `Content-Length` body), then answers it as `reply` says.
async fn answer(mut stream: TcpStream, reply: Reply, requests: Arc<AtomicUsize>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    requests.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(reply.delay).await;
    if stream.write_all(&reply.bytes).await.is_err() {
        return;
    }
    let _ = stream.flush().await;
    if reply.hang {
        tokio::time::sleep(Duration::from_secs(60)).await;
    }
    let _ = stream.shutdown().await;
}

fn client(total: Duration) -> reqwest::Client {
    build_client(
        "test",
        "idreg-connector-kit-test/0",
        Timeouts::total(total),
        &TlsConfig::default(),
    )
    .unwrap()
}

fn op(cost: i32) -> Operation {
    Operation {
        source: EvidenceSource::declared("companyreg.example"),
        name: "POST /things",
        schema_version: "test-v1",
        cost,
    }
}

/// One call as a connector makes it: 200 is the body, 404 not found, any other status
/// `status_failure`; the answer's `x-request-id` echo is its reference.
async fn one_call(
    http: &reqwest::Client,
    url: &str,
    op: &Operation,
    limit: usize,
) -> (UpstreamCall, Result<Vec<u8>, RegistryFailure>) {
    let request_id = new_request_id();
    let request = http
        .post(url)
        .header(REQUEST_ID, &request_id)
        .json(&serde_json::json!({ "id": "x" }));
    let outcome = send(request, limit).await;
    conclude(op, &request_id, outcome, |a| {
        let result = match a.status {
            200 => Ok(a.body.clone()),
            404 => Err(RegistryFailure::NotFound),
            s => Err(status_failure(&op.label(), s)),
        };
        let meta = AnswerMeta {
            upstream_ref: a.header(REQUEST_ID).map(str::to_owned),
            ..AnswerMeta::default()
        };
        (result, meta)
    })
}

fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

#[tokio::test]
async fn a_slow_upstream_is_unavailable_with_a_time_limit_reason() {
    let server = serve(Reply {
        delay: Duration::from_secs(3),
        ..Reply::sized("200 OK", "", b"late")
    })
    .await;
    let op = op(2);
    let started = Instant::now();
    let (call, result) =
        one_call(&client(Duration::from_millis(300)), &server.url, &op, 1000).await;
    assert!(started.elapsed() < Duration::from_secs(2));
    let Err(RegistryFailure::Unavailable(reason)) = result else {
        panic!("{result:?}")
    };
    assert_eq!(
        reason,
        "companyreg.example POST /things: no answer within the time limit"
    );
    assert_eq!((call.status, call.digest.as_deref()), (None, None));
    assert_eq!((call.usable, call.cost), (false, 0));
    assert_eq!(call.operation, "POST /things");
    // Timed up to the time limit, and counted as no answer.
    assert!(
        call.elapsed >= Duration::from_millis(300) && call.elapsed < Duration::from_secs(2),
        "{:?}",
        call.elapsed
    );
    assert_eq!(call.outcome(), domain::meter::UpstreamOutcome::Unreachable);
}

#[tokio::test]
async fn an_unreachable_upstream_is_unavailable() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/things", listener.local_addr().unwrap());
    drop(listener);
    let (call, result) = one_call(&client(Duration::from_secs(2)), &url, &op(1), 1000).await;
    assert_eq!(
        result,
        Err(RegistryFailure::Unavailable(
            "companyreg.example POST /things: connection failed".into()
        ))
    );
    assert_eq!((call.status, call.usable, call.cost), (None, false, 0));
}

#[tokio::test]
async fn an_over_limit_body_is_refused_by_its_content_length_before_reading() {
    // The head announces a million bytes, sends ten and then nothing: refusing by the
    // announced length is the only way not to wait for the time limit.
    let mut bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".to_vec();
    bytes.extend_from_slice(&[b'x'; 10]);
    let server = serve(Reply {
        delay: Duration::ZERO,
        bytes,
        hang: true,
    })
    .await;
    let http = client(Duration::from_secs(5));
    let started = Instant::now();
    let outcome = exchange(http.post(&server.url), 1000).await;
    assert_eq!(outcome.unwrap_err(), Transport::TooLarge(1000));
    assert!(started.elapsed() < Duration::from_secs(4));

    let (call, result) = one_call(&http, &server.url, &op(1), 1000).await;
    assert_eq!(
        result,
        Err(RegistryFailure::Unavailable(
            "companyreg.example POST /things: the answer exceeds 1000 bytes".into()
        ))
    );
    assert_eq!((call.status, call.usable, call.cost), (None, false, 0));
}

#[tokio::test]
async fn an_over_limit_body_without_content_length_is_refused_while_reading() {
    let http = client(Duration::from_secs(5));
    let over = serve(Reply::chunked(&[b'x'; 1001], 100)).await;
    let outcome = exchange(http.post(&over.url), 1000).await;
    assert_eq!(outcome.unwrap_err(), Transport::TooLarge(1000));

    // Exactly the limit is read whole.
    let at = serve(Reply::chunked(&[b'y'; 1000], 100)).await;
    let answer = exchange(http.post(&at.url), 1000).await.unwrap();
    assert_eq!(answer.body, vec![b'y'; 1000]);
    assert!(answer.headers.get("content-length").is_none());
}

#[tokio::test]
async fn statuses_map_as_documented() {
    let http = client(Duration::from_secs(5));
    let op = op(3);
    let label = op.label();
    let cases: [(&str, RegistryFailure, i32); 4] = [
        (
            "503 Service Unavailable",
            RegistryFailure::Unavailable(format!("{label}: upstream answered 503")),
            3,
        ),
        (
            "429 Too Many Requests",
            RegistryFailure::Unavailable(format!("{label}: upstream answered 429")),
            3,
        ),
        (
            "401 Unauthorized",
            RegistryFailure::Unavailable(format!(
                "{label}: upstream refused our credentials (401)"
            )),
            0,
        ),
        (
            "400 Bad Request",
            RegistryFailure::Garbled(format!(
                "{label}: upstream refused the request as invalid (400) although the \
                 identifier passed validation"
            )),
            3,
        ),
    ];
    for (status, expected, cost) in cases {
        let body = format!("{{\"status\":\"{status}\"}}");
        let server = serve(Reply::sized(status, "", body.as_bytes())).await;
        let (call, result) = one_call(&http, &server.url, &op, 1000).await;
        assert_eq!(result, Err(expected), "{status}");
        let code: u16 = status[..3].parse().unwrap();
        assert_eq!(call.status, Some(code));
        assert_eq!(call.digest, Some(sha256(body.as_bytes())), "{status}");
        assert_eq!((call.usable, call.cost), (false, cost), "{status}");
    }
}

#[tokio::test]
async fn conclude_records_the_exact_bytes_received() {
    let http = client(Duration::from_secs(5));
    // Bytes that are not UTF-8, with line ends, sent chunked: the digest is of the body as
    // received, not of a re-encoding.
    let body: Vec<u8> = (0u8..=255).chain(*b"\r\n\r\n{}").collect();
    let server = serve(Reply::chunked(&body, 37)).await;
    let op = op(4);
    let before = chrono::Utc::now();
    let (call, result) = one_call(&http, &server.url, &op, 1000).await;
    assert_eq!(result.unwrap(), body);
    assert_eq!(call.digest, Some(sha256(&body)));
    assert_eq!(call.status, Some(200));
    assert_eq!((call.usable, call.cost), (true, 4));
    assert_eq!(call.source, EvidenceSource::declared("companyreg.example"));
    assert_eq!(call.operation, "POST /things");
    assert_eq!(call.schema_version.as_deref(), Some("test-v1"));
    assert_eq!(call.upstream_ref, None);
    assert!(call.retrieved_at >= before);
    assert_eq!(call.source_timestamp, call.retrieved_at);
    assert!(call.elapsed > Duration::ZERO);
    assert_eq!(call.outcome(), domain::meter::UpstreamOutcome::Ok);

    // A definite "not found" is usable and billed; the upstream's echo is its reference.
    let server = serve(Reply::sized(
        "404 Not Found",
        "X-Request-Id: echo-1\r\n",
        b"{}",
    ))
    .await;
    let (call, result) = one_call(&http, &server.url, &op, 1000).await;
    assert_eq!(result, Err(RegistryFailure::NotFound));
    assert_eq!((call.usable, call.cost), (true, 4));
    assert_eq!(call.upstream_ref.as_deref(), Some("echo-1"));
    assert_eq!(call.digest, Some(sha256(b"{}")));
}

#[derive(serde::Deserialize, Debug)]
struct Counted {
    count: u32,
}

#[tokio::test]
async fn a_json_answer_that_does_not_parse_is_garbled_without_its_body() {
    let http = client(Duration::from_secs(5));
    // serde's own message for this body quotes the value ("invalid type: string ...").
    let server = serve(Reply::sized(
        "200 OK",
        "Content-Type: application/json\r\n",
        br#"{"count":"SECRET-4711"}"#,
    ))
    .await;
    let answer = exchange(http.post(&server.url), 1000).await.unwrap();
    let failure = read_json::<Counted>("src op", &answer.body).unwrap_err();
    assert_eq!(
        failure,
        RegistryFailure::Garbled("src op: the answer does not parse".into())
    );
    assert!(!failure.to_string().contains("SECRET"));

    let server = serve(Reply::sized("200 OK", "", br#"{"count":7}"#)).await;
    let answer = exchange(http.post(&server.url), 1000).await.unwrap();
    assert_eq!(
        read_json::<Counted>("src op", &answer.body).unwrap().count,
        7
    );
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let http = client(Duration::from_secs(5));
    // Every request is redirected to the same server: following would make a second one.
    let server = serve(Reply::sized("302 Found", "Location: /elsewhere\r\n", b"")).await;
    let (call, result) = one_call(&http, &server.url, &op(1), 1000).await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
    assert_eq!(call.status, Some(302));
    assert_eq!(
        result,
        Err(RegistryFailure::Garbled(
            "companyreg.example POST /things: unexpected status 302".into()
        ))
    );
}

#[tokio::test]
async fn the_user_agent_names_the_connector() {
    // A one-request server that hands back the request head it read.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let seen = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 1024];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
        }
        stream
            .write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .await
            .unwrap();
        String::from_utf8_lossy(&buf).to_ascii_lowercase()
    });
    let http = build_client(
        "test",
        "idreg-example/1.2",
        Timeouts::default(),
        &TlsConfig::default(),
    )
    .unwrap();
    let answer = exchange(http.get(&url), 1000).await.unwrap();
    assert_eq!(answer.status, 204);
    assert!(seen
        .await
        .unwrap()
        .contains("\r\nuser-agent: idreg-example/1.2\r\n"));
}
