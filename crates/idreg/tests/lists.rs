//! `idreg lists import|show` through the real binary: the UN and OFAC sample files become
//! active source versions; the same file again is the same version; a file that is not a list
//! changes nothing but marks the list degraded; progress goes to stderr as plain lines when
//! stderr is not a terminal, and stdout holds one JSON object.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::TempDir;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters-screening/testdata")
        .join(rel)
}

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

#[tokio::test(flavor = "multi_thread")]
async fn lists_are_imported_into_active_versions_and_a_bad_file_changes_nothing() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let un = testdata("un/un_sc_consolidated_2026-02-27.xml");
    let un = un.to_str().unwrap();

    let (code, first, stderr) = idreg(&db, &state, &["lists", "import", un]);
    assert_eq!(code, 0, "{first} {stderr}");
    assert_eq!(first["status"], "stored");
    let version = &first["version"];
    assert_eq!(version["source_id"], "un_sc");
    assert_eq!(version["entry_count"], 1003);
    assert_eq!(version["published_at"], "2026-02-27T00:00:09.554Z");
    assert!(version["digest"].as_str().unwrap().starts_with("sha256:"));
    // Plain progress lines when stderr is not a terminal.
    assert!(stderr.contains("lists import: 1/3 read"), "{stderr}");
    assert!(stderr.contains("lists import: 3/3"), "{stderr}");

    // The same file again: the same version.
    let (code, again, _) = idreg(&db, &state, &["lists", "import", un, "--format", "un-xml"]);
    assert_eq!(code, 0, "{again}");
    assert_eq!(again["status"], "already_stored");
    assert_eq!(
        again["version"]["source_version_id"],
        version["source_version_id"]
    );

    // Both OFAC sets, by folder and by their primary file.
    let sdn = testdata("ofac_sdn_2021-07");
    let (code, ofac, stderr) = idreg(&db, &state, &["lists", "import", sdn.to_str().unwrap()]);
    assert_eq!(code, 0, "{ofac} {stderr}");
    assert_eq!(ofac["version"]["source_id"], "ofac_sdn");
    assert_eq!(ofac["version"]["entry_count"], 8976);
    let cons = testdata("ofac_cons_2025-12/cons_prim.csv");
    let (code, cons, stderr) = idreg(&db, &state, &["lists", "import", cons.to_str().unwrap()]);
    assert_eq!(code, 0, "{cons} {stderr}");
    assert_eq!(cons["version"]["source_id"], "ofac_cons");

    // A file that is not the list it claims: refused, nothing replaced, the list degraded.
    let bad = state.path.join("consolidated.xml");
    std::fs::write(&bad, "<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL>").unwrap();
    let (code, refused, _) = idreg(
        &db,
        &state,
        &[
            "lists",
            "import",
            bad.to_str().unwrap(),
            "--format",
            "un-xml",
        ],
    );
    assert_ne!(code, 0);
    assert_eq!(refused["error"], "bad_request", "{refused}");
    let (code, shown, _) = idreg(&db, &state, &["lists", "show"]);
    assert_eq!(code, 0, "{shown}");
    let lists = shown["lists"].as_array().unwrap();
    assert_eq!(lists.len(), 3, "{shown}");
    let un_list = lists
        .iter()
        .find(|l| l["version"]["source_id"] == "un_sc")
        .unwrap();
    assert_eq!(
        un_list["version"]["source_version_id"],
        version["source_version_id"]
    );
    assert_eq!(un_list["degraded"], true);
    assert!(lists
        .iter()
        .filter(|l| l["version"]["source_id"] != "un_sc")
        .all(|l| l["degraded"] == false));

    // An unknown format name, and a path that is no list at all.
    let (code, unknown, _) = idreg(&db, &state, &["lists", "import", un, "--format", "pdf"]);
    assert_ne!(code, 0);
    assert_eq!(unknown["error"], "bad_request");
    let (code, nothing, _) = idreg(&db, &state, &["lists", "import", "/nonexistent/list.xml"]);
    assert_ne!(code, 0);
    assert_eq!(nothing["error"], "bad_request", "{nothing}");
}
