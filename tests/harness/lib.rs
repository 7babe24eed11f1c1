//! The black-box test harness: the fully wired idreg app on a loopback port, against a fresh
//! store per test, spoken to over real HTTP. The store is a PostgreSQL database, or with
//! `IDREG_TEST_STORE=sqlite` an embedded SQLite file (see [`store`]).
//!
//! PostgreSQL databases are cloned from a template migrated once (per migration set), named
//! `idreg_t_<ulid>`, and dropped when the test's `TestApp` is dropped; leftovers of crashed
//! runs older than an hour are swept when the template is prepared.
//!
//! `TEST_DATABASE_URL` names the server (default `postgres://postgres@127.0.0.1:5432/postgres`).

pub mod db;
pub mod logs;
pub mod portal;
pub mod store;

/// The HTTP client the harness speaks with, for tests of crates that do not depend on it
/// (the binary's multi-process tests in `crates/idreg/tests`).
pub use reqwest;

use adapters_crypto::KeyMaterial;
use idreg::app::{App, RunningServer};
use idreg::config::Config;
use serde_json::{json, Value};
use std::sync::Arc;
use store::TestStore;

/// A running app with its own database.
pub struct TestApp {
    pub base_url: String,
    pub clock: Arc<ManualClock>,
    pub app: Arc<App>,
    pub http: reqwest::Client,
    pub db: TestStore,
    /// The tenant portal's origin (its own listener).
    pub portal_url: String,
    server: Option<RunningServer>,
    portal: Option<RunningServer>,
    _state_dir: TempDir,
}

/// A consumer provisioned for a test: tenant, grant and credentials.
#[derive(Clone, Debug)]
pub struct Consumer {
    pub tenant_id: String,
    pub grant_id: String,
    pub client_id: String,
    pub client_secret: String,
}

impl Consumer {
    /// The consumer of a grant as `idreg admin grant create` prints it.
    pub fn of(grant: &serde_json::Value) -> Consumer {
        let field = |name: &str| {
            grant[name]
                .as_str()
                .unwrap_or_else(|| panic!("`{name}` in {grant}"))
                .to_owned()
        };
        Consumer {
            tenant_id: field("tenant_id"),
            grant_id: field("grant_id"),
            client_id: field("client_id"),
            client_secret: field("client_secret"),
        }
    }
}

/// A response: status and JSON body (or `Value::Null` when the body is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
    pub headers: reqwest::header::HeaderMap,
}

