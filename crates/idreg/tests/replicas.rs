//! Two replicas of the real binary on one database, both running scheduled monitoring; one is
//! killed with SIGKILL while it holds claimed runs, one of them under way, and is restarted.
//! Afterwards the tenant's event log has no gap and no duplicate `seq`, every subscription has
//! exactly one `refresh.completed` (none lost, none twice), and every run is completed with its
//! lease released and its next run a day ahead. Then a crash between a run's write and its
//! completion is replayed by hand: the run is done again and the log does not change.
//!
//! The replicas share the keys (the same key files, as replicas share a secret store) and
//! nothing else: each runs its own
//! upstream sandbox (`serve --sandbox`, deterministic data). Register reads are slowed with the
//! sandbox's `slow` fault so the kill lands while there is work left. The killed replica claims
//! with a long lease and the survivor with a short one, so the runs the killed one held are
//! told apart in the database by their lease alone.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::reqwest;
use blackbox::TempDir;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use upstream_sandbox::data::{CompanyStatus, Dataset, LegalForm};

/// Subscriptions created, each one due at once.
const SUBSCRIPTIONS: usize = 80;
/// Each register call of a run waits this long in the sandbox (a run makes at least two).
const SLOW_REGISTER_MS: u64 = 150;
/// The lease of the replica that is killed: long, so its orphaned runs stand out.
const LEASE_KILLED: &str = "20";
/// The survivor's lease: short. A lease ending later than now + this many seconds is the
/// killed replica's.
const LEASE_SURVIVOR: &str = "4";
const ORPHAN_THRESHOLD_SECONDS: u32 = 10;

/// One `idreg serve --sandbox` process; killed (SIGKILL) when dropped, also on a panic.
struct Replica {
    label: String,
    child: Child,
    base_url: String,
    control_url: String,
    log: PathBuf,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Replica {
    /// Starts a replica; `scheduler`: `None` turns scheduled monitoring off, `Some(lease)`
    /// runs it with that lease.
    fn spawn(label: &str, db: &TestDatabase, state: &Path, scheduler: Option<&str>) -> Replica {
        let out = state.join(format!("{label}.stdout"));
        let log = state.join(format!("{label}.stderr"));
        let mut command = Command::new(env!("CARGO_BIN_EXE_idreg"));
        command
            .args(["serve", "--sandbox"])
            .env_remove("IDREG_CONFIG")
            .env_remove("IDREG_SIGNING_KEY")
            .env_remove("IDREG_MASTER_KEY")
            .env("DATABASE_URL", &db.url)
            .env("IDREG_STATE_DIR", state)
            .envs(blackbox::key_files_in(state))
            .envs(blackbox::key_files_in(state))
            .env("IDREG_LISTEN", "127.0.0.1:0")
            .env("IDREG_LOG", "info")
            .env("IDREG_LOG_FORMAT", "json")
            .env("IDREG_WORKERS", "2")
            .env("IDREG_DB_POOL_SIZE", "12")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).expect("stdout file"))
            .stderr(std::fs::File::create(&log).expect("stderr file"));
        match scheduler {
            None => {
                command.env("IDREG_SCHEDULER_INTERVAL_MS", "0");
            }
            Some(lease) => {
                command
                    .env("IDREG_SCHEDULER_INTERVAL_MS", "50")
                    .env("IDREG_SCHEDULER_BATCH", "5")
                    .env("IDREG_SCHEDULER_LEASE_SECONDS", lease);
            }
        }
        let child = command.spawn().expect("starting idreg serve");
        let mut replica = Replica {
            label: label.to_owned(),
            child,
            base_url: String::new(),
            control_url: String::new(),
            log,
        };
        // `serve --sandbox` prints one line with its addresses once it serves.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            if let Some(line) = text.lines().next().filter(|_| text.contains('\n')) {
                let addresses: Value = serde_json::from_str(line).expect("the address line");
                replica.base_url = addresses["idreg"].as_str().unwrap().to_owned();
                replica.control_url = addresses["sandbox_control"].as_str().unwrap().to_owned();
                return replica;
            }
            if let Ok(Some(status)) = replica.child.try_wait() {
                panic!(
                    "replica {label} exited ({status}) before serving: {}",
                    std::fs::read_to_string(&replica.log).unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "replica {label} did not start within 60 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL, and reaped.
    fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaping the killed replica");
    }

    /// The monitoring passes this replica logged: (passes, runs claimed, runs checked).
    fn passes(&self) -> (u64, u64, u64) {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut sum = (0, 0, 0);
        for line in text.lines() {
            let Ok(entry) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let fields = &entry["fields"];
            if fields["message"] == "monitoring pass" {
                sum.0 += 1;
                sum.1 += fields["claimed"].as_u64().unwrap_or(0);
                sum.2 += fields["checked"].as_u64().unwrap_or(0);
            }
        }
        sum
    }

    /// Register reads in this replica's sandbox wait [`SLOW_REGISTER_MS`] each.
    async fn slow_register(&self, http: &reqwest::Client) {
        let r = http
            .post(format!("{}/faults/bolagsverket", self.control_url))
            .json(&json!({"kind": "slow", "delay_ms": SLOW_REGISTER_MS}))
            .send()
            .await
            .expect("arming the slow fault");
        assert!(r.status().is_success(), "{}: {:?}", self.label, r.status());
    }
}

