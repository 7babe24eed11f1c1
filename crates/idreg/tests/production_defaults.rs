//! `idreg serve` as an operator following the README runs it: real upstream settings and
//! nothing else. No sandbox listener, no mailbox, no test mode unless asked; no key generated
//! for a store replicas share; nothing started before the configuration is complete; a
//! replica with other keys than the store's refused, naming the setting; a signing-key
//! rotation adopted by the store takes a replica still on the old key out of readiness.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::{free_port, TempDir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `idreg <args>` with a production-like environment: nothing inherited that could turn a
/// demo feature on, a real register configured, the store and state folder given.
fn idreg(database_url: &str, state: &TempDir, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_idreg"));
    for (name, _) in std::env::vars() {
        if name.starts_with("IDREG_") || name == "DATABASE_URL" {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("IDREG_STATE_DIR", &state.path)
        // A real register (Lithuania's open data needs no credential), at an address that
        // is never called here.
        .env("IDREG_LT_ENABLED", "on")
        .env("IDREG_LT_OPEN_DATA_BASE_URL", "https://open-data.invalid")
        .env("IDREG_LOG", "info")
        .stdin(Stdio::null());
    command
}

/// A command expected to refuse to start: its exit status and what it wrote on stderr.
fn refused(mut command: Command) -> String {
    let output = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("running idreg");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "expected a refusal: {stderr}");
    stderr
}

struct Serving {
    child: Child,
    log: std::path::PathBuf,
}

impl Serving {
    fn start(mut command: Command, api: u16, log: std::path::PathBuf) -> Serving {
        let child = command
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("starting idreg serve");
        let mut serving = Serving { child, log };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", api)).is_ok() {
                return serving;
            }
            if let Ok(Some(status)) = serving.child.try_wait() {
                panic!("idreg serve exited ({status}): {}", serving.log_text());
            }
            assert!(Instant::now() < deadline, "idreg serve did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The TCP ports the process listens on, read from `/proc`: its socket inodes matched
    /// against the kernel's tables of listening sockets.
    fn listening_ports(&self) -> BTreeSet<u16> {
        let pid = self.child.id();
        let inodes: BTreeSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .filter_map(|target| {
                let target = target.to_string_lossy().into_owned();
                Some(
                    target
                        .strip_prefix("socket:[")?
                        .strip_suffix(']')?
                        .to_owned(),
                )
            })
            .collect();
        let mut ports = BTreeSet::new();
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            for line in std::fs::read_to_string(table)
                .unwrap_or_default()
                .lines()
                .skip(1)
            {
                let fields: Vec<&str> = line.split_whitespace().collect();
                // local_address is field 1 (`ADDR:PORT` in hex), st field 3 (0A: LISTEN),
                // inode field 9.
                if fields.len() > 9 && fields[3] == "0A" && inodes.contains(fields[9]) {
                    let port = fields[1].rsplit(':').next().unwrap();
                    ports.insert(u16::from_str_radix(port, 16).unwrap());
                }
            }
        }
        ports
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn get(url: &str) -> (u16, Value) {
    let r = reqwest::get(url).await.expect("GET");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn check<'a>(readiness: &'a Value, name: &str) -> &'a Value {
    readiness["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` check in {readiness}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_with_real_upstream_settings_runs_no_demo_machinery_and_keeps_one_set_of_keys() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();

    // 1. No upstream configured at all (and the default embedded store): refused before
    //    anything is made or started: no store file, no key file, no sandbox.
    let bare = TempDir::new();
    let mut command = Command::new(env!("CARGO_BIN_EXE_idreg"));
    for (name, _) in std::env::vars() {
        if name.starts_with("IDREG_") || name == "DATABASE_URL" {
            command.env_remove(name);
        }
    }
    command
        .args(["serve"])
        .env("IDREG_STATE_DIR", &bare.path)
        .env("IDREG_LISTEN", format!("127.0.0.1:{}", free_port()));
    let stderr = refused(command);
    assert!(stderr.contains("no upstream is configured"), "{stderr}");
    assert!(!stderr.contains("sandbox control"), "{stderr}");
    assert!(
        std::fs::read_dir(&bare.path).unwrap().next().is_none(),
        "nothing written to the state folder: {:?}",
        std::fs::read_dir(&bare.path)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect::<Vec<_>>()
    );

    // 2. PostgreSQL without configured keys: refused, naming the settings; none generated.
    let api = free_port();
    let mut command = idreg(&db.url, &state, &["serve"]);
    command.env("IDREG_LISTEN", format!("127.0.0.1:{api}"));
    let stderr = refused(command);
    assert!(
        stderr.contains("IDREG_SIGNING_KEY") && stderr.contains("IDREG_MASTER_KEY"),
        "{stderr}"
    );
    assert!(!state.path.join("keys.toml").exists());

    // 3. A listener off loopback with no public URL: refused, naming IDREG_PUBLIC_URL (the
    //    discovery documents would otherwise have no origin but a request's header).
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .envs(state.key_files())
        .env("IDREG_LISTEN", format!("0.0.0.0:{}", free_port()));
    let stderr = refused(command);
    assert!(stderr.contains("IDREG_PUBLIC_URL"), "{stderr}");

    //    A portal that listens with no URL configured: refused, naming IDREG_PORTAL_URL.
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .envs(state.key_files())
        .env("IDREG_LISTEN", format!("127.0.0.1:{api}"))
        .env("IDREG_PORTAL_LISTEN", format!("127.0.0.1:{}", free_port()));
    let stderr = refused(command);
    assert!(stderr.contains("IDREG_PORTAL_URL"), "{stderr}");

    // 4. The production-like start: keys as files, the portal with its URL, no SMTP.
    let portal = free_port();
    let metrics = free_port();
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .envs(state.key_files())
        .env("IDREG_LISTEN", format!("127.0.0.1:{api}"))
        .env("IDREG_METRICS_LISTEN", format!("127.0.0.1:{metrics}"))
        .env("IDREG_PORTAL_LISTEN", format!("127.0.0.1:{portal}"))
        .env("IDREG_PORTAL_URL", "https://portal.example.com")
        .env("IDREG_WORKERS", "2")
        .env("IDREG_DB_POOL_SIZE", "12");
    let first = Serving::start(command, api, state.path.join("first.log"));
    // The consumer listener, the portal's and the metrics listener: no sandbox listener.
    let deadline = Instant::now() + Duration::from_secs(10);
    while first.listening_ports().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        first.listening_ports(),
        BTreeSet::from([api, portal, metrics]),
        "{}",
        first.log_text()
    );
    let log = first.log_text();
    assert!(!log.contains("sandbox"), "{log}");
    assert!(log.contains("no mail transport"), "{log}");
    assert!(!state.path.join("keys.toml").exists());

    let (status, ready) = get(&format!("http://127.0.0.1:{api}/readyz")).await;
    assert_eq!(status, 200, "{ready}");
    assert_eq!(check(&ready, "keys")["ok"], true, "{ready}");

    // However busy, the replica opens at most IDREG_DB_POOL_SIZE connections in all: 400
    // readiness probes (each reads the store) at once on every listener, then the server's
    // own count of this database's sessions.
    // One client, as a balancer's: building a client per request (its TLS roots loaded each
    // time) kept the test's own threads so busy that a connection opened early waited past
    // the server's five seconds for its request head, and was closed with 408.
    let client = reqwest::Client::new();
    let probes: Vec<_> = (0..400)
        .map(|i| {
            let url = match i % 3 {
                0 => format!("http://127.0.0.1:{api}/readyz"),
                1 => format!("http://127.0.0.1:{metrics}/metrics"),
                _ => format!("http://127.0.0.1:{portal}/sign-in"),
            };
            let client = client.clone();
            tokio::spawn(async move { client.get(url).send().await.map(|r| r.status().as_u16()) })
        })
        .collect();
    for probe in probes {
        let answered = probe.await.unwrap();
        assert!(
            answered.as_ref().is_ok_and(|s| *s < 500),
            "{answered:?}\n{}",
            first.log_text()
        );
    }
    let sessions = db
        .rows(&format!(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = '{}'",
            db.name
        ))
        .await[0]["n"]
        .as_i64()
        .unwrap();
    assert!((1..=12).contains(&sessions), "{sessions} connections");
    // The OAuth discovery documents name this listener, whatever Host or forwarded header a
    // request sends; a loopback name the client used at this port is kept.
    let http = reqwest::Client::new();
    for (name, value) in [
        ("host", "evil.example"),
        ("x-forwarded-host", "evil.example"),
        ("forwarded", "host=evil.example;proto=https"),
    ] {
        let metadata: Value = http
            .get(format!(
                "http://127.0.0.1:{api}/.well-known/oauth-authorization-server"
            ))
            .header(name, value)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            metadata["issuer"],
            format!("http://127.0.0.1:{api}"),
            "{name}"
        );
    }
    let metadata: Value = http
        .get(format!(
            "http://localhost:{api}/.well-known/oauth-authorization-server"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["issuer"], format!("http://localhost:{api}"));
    let mail = check(&ready, "mail");
    assert!(
        mail["detail"]
            .as_str()
            .unwrap()
            .contains("no mail transport"),
        "{ready}"
    );

    // A sign-in for an address that is a user's and one that is not answer alike, at once,
    // and the link goes nowhere (there is no mailbox to read it from).
    let tenant = admin(
        &db.url,
        &state,
        &[
            "tenant",
            "create",
            "--name",
            "Prod AB",
            "--country",
            "SE",
            "--activate",
        ],
    );
    let tenant_id = tenant["tenant_id"].as_str().unwrap();
    admin(
        &db.url,
        &state,
        &[
            "portal-user",
            "create",
            "--tenant",
            tenant_id,
            "--email",
            "lead@example.se",
        ],
    );
    let mut answers = Vec::new();
    for email in ["lead@example.se", "nobody@example.se"] {
        let asked = Instant::now();
        let r = http
            .post(format!("http://127.0.0.1:{portal}/v1/portal/sign-in"))
            .json(&serde_json::json!({ "email": email }))
            .send()
            .await
            .unwrap();
        let elapsed = asked.elapsed();
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        assert!(elapsed < Duration::from_secs(2), "{email}: {elapsed:?}");
        answers.push((status, body));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].0, 202);
    // The operator is told: the metric and a log line.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = reqwest::get(format!("http://127.0.0.1:{metrics}/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains(r#"idreg_portal_mail_total{outcome="no_transport"} 1"#) {
            break;
        }
        assert!(Instant::now() < deadline, "{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(first
        .log_text()
        .contains("a portal sign-in link was not sent"));

    // 5. A second replica with its own keys (a container without the secrets' volume): refused
    //    at start, naming the master key; with the master key but another signing key, the
    //    signing key.
    let other = TempDir::new();
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .envs(other.key_files())
        .env("IDREG_LISTEN", format!("127.0.0.1:{}", free_port()));
    let stderr = refused(command);
    assert!(stderr.contains("IDREG_MASTER_KEY"), "{stderr}");
    assert!(
        !stderr.contains(&std::fs::read_to_string(other.path.join("master.key")).unwrap()[..16])
    );
    let [(_, other_signing), _] = other.key_files();
    let [_, (_, master)] = state.key_files();
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .env("IDREG_SIGNING_KEY_FILE", &other_signing)
        .env("IDREG_MASTER_KEY_FILE", &master)
        .env("IDREG_LISTEN", format!("127.0.0.1:{}", free_port()));
    let stderr = refused(command);
    assert!(stderr.contains("IDREG_SIGNING_KEY"), "{stderr}");
    assert!(!stderr.contains("IDREG_MASTER_KEY "), "{stderr}");

    // 6. A signing-key rotation: the store adopts the new key; the replica still on the old
    //    one reports not ready (its tokens would be refused by the others), naming the setting.
    let mut command = idreg(&db.url, &state, &["keys", "adopt-signing-key"]);
    command
        .env("IDREG_SIGNING_KEY_FILE", &other_signing)
        .env("IDREG_MASTER_KEY_FILE", &master);
    let output = command.output().unwrap();
    let adopted: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(output.status.success(), "{adopted}");
    let (status, ready) = get(&format!("http://127.0.0.1:{api}/readyz")).await;
    assert_eq!(status, 503, "{ready}");
    let keys = check(&ready, "keys");
    assert_eq!(keys["ok"], false);
    assert!(
        keys["detail"]
            .as_str()
            .unwrap()
            .contains("IDREG_SIGNING_KEY"),
        "{ready}"
    );
    drop(first);
    // Restarted with the new signing key, it serves again.
    let mut command = idreg(&db.url, &state, &["serve"]);
    command
        .env("IDREG_SIGNING_KEY_FILE", &other_signing)
        .env("IDREG_MASTER_KEY_FILE", &master)
        .env("IDREG_LISTEN", format!("127.0.0.1:{api}"));
    let _second = Serving::start(command, api, state.path.join("second.log"));
    let (status, ready) = get(&format!("http://127.0.0.1:{api}/readyz")).await;
    assert_eq!(status, 200, "{ready}");
}

/// An operator command through the binary, with the state folder's keys: its JSON object.
fn admin(database_url: &str, state: &TempDir, args: &[&str]) -> Value {
    let mut command = idreg(database_url, state, &["admin"]);
    command.args(args).envs(state.key_files());
    let output = command.output().expect("running idreg admin");
    let value: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    assert!(output.status.success(), "idreg admin {args:?}: {value}");
    value
}

/// Replicas started together on a fresh database take turns at the migrations: each start
/// succeeds and every migration is applied once.
#[tokio::test(flavor = "multi_thread")]
async fn replicas_migrating_a_fresh_database_together_take_turns() {
    let db = TestDatabase::create_empty().await;
    let state = TempDir::new();
    let children: Vec<_> = (0..4)
        .map(|_| {
            idreg(&db.url, &state, &["migrate"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut applied = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let value: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        assert!(
            output.status.success(),
            "{value} {}",
            String::from_utf8_lossy(&output.stderr)
        );
        applied.extend(
            value["applied"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned()),
        );
    }
    let unique: BTreeSet<_> = applied.iter().cloned().collect();
    assert_eq!(unique.len(), applied.len(), "a migration applied twice");
    assert!(!applied.is_empty());
}
