//! PostgreSQL restarted under a running server: while it is down every request answers 503
//! `upstream_unavailable` (with `Retry-After`), never 500; once it is back the same process
//! serves again, its pools having replaced the connections the restart closed.
//!
//! The shared test server cannot be stopped (other tests use it), so this test runs a private
//! throwaway cluster (`initdb` into a temp dir, on a free port) and the real `idreg` binary
//! against it. As root, the cluster's commands run as the `postgres` OS user (`initdb`
//! refuses root). Without PostgreSQL's server binaries (`initdb`, `pg_ctl`) a strict run
//! (`cargo xtask test`, CI) fails; a plain `cargo test` says so and skips.

use blackbox::TempDir;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// This test, as its skip or failure names it.
const TEST: &str = "storage_outage";

/// A company the sandbox serves.
const COMPANY: &str = "/v1/companies/5560021361";

#[test]
fn a_postgres_restart_answers_503_while_down_and_recovers_without_a_restart() {
    let started = Instant::now();
    let Some(cluster) = Cluster::create() else {
        return;
    };
    cluster.start();
    let state = TempDir::new();
    let url = format!("postgres://postgres@127.0.0.1:{}/idreg", cluster.port);
    let server = Server::start(&url, &state);

    let consumer = provision(&url, &state);
    let token = token(&server, &consumer);
    let read = get(&server, COMPANY, &token);
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(read.json()["data"]["orgnr"], "5560021361", "{}", read.body);

    // Load throughout: requests in flight when the server goes away and comes back are
    // answered 200 or 503, never anything else.
    let load = Load::start(&server, &token);

    // Down: every request is refused with 503 at once, never 500, and the cause is not shown.
    cluster.stop();
    let outage = Instant::now();
    for attempt in 0..8 {
        let asked = Instant::now();
        let read = get(&server, COMPANY, &token);
        assert!(
            asked.elapsed() < Duration::from_secs(12),
            "an answer within the pool's timeouts"
        );
        assert_storage_unavailable(&read, &format!("read {attempt} while down"));
    }
    let refused = request_token(&server, &consumer);
    assert_storage_unavailable(&refused, "token while down");
    assert!(outage.elapsed() < Duration::from_secs(20));

    // Back: the same process serves again (on every worker) without being restarted.
    cluster.start();
    let back = Instant::now();
    loop {
        let read = get(&server, COMPANY, &token);
        if read.status == 200 {
            break;
        }
        assert_storage_unavailable(&read, "read while recovering");
        assert!(
            back.elapsed() < Duration::from_secs(30),
            "still {} {} 30 s after PostgreSQL came back",
            read.status,
            read.body
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    for attempt in 0..8 {
        let read = get(&server, COMPANY, &token);
        assert_eq!(
            read.status, 200,
            "read {attempt} after recovery: {}",
            read.body
        );
    }
    let fresh = token_of(&request_token(&server, &consumer));
    assert_eq!(get(&server, COMPANY, &fresh).status, 200);

    let replies = load.finish();
    for reply in &replies {
        if reply.status != 200 {
            assert_storage_unavailable(reply, "a read under load");
        }
    }
    let unavailable = replies.iter().filter(|r| r.status == 503).count();
    assert!(unavailable > 0, "the load saw the outage");
    eprintln!(
        "storage outage: recovered {:?} after PostgreSQL came back; {} reads under load ({} \
         answered 503); {:?} in all",
        back.elapsed(),
        replies.len(),
        unavailable,
        started.elapsed()
    );
}

/// Readers asking for the company in a loop until told to stop.
struct Load {
    stop: Arc<AtomicBool>,
    readers: Vec<std::thread::JoinHandle<Vec<Reply>>>,
}

impl Load {
    fn start(server: &Server, token: &str) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let readers = (0..4)
            .map(|_| {
                let stop = stop.clone();
                let addr = server.addr.clone();
                let token = token.to_owned();
                std::thread::spawn(move || {
                    let mut replies = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        replies.push(get_at(&addr, COMPANY, &token));
                    }
                    replies
                })
            })
            .collect();
        Load { stop, readers }
    }

    fn finish(mut self) -> Vec<Reply> {
        self.stop.store(true, Ordering::Relaxed);
        std::mem::take(&mut self.readers)
            .into_iter()
            .flat_map(|r| r.join().expect("a reader panicked"))
            .collect()
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn assert_storage_unavailable(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 503, "{what}: {} {}", reply.status, reply.body);
    let body = reply.json();
    assert_eq!(
        body["error"], "upstream_unavailable",
        "{what}: {}",
        reply.body
    );
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains("storage"), "{what}: {message}");
    for leak in ["127.0.0.1", "refused", "connect", "postgres"] {
        assert!(
            !reply.body.contains(leak),
            "{what} shows `{leak}`: {}",
            reply.body
        );
    }
    assert_eq!(
        reply.header("retry-after"),
        Some("5"),
        "{what} ({})",
        reply.path
    );
}

