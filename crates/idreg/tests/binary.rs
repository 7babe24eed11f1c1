//! The real `idreg` binary: operator commands print one JSON object on stdout and exit 0;
//! failures print `{error, message}` and exit non-zero.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::TempDir;
use serde_json::Value;
use std::process::Command;

fn idreg(db: &TestDatabase, state: &TempDir, args: &[&str]) -> (i32, Value) {
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
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn operator_commands_through_the_real_binary() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let (code, tenant) = idreg(
        &db,
        &state,
        &[
            "admin",
            "tenant",
            "create",
            "--name",
            "Bin AB",
            "--country",
            "SE",
            "--activate",
        ],
    );
    assert_eq!(code, 0, "{tenant}");
    let tenant_id = tenant["tenant_id"].as_str().unwrap();
    let (code, grant) = idreg(
        &db,
        &state,
        &[
            "admin",
            "grant",
            "create",
            "--tenant",
            tenant_id,
            "--scopes",
            "kyb:read events:read",
            "--countries",
            "SE",
        ],
    );
    assert_eq!(code, 0, "{grant}");
    for key in ["grant_id", "client_id", "client_secret"] {
        assert!(grant[key].is_string(), "{key} in {grant}");
    }
    // PostgreSQL takes its keys from configuration (here as files): none was generated, and
    // the store recorded the configured ones on first use.
    assert!(!state.path.join("keys.toml").exists());
    assert_eq!(db.count("key_fingerprints", "true").await, 1);

    let (code, failure) = idreg(
        &db,
        &state,
        &[
            "admin",
            "tenant",
            "countries",
            tenant_id,
            "--provision",
            "LT",
        ],
    );
    assert_ne!(code, 0);
    assert_eq!(failure["error"], "provisioned_countries_invalid");
    assert!(failure["message"].is_string());

    let (code, usage) = idreg(&db, &state, &["admin", "grant", "create", "--tenant"]);
    assert_ne!(code, 0);
    assert_eq!(usage["error"], "bad_request");

    let (code, migrated) = idreg(&db, &state, &["migrate"]);
    assert_eq!(code, 0);
    assert_eq!(
        migrated["applied"],
        serde_json::json!([]),
        "already migrated"
    );
}