/// An operator command through the real binary: one JSON object on stdout, exit 0.
fn admin(db: &TestDatabase, state: &Path, args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .arg("admin")
        .args(args)
        .env_remove("IDREG_CONFIG")
        .env_remove("IDREG_SIGNING_KEY")
        .env_remove("IDREG_MASTER_KEY")
        .env("DATABASE_URL", &db.url)
        .env("IDREG_STATE_DIR", state)
        .envs(blackbox::key_files_in(state))
        .env("IDREG_LOG", "warn")
        .output()
        .expect("running idreg admin");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "idreg admin {args:?}: {stdout}");
    serde_json::from_str(stdout.trim()).expect("stdout is one JSON object")
}

async fn get(http: &reqwest::Client, url: &str, token: &str) -> (u16, Value) {
    let r = http
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .expect("request");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The whole event log, read through the API page by page.
async fn all_events(http: &reqwest::Client, base_url: &str, token: &str) -> Vec<Value> {
    let mut events = Vec::new();
    let mut cursor = 0_i64;
    loop {
        let (status, page) = get(
            http,
            &format!("{base_url}/v1/events?cursor={cursor}&limit=1000"),
            token,
        )
        .await;
        assert_eq!(status, 200, "{page}");
        let batch = page["events"].as_array().expect("events").clone();
        let next = page["next_cursor"].as_i64().expect("next_cursor");
        if batch.is_empty() {
            assert_eq!(next, cursor, "an empty page keeps the cursor");
            return events;
        }
        assert!(next > cursor, "the cursor advances");
        events.extend(batch);
        cursor = next;
    }
}

/// Polls `check` every 100 ms until it holds; panics with `what` after `limit`.
async fn wait_until<F, Fut>(what: &str, limit: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    loop {
        if check().await {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Active limited companies every source knows: their scheduled runs read every part.
fn candidate_orgnrs() -> Vec<String> {
    Dataset::standard()
        .filter(|c| {
            c.id.len() == 10
                && c.legal_form == LegalForm::Ab
                && c.status() == CompanyStatus::Active
                && c.note.is_none()
                && c.is_at_bolagsverket()
                && c.is_at_scb()
        })
        .into_iter()
        .map(|c| c.id.clone())
        .collect()
}

/// Runs completed: released and next due about a day ahead.
const COMPLETED: &str = "claimed_until IS NULL AND next_run_at > now() + interval '12 hours'";

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_run_loses_and_duplicates_nothing() {
    let started = Instant::now();
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let http = reqwest::Client::new();

    // Operator setup; the first command generates the keys every replica then shares.
    let tenant = admin(
        &db,
        &state.path,
        &[
            "tenant",
            "create",
            "--name",
            "Replica AB",
            "--country",
            "SE",
            "--activate",
        ],
    );
    let tenant_id = tenant["tenant_id"].as_str().unwrap().to_owned();
    admin(
        &db,
        &state.path,
        &["budget", "set", &tenant_id, "--daily-paid", "100000"],
    );
    let grant = admin(
        &db,
        &state.path,
        &[
            "grant",
            "create",
            "--tenant",
            &tenant_id,
            "--scopes",
            "kyb:read monitoring:subscribe events:read",
            "--countries",
            "SE",
        ],
    );
    // PostgreSQL is a store replicas share: its keys come from configuration (here as files),
    // and none is generated into the state folder.
    assert!(!state.path.join("keys.toml").exists());

    // Subscriptions, made through a replica with the scheduler off.
    let setup = Replica::spawn("setup", &db, &state.path, None);
    let r = http
        .post(format!("{}/oauth/token", setup.base_url))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", grant["client_id"].as_str().unwrap()),
            ("client_secret", grant["client_secret"].as_str().unwrap()),
        ])
        .send()
        .await
        .expect("token request");
    assert_eq!(r.status().as_u16(), 200);
    let token_body: Value = r.json().await.unwrap();
    let token = token_body["access_token"].as_str().unwrap().to_owned();

    let mut subscriptions = BTreeSet::new();
    for orgnr in candidate_orgnrs() {
        if subscriptions.len() == SUBSCRIPTIONS {
            break;
        }
        let (status, company) = get(
            &http,
            &format!("{}/v1/companies/{orgnr}", setup.base_url),
            &token,
        )
        .await;
        if status != 200 {
            eprintln!("skipping {orgnr}: {status} {company}");
            continue;
        }
        let subject = company["data"]["subject_id"]
            .as_str()
            .or(company["subject_id"].as_str())
            .unwrap_or_else(|| panic!("a subject id in {company}"))
            .to_owned();
        let r = http
            .post(format!("{}/v1/subscriptions", setup.base_url))
            .bearer_auth(&token)
            .json(&json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}))
            .send()
            .await
            .expect("subscribe");
        assert_eq!(r.status().as_u16(), 201);
        let created: Value = r.json().await.unwrap();
        subscriptions.insert(created["subscription_id"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        subscriptions.len(),
        SUBSCRIPTIONS,
        "enough companies answer"
    );
    drop(setup);
    // Each run's due time, as a crash before its completion would leave it.
    let due: BTreeMap<String, String> = db
        .rows("SELECT subscription_id, next_run_at::text AS due FROM subscriptions")
        .await
        .into_iter()
        .map(|r| {
            (
                r["subscription_id"].as_str().unwrap().to_owned(),
                r["due"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(due.len(), SUBSCRIPTIONS);
    eprintln!(
        "{SUBSCRIPTIONS} subscriptions set up in {:?}",
        started.elapsed()
    );

    // Two replicas work the queue.
    let mut a = Replica::spawn("a", &db, &state.path, Some(LEASE_KILLED));
    let b = Replica::spawn("b", &db, &state.path, Some(LEASE_SURVIVOR));
    a.slow_register(&http).await;
    b.slow_register(&http).await;

    // Kill A when it has completed some runs and holds at least two claimed runs (done one
    // after another, so one is under way and at least one more has not started).
    let held_by_a = format!(
        "claimed_until > now() + interval '{ORPHAN_THRESHOLD_SECONDS} seconds' AND status = 'active'"
    );
    wait_until(
        "replica a has worked and holds claimed runs",
        Duration::from_secs(60),
        || async {
            let done = db.count("subscriptions", COMPLETED).await;
            assert!(
                done < SUBSCRIPTIONS as i64,
                "all runs were done before replica a could be killed mid-run"
            );
            a.passes().2 > 0 && db.count("subscriptions", &held_by_a).await >= 2
        },
    )
    .await;
    a.kill();
    let killed_at = started.elapsed();
    let orphaned = db.count("subscriptions", &held_by_a).await;
    let done_at_kill = db.count("subscriptions", COMPLETED).await;
    let written_at_kill = db.count("events", "type = 'refresh.completed'").await;
    eprintln!(
        "killed replica a at {killed_at:?}: it held {orphaned} claimed runs; \
         {done_at_kill} runs completed, {written_at_kill} refresh.completed written"
    );
    assert!(orphaned >= 1, "replica a was killed holding claimed runs");
    let a_before = a.passes();

    // Restarted, on the same state; it runs the scheduler again.
    let a2 = Replica::spawn("a-restarted", &db, &state.path, Some(LEASE_KILLED));
    wait_until(
        "every run is completed",
        Duration::from_secs(90),
        || async { db.count("subscriptions", COMPLETED).await == SUBSCRIPTIONS as i64 },
    )
    .await;
    eprintln!("every run completed at {:?}", started.elapsed());
    let (a_after, b_work) = (a2.passes(), b.passes());
    eprintln!(
        "monitoring passes (passes, claimed, checked): a {a_before:?}, \
         a restarted {a_after:?}, b {b_work:?}"
    );
    assert!(a_before.2 > 0 && b_work.2 > 0, "both replicas did runs");

    // The log, read through the surviving replica with the token the setup replica issued.
    let events = all_events(&http, &b.base_url, &token).await;
    check_log(&events, &subscriptions);

    // The stored log agrees: as many rows as seq values, and the tenant's counter at the end.
    let n = i64::try_from(events.len()).unwrap();
    assert_eq!(db.count("events", "true").await, n);
    assert_eq!(
        db.count("event_counters", &format!("last_seq = {n}")).await,
        1
    );

    // Every run completed in the database: lease released, next run one day after its due.
    let rows = db
        .rows(
            "SELECT subscription_id, status, claimed_until, last_checked_at, \
             last_full_refresh_at, \
             extract(epoch FROM next_run_at - now())::float8 AS ahead FROM subscriptions",
        )
        .await;
    assert_eq!(rows.len(), SUBSCRIPTIONS);
    for row in &rows {
        assert_eq!(row["status"], "active", "{row}");
        assert!(row["claimed_until"].is_null(), "{row}");
        assert!(row["last_checked_at"].is_string(), "{row}");
        assert!(row["last_full_refresh_at"].is_string(), "{row}");
        let ahead = row["ahead"].as_f64().unwrap();
        assert!(
            (23.0 * 3600.0..=24.0 * 3600.0 + 60.0).contains(&ahead),
            "next run about a day ahead: {row}"
        );
    }

    // A crash after a run wrote its events but before it was completed, replayed: the run is
    // due again at the same time with its lease run out, as the killed replica would leave it.
    let replayed: Vec<&String> = subscriptions.iter().take(3).collect();
    for id in &replayed {
        db.execute(&format!(
            "UPDATE subscriptions SET next_run_at = '{}', \
             claimed_until = now() - interval '1 second', \
             last_checked_at = NULL, last_full_refresh_at = NULL \
             WHERE subscription_id = '{id}'",
            due[*id]
        ))
        .await;
    }
    let list = replayed
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(",");
    wait_until(
        "the replayed runs are done again",
        Duration::from_secs(30),
        || async {
            db.count(
                "subscriptions",
                &format!(
                    "subscription_id IN ({list}) AND last_checked_at IS NOT NULL AND {COMPLETED}"
                ),
            )
            .await
                == replayed.len() as i64
        },
    )
    .await;
    let again = all_events(&http, &a2.base_url, &token).await;
    assert_eq!(
        again, events,
        "a run done again after a crash writes nothing twice"
    );

    drop((a2, b, a));
    eprintln!("done in {:?}", started.elapsed());
}

/// The log after every first run: `seq` exactly 1..=n; per subscription one
/// `subscription.created` and one scheduled `refresh.completed`; nothing else.
fn check_log(events: &[Value], subscriptions: &BTreeSet<String>) {
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    let expected: Vec<i64> = (1..=i64::try_from(events.len()).unwrap()).collect();
    assert_eq!(seqs, expected, "seq is 1..=n: no gap, no duplicate");

    let mut created: BTreeMap<String, u32> = BTreeMap::new();
    let mut completed: BTreeMap<String, u32> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    let mut keys = BTreeSet::new();
    for e in events {
        let sub = e["data"]["subscription_id"]
            .as_str()
            .unwrap_or_else(|| panic!("a subscription id in {e}"))
            .to_owned();
        assert!(subscriptions.contains(&sub), "{e}");
        let id = e["id"].as_str().expect("an event id");
        let key = e["idempotency_key"].as_str().expect("an idempotency key");
        assert!(ids.insert(id.to_owned()), "event ids unique: {e}");
        assert!(keys.insert(key.to_owned()), "idempotency keys unique: {e}");
        match e["type"].as_str().unwrap() {
            "subscription.created" => *created.entry(sub).or_default() += 1,
            "refresh.completed" => {
                assert_eq!(e["data"]["trigger"], "scheduled", "{e}");
                *completed.entry(sub).or_default() += 1;
            }
            other => panic!("unexpected {other} event: {e}"),
        }
    }
    let once = |counts: &BTreeMap<String, u32>, what: &str| {
        let missing: Vec<_> = subscriptions
            .iter()
            .filter(|s| !counts.contains_key(*s))
            .collect();
        let twice: Vec<_> = counts.iter().filter(|(_, n)| **n != 1).collect();
        assert!(
            missing.is_empty() && twice.is_empty(),
            "{what} exactly once per subscription: missing {missing:?}, repeated {twice:?}"
        );
    };
    once(&created, "subscription.created");
    once(&completed, "refresh.completed");
    assert_eq!(events.len(), 2 * subscriptions.len());
}
