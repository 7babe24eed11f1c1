//! The scheduled list import over real HTTP (a loopback server serving the bundled list
//! files, or failing on purpose) into a fresh database: a served UN file becomes the active
//! version and the screening index is built; the same file again is the same version; an OFAC
//! CSV set is fetched with its companions; a 500, a truncated file, a body cut short, a file
//! over the size cap and a server that never answers are each recorded as a failed import,
//! and the active version stays.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::TempDir;
use domain::screening::sanctions::ListSource;
use idreg::app::App;
use idreg::config::Config;
use idreg::list_schedule::{parse_urls, run_once, Limits, Outcome};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters-screening/testdata")
        .join(rel)
}

/// What the server answers on a path.
#[derive(Clone)]
enum Reply {
    /// 200 with these bytes.
    Body(Vec<u8>),
    /// This status, empty body.
    Status(u16),
    /// 200 announcing `declared` bytes but sending these and closing.
    CutShort { declared: usize, body: Vec<u8> },
    /// Reads the request and never answers.
    Silent,
}

/// A loopback HTTP/1.1 server whose replies the test sets per path.
struct Server {
    base: String,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let replies: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let shared = replies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let replies = shared.clone();
                std::thread::spawn(move || serve(stream, &replies));
            }
        });
        Server { base, replies }
    }

    fn set(&self, path: &str, reply: Reply) {
        self.replies.lock().unwrap().insert(path.to_owned(), reply);
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn serve(mut stream: TcpStream, replies: &Mutex<HashMap<String, Reply>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let reply = replies
        .lock()
        .unwrap()
        .get(&path)
        .cloned()
        .unwrap_or(Reply::Status(404));
    let ok = |len: usize| {
        format!("HTTP/1.1 200 OK\r\ncontent-length: {len}\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n")
    };
    match reply {
        Reply::Body(body) => {
            let _ = stream.write_all(ok(body.len()).as_bytes());
            let _ = stream.write_all(&body);
        }
        Reply::Status(status) => {
            let _ = stream.write_all(
                format!("HTTP/1.1 {status} Oops\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .as_bytes(),
            );
        }
        Reply::CutShort { declared, body } => {
            let _ = stream.write_all(ok(declared).as_bytes());
            let _ = stream.write_all(&body);
        }
        Reply::Silent => {
            std::thread::sleep(Duration::from_secs(30));
        }
    }
    let _ = stream.flush();
}

async fn app(db: &TestDatabase, state: &TempDir) -> App {
    // PostgreSQL takes its keys from configuration.
    let keys = adapters_crypto::KeyMaterial::generate();
    let config = Config {
        database_url: db.url.clone(),
        state_dir: state.path.clone(),
        signing_key: Some(keys.signing_key().to_hex().to_string()),
        master_key: Some(keys.master_key().to_hex().to_string()),
        db_pool_size: 4,
        ..Config::default()
    };
    App::prepare_for_admin(config).await.expect("the app")
}

fn limits() -> Limits {
    Limits {
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(20),
        max_bytes: 64 << 20,
    }
}

fn failed(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Failed(reason) => reason,
        other => panic!("expected a failed import, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_served_list_is_imported_and_every_failure_leaves_the_active_version() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let app = app(&db, &state).await;
    let services = &app.services;
    let server = Server::start();
    let un = std::fs::read(testdata("un/un_sc_consolidated_2026-02-27.xml")).unwrap();
    server.set("/un/consolidated.xml", Reply::Body(un.clone()));
    let lists = parse_urls(&format!("un_sc={}", server.url("/un/consolidated.xml"))).unwrap();

    // Served: a new version, active, and the screening index built from it.
    let runs = run_once(services, &lists, &limits()).await;
    assert_eq!(runs.len(), 1);
    let Outcome::Stored(version) = &runs[0].outcome else {
        panic!("expected a stored version: {:?}", runs[0].outcome);
    };
    assert_eq!(version.source, ListSource::UnConsolidated);
    assert_eq!(version.entry_count, 1003);
    let loaded = services.screening.loaded.lock().unwrap().clone();
    assert_eq!(
        loaded.expect("the index was built").version_ids,
        vec![version.id]
    );

    // The same bytes again: the same version.
    let runs = run_once(services, &lists, &limits()).await;
    let Outcome::AlreadyStored(again) = &runs[0].outcome else {
        panic!("expected the stored version: {:?}", runs[0].outcome);
    };
    assert_eq!(again.id, version.id);

    // Each failure is recorded against the list; the active version stays.
    let half = un[..un.len() / 2].to_vec();
    let failures = [
        (Reply::Status(500), "HTTP 500"),
        (Reply::Body(half.clone()), "un-xml"),
        (
            Reply::CutShort {
                declared: un.len(),
                body: half,
            },
            "broke off",
        ),
        (Reply::Silent, "timed out"),
        (Reply::Body(b"<html>maintenance</html>".to_vec()), "un-xml"),
    ];
    for (reply, expected) in failures {
        server.set("/un/consolidated.xml", reply);
        let runs = run_once(services, &lists, &limits()).await;
        let reason = failed(&runs[0].outcome);
        assert!(reason.contains(expected), "{expected}: {reason}");
        let active = services.lists.active().await.unwrap();
        assert_eq!(active.len(), 1);
        assert_eq!(active[0].version.id, version.id, "the active version stays");
        let failure = active[0].failed_since.as_ref().expect("recorded as failed");
        assert_eq!(failure.reason, reason);
    }

    // Over the size cap: refused before it is stored.
    server.set("/un/consolidated.xml", Reply::Body(un.clone()));
    let small = Limits {
        max_bytes: 1000,
        ..limits()
    };
    let runs = run_once(services, &lists, &small).await;
    assert!(failed(&runs[0].outcome).contains("cap"));

    // Served whole again: the list is no longer degraded.
    let runs = run_once(services, &lists, &limits()).await;
    assert!(matches!(runs[0].outcome, Outcome::AlreadyStored(_)));
    let active = services.lists.active().await.unwrap();
    assert!(active[0].failed_since.is_none(), "{:?}", active[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ofac_csv_set_is_fetched_with_its_companions_and_a_missing_one_fails_it() {
    let db = TestDatabase::create(&SCHEMA).await;
    let state = TempDir::new();
    let app = app(&db, &state).await;
    let server = Server::start();
    // Upper-case names, as OFAC's sanctions list service publishes them.
    for file in ["sdn.csv", "alt.csv", "add.csv", "sdn_comments.csv"] {
        let bytes = std::fs::read(testdata(&format!("ofac_sdn_2021-07/{file}"))).unwrap();
        server.set(
            &format!("/exports/{}", file.to_ascii_uppercase()),
            Reply::Body(bytes),
        );
    }
    let lists = parse_urls(&format!("ofac_sdn={}", server.url("/exports/SDN.CSV"))).unwrap();
    let runs = run_once(&app.services, &lists, &limits()).await;
    let Outcome::Stored(version) = &runs[0].outcome else {
        panic!("expected a stored version: {:?}", runs[0].outcome);
    };
    assert_eq!(version.source, ListSource::OfacSdn);
    assert_eq!(version.entry_count, 8976);

    // Without its aliases the set is not imported (a version without them would be partial).
    server.set("/exports/ALT.CSV", Reply::Status(404));
    let runs = run_once(&app.services, &lists, &limits()).await;
    assert!(failed(&runs[0].outcome).contains("ALT.CSV: HTTP 404"));
    let active = app.services.lists.active().await.unwrap();
    assert_eq!(active[0].version.id, version.id);

    // A file of another list under this list's name is refused.
    let un = std::fs::read(testdata("un/un_sc_consolidated_2026-02-27.xml")).unwrap();
    server.set("/sdn_advanced.xml", Reply::Body(un));
    let wrong = parse_urls(&format!("ofac_sdn={}", server.url("/sdn_advanced.xml"))).unwrap();
    let runs = run_once(&app.services, &wrong, &limits()).await;
    let reason = failed(&runs[0].outcome);
    assert!(reason.contains("ofac-advanced-xml"), "{reason}");
}