// --- the private cluster ---

/// A throwaway PostgreSQL cluster in a temp dir, stopped and removed on drop.
struct Cluster {
    bin: PathBuf,
    /// Holds the cluster's data dir, its socket and its log; owned by whoever runs it.
    home: PathBuf,
    port: u16,
    /// As root: run the cluster's commands as the `postgres` OS user.
    as_postgres: bool,
    _root: TempDir,
}

impl Cluster {
    /// `None` (with the reason printed) when this machine cannot run a cluster.
    fn create() -> Option<Cluster> {
        let Some(bin) = server_binaries() else {
            blackbox::missing_prerequisite(
                TEST,
                "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin \
                 or on PATH",
            );
            return None;
        };
        let as_postgres = run_capture(Command::new("id").arg("-u")).trim() == "0";
        let root = TempDir::new();
        let home = root.path.join("pg");
        std::fs::create_dir(&home).expect("creating the cluster's dir");
        if as_postgres {
            let ids = Command::new("id").arg("postgres").output();
            let runuser = Command::new("runuser").arg("--help").output();
            if !ids.is_ok_and(|o| o.status.success()) || !runuser.is_ok_and(|o| o.status.success())
            {
                blackbox::missing_prerequisite(
                    TEST,
                    "running as root, and initdb refuses root; there is no `postgres` user or \
                     no `runuser` to run it as one",
                );
                return None;
            }
            let chown = Command::new("chown")
                .arg("postgres:")
                .arg(&home)
                .status()
                .expect("running chown");
            assert!(chown.success(), "chown of the cluster's dir to postgres");
        }
        let cluster = Cluster {
            bin,
            port: free_port(),
            home,
            as_postgres,
            _root: root,
        };
        let data = cluster.data();
        let mut initdb = cluster.command("initdb");
        initdb.args([
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "-D",
        ]);
        initdb.arg(&data);
        let output = initdb.output().expect("running initdb");
        assert!(
            output.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Some(cluster)
    }

    fn data(&self) -> PathBuf {
        self.home.join("data")
    }

    /// One of the cluster's binaries, run as its owner, from its home (the `postgres` user
    /// may not read the test's working directory).
    fn command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        command.current_dir(&self.home);
        command
    }

    fn pg_ctl(&self, args: &[&str]) -> std::process::Output {
        let mut command = self.command("pg_ctl");
        command
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.home.join("server.log"))
            .args(args);
        command.output().expect("running pg_ctl")
    }

    /// Starts the server and waits until it accepts connections.
    fn start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.home.display()
        );
        let output = self.pg_ctl(&["-w", "-t", "30", "-o", &options, "start"]);
        assert!(
            output.status.success(),
            "pg_ctl start failed: {}{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            std::fs::read_to_string(self.home.join("server.log")).unwrap_or_default()
        );
    }

    /// Stops the server the way an operator restarting it would (`-m fast`: sessions are
    /// terminated, no new connections accepted) and waits until it is down.
    fn stop(&self) {
        let output = self.pg_ctl(&["-w", "-t", "30", "-m", "fast", "stop"]);
        assert!(
            output.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Also on a panic: never leave a server running (it may be down already).
        let _ = self.pg_ctl(&["-w", "-t", "30", "-m", "immediate", "stop"]);
    }
}

/// The newest installed PostgreSQL's server binaries (Debian's layout), else the directory
/// on `PATH` that holds both `initdb` and `pg_ctl`.
fn server_binaries() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            has_server_binaries(&bin).then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin).or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| has_server_binaries(dir))
    })
}