impl Answer {
    pub fn error_code(&self) -> &str {
        self.body["error"].as_str().unwrap_or("")
    }
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|_| {}).await
    }

    /// The same as [`TestApp::spawn`]: every test app serves from the in-process sandbox.
    pub async fn spawn_with_sandbox() -> TestApp {
        Self::spawn().await
    }

    /// The in-process sandbox's control (faults, scripted changes, call log).
    pub fn sandbox(&self) -> upstream_sandbox::SandboxControl {
        self.app
            .sandbox
            .as_ref()
            .expect("spawned with the sandbox")
            .control()
    }

    /// Spawns with a configuration tweak (e.g. a short token lifetime).
    /// Every test app serves company data from an upstream sandbox started in process.
    pub async fn spawn_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
        let db = TestStore::create().await;
        let state_dir = TempDir::new();
        let keys = KeyMaterial::generate();
        let mut config = Config {
            database_url: db.url(),
            listen: "127.0.0.1:0".into(),
            state_dir: state_dir.path.clone(),
            signing_key: Some(keys.signing_key().to_hex().to_string()),
            master_key: Some(keys.master_key().to_hex().to_string()),
            db_pool_size: 12,
            workers: Some(2),
            // The upstream sandbox in process, as in the default run; upstream calls limited
            // to 2 seconds so timeout faults stay quick.
            sandbox: true,
            // Test-mode grants served by the same sandbox, as in the demo.
            test_mode: true,
            // Scheduled monitoring runs when a test drives it (`TestApp::run_scheduler`), at
            // the test's clock.
            scheduler_interval_ms: 0,
            ..Config::default()
        };
        for cc in ["se", "lt"] {
            let settings = config.countries.entry(cc).or_default();
            settings.insert("timeout_secs".into(), "2".into());
        }
        tweak(&mut config);
        let clock = Arc::new(ManualClock::default());
        let app = Arc::new(
            App::prepare_with_clock(config, clock.clone())
                .await
                .expect("preparing the app"),
        );
        let server = app.start_http("127.0.0.1:0").expect("starting the server");
        let portal = app
            .start_portal("127.0.0.1:0")
            .expect("starting the portal");
        TestApp {
            portal_url: portal.base_url(),
            portal: Some(portal),
            base_url: server.base_url(),
            clock,
            app,
            http: reqwest::Client::new(),
            db,
            server: Some(server),
            _state_dir: state_dir,
        }
    }

    /// One pass of scheduled monitoring at the app's clock.
    pub async fn run_scheduler(&self) -> domain::monitoring::scheduler::TickReport {
        self.app
            .services
            .scheduler
            .tick()
            .await
            .expect("a monitoring pass")
    }

    /// The app's current time (the wall clock moved by the test).
    pub fn clock_now(&self) -> chrono::DateTime<chrono::Utc> {
        use domain::clock::Clock;
        self.clock.now()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// Runs an operator command in process (the same code as `idreg admin ...`).
    pub async fn admin(&self, args: &[&str]) -> Result<Value, Value> {
        use clap::Parser;
        let mut argv = vec!["idreg", "admin"];
        argv.extend_from_slice(args);
        let cli = idreg::cli::Cli::try_parse_from(argv).expect("admin arguments parse");
        let idreg::cli::Command::Admin(command) = cli.command else {
            unreachable!()
        };
        idreg::cli::execute_admin(&self.app, command)
            .await
            .map_err(|f| idreg::cli::failure_json(&f))
    }

    /// A tenant (active, provisioned `provision`) with one grant of `scopes` over `countries`.
    pub async fn provision(&self, scopes: &str, countries: &str, provision: &str) -> Consumer {
        let tenant = self
            .admin(&[
                "tenant",
                "create",
                "--name",
                "Test AB",
                "--country",
                "SE",
                "--provision",
                provision,
                "--activate",
            ])
            .await
            .expect("tenant create");
        let tenant_id = tenant["tenant_id"].as_str().unwrap().to_owned();
        self.grant(&tenant_id, scopes, countries).await
    }

    pub async fn grant(&self, tenant_id: &str, scopes: &str, countries: &str) -> Consumer {
        let grant = self
            .admin(&[
                "grant",
                "create",
                "--tenant",
                tenant_id,
                "--scopes",
                scopes,
                "--countries",
                countries,
            ])
            .await
            .expect("grant create");
        Consumer::of(&grant)
    }

    /// A test-mode grant of `tenant_id` (on its test twin, made on first use), by the
    /// operator's `grant create --test`: the consumer (its `tenant_id` the twin's) and the
    /// command's whole answer.
    pub async fn test_grant(
        &self,
        tenant_id: &str,
        scopes: &str,
        countries: &str,
    ) -> (Consumer, serde_json::Value) {
        let grant = self
            .admin(&[
                "grant",
                "create",
                "--tenant",
                tenant_id,
                "--scopes",
                scopes,
                "--countries",
                countries,
                "--test",
            ])
            .await
            .expect("test grant create");
        (Consumer::of(&grant), grant)
    }

    /// A client-credentials token request in a form body (client_secret_post).
    pub async fn request_token(&self, client_id: &str, client_secret: &str) -> Answer {
        self.post_form(
            "/oauth/token",
            &[
                ("grant_type", "client_credentials"),
                ("client_id", client_id),
                ("client_secret", client_secret),
            ],
        )
        .await
    }

    /// A token by client_secret_post in a form body.
    pub async fn token(&self, c: &Consumer) -> String {
        let answer = self
            .post_form(
                "/oauth/token",
                &[
                    ("grant_type", "client_credentials"),
                    ("client_id", &c.client_id),
                    ("client_secret", &c.client_secret),
                ],
            )
            .await;
        assert_eq!(answer.status, 200, "token request failed: {}", answer.text);
        answer.body["access_token"].as_str().unwrap().to_owned()
    }

    pub async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> Answer {
        let body = form
            .iter()
            .map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let response = self
            .http
            .post(self.url(path))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("request");
        answer(response).await
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Answer {
        let mut request = self.http.post(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.expect("request")).await
    }

    pub async fn post_raw(
        &self,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: Vec<u8>,
    ) -> Answer {
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", content_type)
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.expect("request")).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        let mut request = self.http.get(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.expect("request")).await
    }

    /// `POST /v1/subjects/resolve`.
    pub async fn resolve(
        &self,
        token: &str,
        id_type: &str,
        value: &str,
        reference: Option<&str>,
    ) -> Answer {
        let mut body = json!({ "type": id_type, "value": value });
        if let Some(r) = reference {
            body["ref"] = json!(r);
        }
        self.post_json("/v1/subjects/resolve", Some(token), &body)
            .await
    }

    /// Stops the server and the app, and starts them again from the same configuration on the
    /// same store and clock: what the app keeps in the store carries over, nothing in memory
    /// does (a process restart).
    pub async fn restart(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
        if let Some(portal) = self.portal.take() {
            portal.stop().await;
        }
        let config = self.app.config.clone();
        let app = Arc::new(
            App::prepare_with_clock(config, self.clock.clone())
                .await
                .expect("preparing the app again"),
        );
        let server = app
            .start_http("127.0.0.1:0")
            .expect("starting the server again");
        let portal = app
            .start_portal("127.0.0.1:0")
            .expect("starting the portal again");
        self.portal_url = portal.base_url();
        self.portal = Some(portal);
        self.base_url = server.base_url();
        self.app = app;
        self.server = Some(server);
    }

    pub async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
        if let Some(portal) = self.portal.take() {
            portal.stop().await;
        }
    }
}

pub async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer {
        status,
        body,
        text,
        headers,
    }
}

