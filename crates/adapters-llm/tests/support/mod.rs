//! A scripted HTTP/1.1 server on 127.0.0.1 for the adapters' tests: it records each request
//! and answers the next reply of its script (the last one again when the script runs out).
//! Streams go out chunked (`transfer-encoding: chunked`), in random small pieces cut inside
//! lines and inside UTF-8 characters, so the client's parser sees them split.

#![allow(dead_code)]

use domain::assistant::model::ModelEvent;
use domain::assistant::ports::ModelSink;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A fixture from `testdata/`, ending in a blank line (the SDK's files end without one).
pub fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if !bytes.ends_with(b"\n\n") {
        while bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        bytes.extend_from_slice(b"\n\n");
    }
    bytes
}

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// 200 `text/event-stream`, the body in random pieces of 1..=`max_piece` bytes.
    Stream {
        body: Vec<u8>,
        seed: u64,
        max_piece: usize,
    },
    /// 200 `text/event-stream`, the body's first `bytes` bytes, then the connection closed:
    /// cleanly (the chunked body's end) or abruptly (no end).
    Cut {
        body: Vec<u8>,
        bytes: usize,
        clean: bool,
    },
    /// 200 `text/event-stream`, `before` written, then nothing for `stall`.
    Stall { before: Vec<u8>, stall: Duration },
    /// Nothing at all (not even the head) for `stall`.
    Silent { stall: Duration },
    /// Any status with a body and extra headers.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
}

impl Reply {
    pub fn stream(body: Vec<u8>, seed: u64) -> Reply {
        Reply::Stream {
            body,
            seed,
            max_piece: 9,
        }
    }

    pub fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::Status {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_owned(),
        }
    }
}

/// A request as the server read it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON request body")
    }
}

pub struct Server {
    pub base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    /// Listens on 127.0.0.1 (a free port) on the current runtime.
    pub async fn start(script: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        tokio::spawn(async move {
            let mut served = 0;
            // Bounded: no test sends more requests than this.
            while served < 16 {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = script[served.min(script.len() - 1)].clone();
                served += 1;
                let recorded = recorded.clone();
                tokio::spawn(async move {
                    let _ = serve(socket, reply, recorded).await;
                });
            }
        });
        Server { base, requests }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    reply: Reply,
    recorded: Arc<Mutex<Vec<Recorded>>>,
) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let request = read_request(&mut socket).await?;
    recorded.lock().unwrap().push(request);
    const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
        cache-control: no-cache\r\nrequest-id: req_test_0001\r\n\
        transfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Stream {
            body,
            seed,
            max_piece,
        } => {
            socket.write_all(SSE_HEAD.as_bytes()).await?;
            let mut rng = StdRng::seed_from_u64(seed);
            let mut rest = &body[..];
            while !rest.is_empty() {
                let n = rng.gen_range(1..=max_piece).min(rest.len());
                write_chunk(&mut socket, &rest[..n]).await?;
                rest = &rest[n..];
                tokio::task::yield_now().await;
            }
            socket.write_all(b"0\r\n\r\n").await?;
        }
        Reply::Cut { body, bytes, clean } => {
            socket.write_all(SSE_HEAD.as_bytes()).await?;
            for piece in body[..bytes].chunks(7) {
                write_chunk(&mut socket, piece).await?;
            }
            if clean {
                socket.write_all(b"0\r\n\r\n").await?;
            }
        }
        Reply::Stall { before, stall } => {
            socket.write_all(SSE_HEAD.as_bytes()).await?;
            if !before.is_empty() {
                write_chunk(&mut socket, &before).await?;
            }
            tokio::time::sleep(stall).await;
        }
        Reply::Silent { stall } => tokio::time::sleep(stall).await,
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\nconnection: close\r\nrequest-id: req_test_0002\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
        }
    }
    socket.flush().await?;
    let _ = socket.shutdown().await;
    Ok(())
}

async fn write_chunk(socket: &mut TcpStream, piece: &[u8]) -> std::io::Result<()> {
    socket
        .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
        .await?;
    socket.write_all(piece).await?;
    socket.write_all(b"\r\n").await?;
    socket.flush().await
}

async fn read_request(socket: &mut TcpStream) -> std::io::Result<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let path = first.next().unwrap_or_default().to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Recorded {
        method,
        path,
        headers,
        body,
    })
}

/// A sink that keeps what it is sent.
#[derive(Default)]
pub struct Collected(Mutex<Vec<ModelEvent>>);

impl ModelSink for Collected {
    fn event(&self, event: ModelEvent) {
        self.0.lock().unwrap().push(event);
    }
}

impl Collected {
    pub fn events(&self) -> Vec<ModelEvent> {
        self.0.lock().unwrap().clone()
    }

    /// The text events, joined.
    pub fn text(&self) -> String {
        self.events()
            .iter()
            .filter_map(|e| match e {
                ModelEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn tool_uses(&self) -> Vec<(String, String, String)> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                ModelEvent::ToolUse { id, name, input } => Some((id, name, input)),
                _ => None,
            })
            .collect()
    }
}