fn has_server_binaries(dir: &std::path::Path) -> bool {
    dir.join("initdb").is_file() && dir.join("pg_ctl").is_file()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn run_capture(command: &mut Command) -> String {
    command
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

// --- the server under test ---

/// `idreg serve --sandbox`, killed on drop (its log printed when the test failed).
struct Server {
    child: Child,
    /// `host:port` it serves on.
    addr: String,
    log: PathBuf,
}

impl Server {
    fn start(database_url: &str, state: &TempDir) -> Server {
        let log = state.path.join("serve.log");
        let mut child = idreg(database_url, state)
            .args(["serve", "--sandbox"])
            .env("IDREG_LISTEN", "127.0.0.1:0")
            .env("IDREG_WORKERS", "2")
            .env("IDREG_DB_POOL_SIZE", "4")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("creating the server's log"))
            .spawn()
            .expect("starting idreg serve");
        // Its first line on stdout names the address, once it serves.
        let stdout = child.stdout.take().expect("the server's stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next());
            for _ in lines {}
        });
        let mut server = Server {
            child,
            addr: String::new(),
            log,
        };
        let first = rx.recv_timeout(Duration::from_secs(60));
        let Ok(Some(Ok(line))) = first else {
            panic!("idreg serve printed no address: {}", server.log_text());
        };
        let started: Value = serde_json::from_str(&line).expect("the serve line is JSON");
        server.addr = started["idreg"]
            .as_str()
            .and_then(|u| u.strip_prefix("http://"))
            .expect("the serve line names idreg's address")
            .to_owned();
        server
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = self.log_text();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            eprintln!("--- idreg serve's log (last lines) ---");
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
        }
    }
}

fn idreg(database_url: &str, state: &TempDir) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_idreg"));
    command
        .env("DATABASE_URL", database_url)
        .env("IDREG_STATE_DIR", &state.path)
        .envs(state.key_files())
        .env("IDREG_LOG", "warn");
    command
}

struct Consumer {
    client_id: String,
    client_secret: String,
}

fn admin(database_url: &str, state: &TempDir, args: &[&str]) -> Value {
    let output = idreg(database_url, state)
        .arg("admin")
        .args(args)
        .output()
        .expect("running idreg admin");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "idreg admin {args:?}: {stdout}");
    serde_json::from_str(stdout.trim()).expect("idreg admin prints JSON")
}

fn provision(database_url: &str, state: &TempDir) -> Consumer {
    let tenant = admin(
        database_url,
        state,
        &[
            "tenant",
            "create",
            "--name",
            "Outage AB",
            "--country",
            "SE",
            "--activate",
        ],
    );
    let tenant_id = tenant["tenant_id"].as_str().expect("a tenant id");
    let grant = admin(
        database_url,
        state,
        &[
            "grant",
            "create",
            "--tenant",
            tenant_id,
            "--scopes",
            "kyb:read",
            "--countries",
            "SE",
        ],
    );
    Consumer {
        client_id: grant["client_id"].as_str().expect("a client id").to_owned(),
        client_secret: grant["client_secret"]
            .as_str()
            .expect("a client secret")
            .to_owned(),
    }
}

fn request_token(server: &Server, c: &Consumer) -> Reply {
    let form = format!(
        "grant_type=client_credentials&client_id={}&client_secret={}",
        blackbox::urlencode(&c.client_id),
        blackbox::urlencode(&c.client_secret)
    );
    http(
        &server.addr,
        "POST",
        "/oauth/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        form.as_bytes(),
    )
}

fn token_of(reply: &Reply) -> String {
    assert_eq!(reply.status, 200, "token: {}", reply.body);
    reply.json()["access_token"]
        .as_str()
        .expect("an access token")
        .to_owned()
}

fn token(server: &Server, c: &Consumer) -> String {
    token_of(&request_token(server, c))
}

fn get(server: &Server, path: &str, token: &str) -> Reply {
    get_at(&server.addr, path, token)
}

fn get_at(addr: &str, path: &str, token: &str) -> Reply {
    let bearer = format!("Bearer {token}");
    http(addr, "GET", path, &[("Authorization", &bearer)], b"")
}

// --- a minimal HTTP/1.1 client (one request per connection) ---

struct Reply {
    path: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connecting to idreg");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("sending");
    stream.write_all(body).expect("sending the body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("reading the answer");
    parse_reply(path, &raw)
}

fn parse_reply(path: &str, raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut payload = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        payload = dechunk(&payload);
    }
    Reply {
        path: path.to_owned(),
        status,
        headers,
        body: String::from_utf8_lossy(&payload).into_owned(),
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&rest[start..start + size]);
        rest = &rest[(start + size + 2).min(rest.len())..];
    }
    out
}