pub fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A temporary directory removed on drop.
pub struct TempDir {
    pub path: std::path::PathBuf,
}

impl TempDir {
    pub fn new() -> TempDir {
        let path = std::env::temp_dir().join(format!("idreg-test-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(&path).expect("creating a temp dir");
        TempDir { path }
    }
}

impl TempDir {
    /// The settings that give a process this folder's keys as files (the container-secrets
    /// convention, `IDREG_SIGNING_KEY_FILE` and `IDREG_MASTER_KEY_FILE`): a PostgreSQL store
    /// takes its keys from configuration only. The files are made on first call, so every
    /// process given this folder's settings shares the keys, as a deployment's replicas do.
    pub fn key_files(&self) -> [(&'static str, String); 2] {
        key_files_in(&self.path)
    }
}

/// A loopback port free at the moment of asking (for a process the test starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a loopback port")
        .local_addr()
        .expect("its address")
        .port()
}

/// [`TempDir::key_files`] for any folder.
pub fn key_files_in(dir: &std::path::Path) -> [(&'static str, String); 2] {
    let signing = dir.join("signing.key");
    let master = dir.join("master.key");
    if !signing.exists() {
        let keys = KeyMaterial::generate();
        std::fs::write(&master, format!("{}\n", &*keys.master_key().to_hex()))
            .expect("writing the master key file");
        std::fs::write(&signing, format!("{}\n", &*keys.signing_key().to_hex()))
            .expect("writing the signing key file");
    }
    [
        ("IDREG_SIGNING_KEY_FILE", signing.display().to_string()),
        ("IDREG_MASTER_KEY_FILE", master.display().to_string()),
    ]
}

impl Default for TempDir {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The wall clock plus an offset that tests move forward.
#[derive(Default)]
pub struct ManualClock {
    offset_seconds: std::sync::atomic::AtomicI64,
}

impl ManualClock {
    pub fn advance(&self, by: chrono::Duration) {
        self.offset_seconds
            .fetch_add(by.num_seconds(), std::sync::atomic::Ordering::SeqCst);
    }
}

impl domain::clock::Clock for ManualClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now()
            + chrono::Duration::seconds(
                self.offset_seconds
                    .load(std::sync::atomic::Ordering::SeqCst),
            )
    }
}

/// Whether this run is strict: `cargo xtask test` (the README's test command, which CI runs)
/// sets `IDREG_TEST_STRICT=1`, and `CI` set counts too. In a strict run a test whose
/// prerequisite (the Python clients, PostgreSQL's server binaries) is missing fails; in a
/// developer's plain `cargo test` it skips, saying so.
pub fn strict() -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
    set("IDREG_TEST_STRICT") || set("CI")
}

/// A test's prerequisite is missing: in a strict run this fails the test with `why`;
/// otherwise it prints a `SKIPPED` line past the test harness's output capture (so a plain
/// `cargo test` shows it) and the caller returns.
pub fn missing_prerequisite(test: &str, why: &str) {
    if strict() {
        panic!("{test}: {why}; a strict run (cargo xtask test, CI) needs it");
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why} (`cargo xtask test` provides it, and fails without it)"
    );
}

/// The Python with the test clients (MCP SDK, OAuth libraries), from `IDREG_TEST_PYTHON`
/// (`cargo xtask test` installs them and sets it). Without it a strict run fails the test
/// (see [`strict`]); a plain `cargo test` skips it, saying so.
/// The folder of the TypeScript client test with its dependencies installed
/// (`IDREG_TEST_NODE_CLIENTS`, set by `cargo xtask test` after `npm ci` there); a missing one
/// is a missing prerequisite.
pub fn test_node_clients(what: &str) -> Option<std::path::PathBuf> {
    match std::env::var("IDREG_TEST_NODE_CLIENTS") {
        Ok(dir) if !dir.is_empty() => Some(dir.into()),
        _ => {
            missing_prerequisite(
                std::thread::current().name().unwrap_or("a test"),
                &format!("IDREG_TEST_NODE_CLIENTS is not set to a folder with {what} installed"),
            );
            None
        }
    }
}

/// The folder of the generated TypeScript client test with its dependencies installed
/// (`IDREG_TEST_API_CLIENTS`, set by `cargo xtask test` after `npm ci` there).
pub fn test_api_clients(what: &str) -> Option<std::path::PathBuf> {
    match std::env::var("IDREG_TEST_API_CLIENTS") {
        Ok(dir) if !dir.is_empty() => Some(dir.into()),
        _ => {
            missing_prerequisite(
                std::thread::current().name().unwrap_or("a test"),
                &format!("IDREG_TEST_API_CLIENTS is not set to a folder with {what} installed"),
            );
            None
        }
    }
}

pub fn test_python(what: &str) -> Option<String> {
    match std::env::var("IDREG_TEST_PYTHON") {
        Ok(python) if !python.is_empty() => Some(python),
        _ => {
            missing_prerequisite(
                std::thread::current().name().unwrap_or("a test"),
                &format!("IDREG_TEST_PYTHON is not set to a Python with {what}"),
            );
            None
        }
    }
}
