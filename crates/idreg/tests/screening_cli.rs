//! `idreg screening policy|override|whitelist ...` through the real binary against a fresh
//! database: policy versions published and retired; a tenant's override versions with four
//! eyes and one active at a time; whitelist entries with four eyes, an expiry and revocation.
//! Every command prints one JSON object on stdout; a refusal exits non-zero with
//! `{"error", "message"}` there and the message on stderr.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::TempDir;
use serde_json::Value;
use std::process::Command;

/// Runs `idreg <args>`: exit code, stdout's one JSON object, stderr.
fn idreg(db: &TestDatabase, state: &TempDir, args: &[&str]) -> (i32, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_idreg"))
        .args(args)
        .env("DATABASE_URL", &db.url)
        .env("IDREG_STATE_DIR", &state.path)
        .envs(state.key_files())
        .env("IDREG_LOG", "warn")
        .output()
        .expect("running idreg");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stdout, got: {stdout}");
    (
        output.status.code().unwrap_or(-1),
        serde_json::from_str(lines[0]).expect("stdout is JSON"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs a command that must succeed and returns its JSON.
fn ok(db: &TestDatabase, state: &TempDir, args: &[&str]) -> Value {
    let (code, out, stderr) = idreg(db, state, args);
    assert_eq!(code, 0, "idreg {args:?}: {out} {stderr}");
    out
}

/// Runs a command that must be refused: its JSON error and stderr.
fn refused(db: &TestDatabase, state: &TempDir, args: &[&str]) -> (Value, String) {
    let (code, out, stderr) = idreg(db, state, args);
    assert_ne!(code, 0, "idreg {args:?} should fail: {out}");
    assert!(out["error"].is_string(), "{out}");
    let message = out["message"].as_str().unwrap().to_owned();
    assert!(
        stderr.lines().any(|l| l == format!("idreg: {message}")),
        "the message on one stderr line: {stderr}"
    );
    (out, stderr)
}

fn tenant(db: &TestDatabase, state: &TempDir, name: &str) -> String {
    let t = ok(
        db,
        state,
        &[
            "admin",
            "tenant",
            "create",
            "--name",
            name,
            "--country",
            "SE",
            "--activate",
        ],
    );
    t["tenant_id"].as_str().unwrap().to_owned()
}

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn policies_are_published_listed_and_retired() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();

    let first = ok(
        &db,
        &state,
        &["screening", "policy", "publish", "--by", "ops-anna"],
    );
    assert_eq!(first["version"], 1);
    assert_eq!(first["active"], true);
    assert_eq!(first["config"]["review"], 0.80);
    assert_eq!(first["config"]["hit"], 0.92);
    assert_eq!(first["config"]["weights"]["weak_alias"], 0.12);
    assert_eq!(first["created_by"], "ops-anna");

    let second = ok(
        &db,
        &state,
        &[
            "screening",
            "policy",
            "publish",
            "--by",
            "ops-bo",
            "--review",
            "0.85",
            "--hit",
            "0.95",
            "--weight",
            "birth_date_mismatch=0.10",
            "--weight",
            "country_match=0",
        ],
    );
    assert_eq!(second["version"], 2);
    assert_eq!(second["config"]["review"], 0.85);
    assert_eq!(second["config"]["weights"]["birth_date_mismatch"], 0.10);
    assert_eq!(second["config"]["weights"]["country_match"], 0.0);
    // Untouched weights keep the default policy's values.
    assert_eq!(second["config"]["weights"]["birth_date_exact"], 0.08);

    // Publishing retired the first.
    let listed = ok(&db, &state, &["screening", "policy", "list"]);
    let policies = listed["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 2);
    assert_eq!(policies[0]["id"], second["id"], "newest first");
    assert_eq!(policies[0]["active"], true);
    assert_eq!(policies[1]["active"], false);

    // Out-of-range numbers and unknown weights are refused, nothing published.
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "policy",
            "publish",
            "--by",
            "x",
            "--review",
            "0.95",
        ],
    );
    assert_eq!(out["error"], "bad_request");
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "policy",
            "publish",
            "--by",
            "x",
            "--weight",
            "shoe_size=0.1",
        ],
    );
    assert!(
        out["message"].as_str().unwrap().contains("shoe_size"),
        "{out}"
    );

    // Retiring the active one leaves none active.
    let retired = ok(&db, &state, &["screening", "policy", "retire", id(&second)]);
    assert_eq!(retired["active"], false);
    let listed = ok(&db, &state, &["screening", "policy", "list"]);
    assert!(listed["policies"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["active"] == false));
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "policy",
            "retire",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        ],
    );
    assert_eq!(out["error"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn override_versions_take_four_eyes_and_one_is_active_per_tenant() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let acme = tenant(&db, &state, "Acme AB");
    let other = tenant(&db, &state, "Other AB");

    let propose = |by: &str, review: &str, hit: &str| {
        ok(
            &db,
            &state,
            &[
                "screening",
                "override",
                "propose",
                &acme,
                "--by",
                by,
                "--review",
                review,
                "--hit",
                hit,
            ],
        )
    };
    let v1 = propose("ops-anna", "0.85", "0.95");
    assert_eq!(v1["version"], 1);
    assert_eq!(v1["status"], "draft");
    assert_eq!(v1["proposed_by"], "ops-anna");
    assert_eq!(v1["approved_by"], Value::Null);
    assert_eq!(
        v1["config"],
        serde_json::json!({"review": 0.85, "hit": 0.95, "weights": {}})
    );

    // Four eyes: the proposer cannot approve.
    let (out, stderr) = refused(
        &db,
        &state,
        &[
            "screening",
            "override",
            "approve",
            &acme,
            id(&v1),
            "--by",
            "ops-anna",
        ],
    );
    assert!(
        out["message"].as_str().unwrap().contains("four eyes"),
        "{out}"
    );
    assert!(stderr.contains("four eyes"), "{stderr}");
    // A draft cannot be activated before approval.
    refused(
        &db,
        &state,
        &["screening", "override", "activate", &acme, id(&v1)],
    );
    // Another tenant does not see it.
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "override",
            "approve",
            &other,
            id(&v1),
            "--by",
            "ops-bo",
        ],
    );
    assert_eq!(out["error"], "not_found");

    let approved = ok(
        &db,
        &state,
        &[
            "screening",
            "override",
            "approve",
            &acme,
            id(&v1),
            "--by",
            "ops-bo",
        ],
    );
    assert_eq!(approved["status"], "approved");
    assert_eq!(approved["approved_by"], "ops-bo");
    let active = ok(
        &db,
        &state,
        &["screening", "override", "activate", &acme, id(&v1)],
    );
    assert_eq!(active["status"], "active");
    assert!(active["effective_from"].is_string());

    // A second version, approved by someone else, replaces the first when activated.
    let v2 = ok(
        &db,
        &state,
        &[
            "screening",
            "override",
            "propose",
            &acme,
            "--by",
            "ops-bo",
            "--weight",
            "weak_alias=0.2",
        ],
    );
    assert_eq!(v2["version"], 2);
    assert_eq!(
        v2["config"],
        serde_json::json!({"weights": {"weak_alias": 0.2}})
    );
    ok(
        &db,
        &state,
        &[
            "screening",
            "override",
            "approve",
            &acme,
            id(&v2),
            "--by",
            "ops-carl",
        ],
    );
    ok(
        &db,
        &state,
        &["screening", "override", "activate", &acme, id(&v2)],
    );
    let listed = ok(&db, &state, &["screening", "override", "list", &acme]);
    let versions = listed["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["id"], v2["id"], "newest first");
    assert_eq!(versions[0]["status"], "active");
    assert_eq!(versions[1]["status"], "retired");
    assert_eq!(
        versions.iter().filter(|v| v["status"] == "active").count(),
        1
    );

    // Retiring the active one: none active; nothing leaves retired.
    let retired = ok(
        &db,
        &state,
        &["screening", "override", "retire", &acme, id(&v2)],
    );
    assert_eq!(retired["status"], "retired");
    refused(
        &db,
        &state,
        &["screening", "override", "activate", &acme, id(&v2)],
    );
    let listed = ok(&db, &state, &["screening", "override", "list", &other]);
    assert_eq!(listed["versions"], serde_json::json!([]));

    // Half a threshold pair and an unknown tenant are refused.
    refused(
        &db,
        &state,
        &[
            "screening",
            "override",
            "propose",
            &acme,
            "--by",
            "x",
            "--review",
            "0.9",
        ],
    );
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "override",
            "list",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        ],
    );
    assert_eq!(out["error"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn whitelist_entries_take_four_eyes_expire_and_are_revoked() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let acme = tenant(&db, &state, "Acme AB");
    let hash = format!("hmac-sha256:{}", "ab".repeat(32));
    let next_year = (chrono::Utc::now() + chrono::Duration::days(365))
        .format("%Y-%m-%d")
        .to_string();

    let add = |expires: &str| {
        idreg(
            &db,
            &state,
            &[
                "screening",
                "whitelist",
                "add",
                &acme,
                "--input-hash",
                &hash,
                "--source",
                "un_sc",
                "--entry",
                "6908555",
                "--reason",
                "a different person: born 1990, customer since 2015",
                "--expires",
                expires,
                "--by",
                "ops-anna",
            ],
        )
    };

    // An expiry in the past is refused.
    let (code, out, stderr) = add("2020-01-01");
    assert_ne!(code, 0);
    assert_eq!(out["error"], "bad_request", "{out}");
    assert!(
        out["message"].as_str().unwrap().contains("expires"),
        "{out}"
    );
    assert!(stderr.contains("expires"), "{stderr}");

    let (code, entry, stderr) = add(&next_year);
    assert_eq!(code, 0, "{entry} {stderr}");
    assert_eq!(entry["input_hash"], hash.as_str());
    assert_eq!(entry["subject_id"], Value::Null);
    assert_eq!(entry["source_id"], "un_sc");
    assert_eq!(entry["source_entry_id"], "6908555");
    assert_eq!(entry["created_by"], "ops-anna");
    assert_eq!(entry["effective"], false, "not approved yet");
    assert!(entry["expires_at"]
        .as_str()
        .unwrap()
        .ends_with("T00:00:00.000Z"));

    // Four eyes: the maker cannot approve.
    let (out, _) = refused(
        &db,
        &state,
        &[
            "screening",
            "whitelist",
            "approve",
            &acme,
            id(&entry),
            "--by",
            "ops-anna",
        ],
    );
    assert!(
        out["message"].as_str().unwrap().contains("four eyes"),
        "{out}"
    );
    let approved = ok(
        &db,
        &state,
        &[
            "screening",
            "whitelist",
            "approve",
            &acme,
            id(&entry),
            "--by",
            "ops-bo",
        ],
    );
    assert_eq!(approved["approved_by"], "ops-bo");
    assert_eq!(approved["effective"], true);
    let listed = ok(&db, &state, &["screening", "whitelist", "list", &acme]);
    assert_eq!(listed["entries"][0]["effective"], true);

    // Revoked: no longer in effect, and not revoked twice.
    let revoked = ok(
        &db,
        &state,
        &["screening", "whitelist", "revoke", &acme, id(&entry)],
    );
    assert!(revoked["revoked_at"].is_string());
    assert_eq!(revoked["effective"], false);
    refused(
        &db,
        &state,
        &["screening", "whitelist", "revoke", &acme, id(&entry)],
    );
    let listed = ok(&db, &state, &["screening", "whitelist", "list", &acme]);
    let entries = listed["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["effective"], false);

    // Exactly one of a subject and an input hash; a known list; a subject of the tenant.
    let base = [
        "screening",
        "whitelist",
        "add",
        acme.as_str(),
        "--source",
        "un_sc",
        "--entry",
        "1",
        "--reason",
        "r",
        "--expires",
        next_year.as_str(),
        "--by",
        "ops-anna",
    ];
    refused(&db, &state, &base);
    let mut wrong_list = base.to_vec();
    wrong_list.extend(["--input-hash", hash.as_str()]);
    wrong_list[5] = "interpol";
    let (out, _) = refused(&db, &state, &wrong_list);
    assert!(
        out["message"].as_str().unwrap().contains("ofac_sdn"),
        "{out}"
    );
    let mut no_subject = base.to_vec();
    no_subject.extend(["--subject-id", "01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
    let (out, _) = refused(&db, &state, &no_subject);
    assert_eq!(out["error"], "not_found");
    let mut bad_hash = base.to_vec();
    bad_hash.extend(["--input-hash", "sha1:abc"]);
    refused(&db, &state, &bad_hash);
}
