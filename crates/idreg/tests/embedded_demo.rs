//! The first command of the README on a machine with nothing but the binary: `idreg demo`
//! with no database URL keeps its data in an embedded SQLite file under the state folder, and
//! the walk-through it prints works (token, resolve, company, person, screening, a
//! subscription and its events), and so does its tenant portal (the printed admin signed in
//! through the printed sandbox mailbox). No database server is named or reached, and no raw
//! personal number is in the store's files.
//!
//! Then the evaluation grows into a deployment: `idreg store copy` moves the file into an
//! empty PostgreSQL database, and `idreg serve` on PostgreSQL answers the same client, with
//! the same secret, the same subject and the same event log.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::{free_port, TempDir};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The demo process, stopped when dropped.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The value printed after `label` in the walk-through banner.
fn printed(banner: &str, label: &str) -> String {
    banner
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .unwrap_or_else(|| panic!("`{label}` in the banner:\n{banner}"))
        .trim()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_runs_on_an_embedded_store_and_its_walk_through_works() {
    let state = TempDir::new();
    let base = format!("http://127.0.0.1:{}", free_port());
    let mut child = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .arg("demo")
        .env_remove("DATABASE_URL")
        .env("IDREG_STATE_DIR", &state.path)
        .env("IDREG_LISTEN", base.trim_start_matches("http://"))
        .env("IDREG_PORTAL_LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("IDREG_LOG", "warn")
        .current_dir(&state.path)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::File::create(state.path.join("demo.log")).unwrap(),
        ))
        .spawn()
        .expect("starting idreg demo");
    let stdout = child.stdout.take().unwrap();
    let demo = Demo(child);

    // The banner, up to its last line; the rest of the output is drained (log lines may
    // follow on stdout, and a closed pipe would stop the demo).
    let (tx, rx) = tokio::sync::oneshot::channel::<String>();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        let mut banner = String::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(sender) = tx.take() {
                banner.push_str(&line);
                banner.push('\n');
                if line.starts_with("Stop with Ctrl-C") {
                    let _ = sender.send(std::mem::take(&mut banner));
                } else {
                    tx = Some(sender);
                }
            }
        }
    });
    let banner = rx;
    let banner = tokio::time::timeout(Duration::from_secs(120), banner)
        .await
        .expect("the demo starts within two minutes")
        .expect("the demo printed its banner");
    assert!(
        banner.contains(&format!("idreg is running at {base}")),
        "{banner}"
    );
    assert!(
        state.path.join("idreg.sqlite3").exists(),
        "the data is kept in the state folder's embedded file"
    );
    let (client_id, secret) = (
        printed(&banner, "client_id:"),
        printed(&banner, "client_secret:"),
    );

    let http = reqwest::Client::new();
    // 1. A token.
    let token: Value = http
        .post(format!("{base}/oauth/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", &client_id),
            ("client_secret", &secret),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["access_token"].as_str().expect("a token").to_owned();
    let get = |path: String| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            let r = http.get(path).bearer_auth(token).send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let post = |path: String, body: Value| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            let r = http
                .post(path)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };

    // 2-3. Resolve a company and a person (Skatteverket's test number).
    let (status, company) = post(
        format!("{base}/v1/subjects/resolve"),
        json!({"type": "orgnr", "value": "5561890038", "ref": "customer-42"}),
    )
    .await;
    assert_eq!(status, 200, "{company}");
    let (status, person) = post(
        format!("{base}/v1/subjects/resolve"),
        json!({"type": "personnummer", "value": "19811130-9285"}),
    )
    .await;
    assert_eq!(status, 200, "{person}");
    // 4. The company profile, with evidence; the subject of step 2.
    let (status, profile) = get(format!("{base}/v1/companies/5561890038")).await;
    assert_eq!(status, 200, "{profile}");
    assert_eq!(profile["data"]["subject_id"], company["subject_id"]);
    // 8. The person's profile.
    let (status, read) = get(format!(
        "{base}/v1/persons/{}",
        person["identifier_ref"].as_str().unwrap()
    ))
    .await;
    assert_eq!(status, 200, "{read}");
    // 9. A screening check.
    let (status, check) = post(
        format!("{base}/v1/screening/checks"),
        json!({"name": "Badege Eric", "birth_date": "1971-06-15", "nationalities": ["CD"]}),
    )
    .await;
    assert_eq!(status, 201, "{check}");
    assert!(check["band"].is_string());
    // 9, the PEP list bundled with the demo (invented people): a minister's spouse, found
    //    with why, and at most `review`.
    let (status, check) = post(
        format!("{base}/v1/screening/checks"),
        json!({"name": "Henrik Provholm"}),
    )
    .await;
    assert_eq!(status, 201, "{check}");
    assert_eq!(check["band"], "review", "{check}");
    assert_eq!(check["candidates"][0]["list_kind"], "pep");
    assert!(check["candidates"][0]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["code"] == "pep_relative"));
    // 12. A subscription; the scheduler in the process logs its baseline.
    let (status, subscription) = post(
        format!("{base}/v1/subscriptions"),
        json!({"subject_id": company["subject_id"], "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    assert_eq!(status, 201, "{subscription}");
    let started = Instant::now();
    loop {
        let (status, page) = get(format!("{base}/v1/events?cursor=0")).await;
        assert_eq!(status, 200, "{page}");
        let types: Vec<&str> = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        if types.contains(&"subscription.created") && types.len() >= 2 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the baseline is logged within a minute: {types:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    // 13. The tenant portal the demo prints: its admin asks for a link, which arrives in the
    //     printed sandbox mailbox, and signs in (the cookies kept as a browser keeps them);
    //     the grants page names the admin and lists the demo's grant.
    let portal_line = printed(&banner, "tenant portal:");
    let portal = portal_line
        .split_whitespace()
        .next()
        .and_then(|u| u.strip_suffix("/sign-in"))
        .expect("the portal's sign-in address")
        .to_owned();
    let mailbox = portal_line
        .rsplit_once("mailbox: ")
        .and_then(|(_, m)| m.strip_suffix("?to=<address>"))
        .expect("the sandbox mailbox's address")
        .to_owned();
    let browser = blackbox::portal::browser();
    let asked = browser
        .post(format!("{portal}/sign-in"))
        .form(&[("email", "lead@example.se")])
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);
    let mail: Value = http
        .get(format!("{mailbox}?to=lead@example.se"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let link = blackbox::portal::link_in(mail["messages"][0]["text"].as_str().expect("a mail"));
    let signed = browser
        .post(format!("{portal}/sign-in/complete"))
        .form(&[("link", link)])
        .send()
        .await
        .unwrap();
    assert_eq!(
        (signed.status().as_u16(), &signed.headers()["location"]),
        (
            303,
            &"/grants".parse::<reqwest::header::HeaderValue>().unwrap()
        )
    );
    let grants = browser
        .get(format!("{portal}/grants"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        grants.contains(">lead@example.se</span> (admin)"),
        "{grants}"
    );
    assert!(grants.contains(&client_id), "the demo's grant is listed");
    drop(demo);

    // No raw personal number in the store's files (the data's, the audit trail's, their
    // write-ahead logs): the person resolved above (Skatteverket's test number) is held only
    // sealed and blind-indexed.
    assert!(state.path.join("idreg.audit.sqlite3").exists());
    for name in [
        "idreg.sqlite3",
        "idreg.sqlite3-wal",
        "idreg.audit.sqlite3",
        "idreg.audit.sqlite3-wal",
    ] {
        let bytes = std::fs::read(state.path.join(name)).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        for spelling in ["198111309285", "19811130-9285", "8111309285", "811130-9285"] {
            assert!(!text.contains(spelling), "{name} holds {spelling}");
        }
    }

    // The copy into an empty PostgreSQL database.
    let subject_before = company["subject_id"].as_str().unwrap().to_owned();
    let db = TestDatabase::create(&SCHEMA).await;
    let from = format!("sqlite://{}", state.path.join("idreg.sqlite3").display());
    let copied = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .args(["store", "copy", "--from", &from, "--to", &db.url])
        .env("IDREG_STATE_DIR", &state.path)
        .env("IDREG_LOG", "warn")
        .output()
        .expect("running idreg store copy");
    let report: Value = serde_json::from_slice(&copied.stdout).unwrap_or(Value::Null);
    assert!(copied.status.success(), "{report}");
    assert!(report["copied"].as_u64().unwrap() > 0, "{report}");
    // The demo tenant and its test twin (the printed credentials are test-mode ones).
    assert_eq!(report["tables"]["tenants"], 2, "{report}");
    assert_eq!(
        db.count("subjects", "true").await,
        report["tables"]["subjects"].as_i64().unwrap()
    );
    assert!(db.count("events", "true").await >= 2);
    // A second copy into the same (no longer empty) database is refused, writing nothing.
    let again = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .args(["store", "copy", "--from", &from, "--to", &db.url])
        .env("IDREG_LOG", "warn")
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert_eq!(
        db.count("tenants", "true").await,
        2,
        "nothing written twice"
    );

    // The key record came along: the store was used with the demo's keys.
    assert_eq!(report["tables"]["key_fingerprints"], 1, "{report}");
    // The deployment: the same keys, moved from the state folder's file into configuration
    // (PostgreSQL takes keys from configuration only), PostgreSQL, the same client.
    let kept = std::fs::read_to_string(state.path.join("keys.toml")).unwrap();
    let key = |name: &str| {
        kept.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} = ")))
            .map(|v| v.trim().trim_matches('"').to_owned())
            .unwrap_or_else(|| panic!("{name} in keys.toml"))
    };
    let base = format!("http://127.0.0.1:{}", free_port());
    let serve = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .args(["serve", "--sandbox"])
        .env("DATABASE_URL", &db.url)
        .env("IDREG_STATE_DIR", &state.path)
        .env("IDREG_SIGNING_KEY", key("signing_key"))
        .env("IDREG_MASTER_KEY", key("master_key"))
        .env("IDREG_LISTEN", base.trim_start_matches("http://"))
        .env("IDREG_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting idreg serve");
    let _serve = Demo(serve);
    let started = Instant::now();
    let token: Value = loop {
        let answer = http
            .post(format!("{base}/oauth/token"))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", &client_id),
                ("client_secret", &secret),
            ])
            .send()
            .await;
        if let Ok(answer) = answer {
            break answer.json().await.unwrap();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "serve starts");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let token = token["access_token"]
        .as_str()
        .expect("the same secret works")
        .to_owned();
    let subject = http
        .get(format!("{base}/v1/subjects/{subject_before}"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(subject.status().as_u16(), 200);
    let subject: Value = subject.json().await.unwrap();
    assert_eq!(subject["subject_id"], subject_before.as_str());
    assert_eq!(subject["refs"][0]["ref"], "customer-42", "{subject}");
    let page: Value = http
        .get(format!("{base}/v1/events?cursor=0"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let types: Vec<&str> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"subscription.created"), "{page}");
    assert_eq!(page["events"][0]["seq"], 1);
}
