//! The store a test app keeps its data in: a fresh PostgreSQL database (the default) or a
//! fresh embedded SQLite file, chosen for the whole run by `IDREG_TEST_STORE`
//! (`postgres` or `sqlite`). The black-box suite runs unchanged on either: what a test reads
//! beneath the interface (row counts, a dump scanned for personal numbers, an outage) goes
//! through this type, in SQL both stores accept.

use crate::db::{TestDatabase, SCHEMA};
pub use test_stores::sqlite::{Opener, SqliteFile};

/// Which store this run's test apps use (`IDREG_TEST_STORE`; PostgreSQL when unset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    Postgres,
    Sqlite,
}

impl StoreKind {
    pub fn of_run() -> StoreKind {
        match std::env::var("IDREG_TEST_STORE").as_deref() {
            Ok("sqlite") => StoreKind::Sqlite,
            Ok("postgres") | Ok("") | Err(_) => StoreKind::Postgres,
            Ok(other) => panic!("IDREG_TEST_STORE is `postgres` or `sqlite`, not `{other}`"),
        }
    }
}

/// One test's store; removed with it.
pub enum TestStore {
    Postgres(TestDatabase),
    Sqlite(SqliteFile),
}

impl TestStore {
    /// A fresh store of this run's kind.
    pub async fn create() -> TestStore {
        match StoreKind::of_run() {
            StoreKind::Postgres => TestStore::Postgres(TestDatabase::create(&SCHEMA).await),
            StoreKind::Sqlite => TestStore::Sqlite(SqliteFile::new(SQLITE)),
        }
    }

    /// The database URL the app is configured with.
    pub fn url(&self) -> String {
        match self {
            TestStore::Postgres(db) => db.url.clone(),
            TestStore::Sqlite(file) => format!("sqlite://{}", file.path.display()),
        }
    }

    pub fn kind(&self) -> StoreKind {
        match self {
            TestStore::Postgres(_) => StoreKind::Postgres,
            TestStore::Sqlite(_) => StoreKind::Sqlite,
        }
    }

    /// `SELECT count(*) FROM <table> WHERE <condition>` (test-written SQL both stores accept).
    pub async fn count(&self, table: &str, condition: &str) -> i64 {
        match self {
            TestStore::Postgres(db) => db.count(table, condition).await,
            TestStore::Sqlite(file) => file.count(table, condition),
        }
    }

    /// The rows of a test-written query (SQL both stores accept), each as a JSON object of its
    /// columns. Documents come back as JSON on PostgreSQL and as text on SQLite, booleans as
    /// `true`/`false` and `1`/`0`: compare ids, codes and counts.
    pub async fn rows(&self, query: &str) -> Vec<serde_json::Value> {
        match self {
            TestStore::Postgres(db) => db.rows(query).await,
            TestStore::Sqlite(file) => file.query(query),
        }
    }

    /// Runs a test-written statement (to set up a state no route creates yet); the number of
    /// rows it changed.
    pub async fn execute(&self, statement: &str) -> usize {
        match self {
            TestStore::Postgres(db) => db.execute(statement).await,
            TestStore::Sqlite(file) => {
                use diesel::RunQueryDsl;
                diesel::sql_query(statement)
                    .execute(&mut file.connect())
                    .expect("test statement")
            }
        }
    }

    /// A point in time as a SQL literal of the store's time columns (`timestamptz` text on
    /// PostgreSQL, integer microseconds on SQLite).
    pub fn time_literal(&self, at: chrono::DateTime<chrono::Utc>) -> String {
        match self {
            TestStore::Postgres(_) => format!("'{}'", at.to_rfc3339()),
            TestStore::Sqlite(_) => at.timestamp_micros().to_string(),
        }
    }

    /// Everything the store holds as text, for scans for raw personal numbers: PostgreSQL's
    /// data-only dump; for SQLite the bytes of the file and its write-ahead log (every page,
    /// free ones included, so a value deleted but not overwritten is found too).
    pub async fn dump_text(&self) -> String {
        match self {
            TestStore::Postgres(db) => db.dump_text().await,
            TestStore::Sqlite(file) => file.raw_text(),
        }
    }

    /// Makes the store unreachable for the app until the returned guard is dropped:
    /// PostgreSQL refuses connections to the database and ends the app's sessions; the SQLite
    /// file's write lock is held by another connection (every answered request writes its
    /// audit row, so the app waits its busy timeout out and gives up).
    pub async fn outage(&self) -> Outage {
        match self {
            TestStore::Postgres(db) => {
                db.refuse_connections(true).await;
                Outage::Postgres(db.name.clone())
            }
            TestStore::Sqlite(file) => {
                use diesel::connection::SimpleConnection;
                let mut conn = file.connect();
                conn.batch_execute("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE;")
                    .expect("taking the write lock");
                Outage::Sqlite(conn)
            }
        }
    }
}

/// A store outage in progress ([`TestStore::outage`]); ends when dropped.
pub enum Outage {
    Postgres(String),
    Sqlite(diesel::SqliteConnection),
}

impl Drop for Outage {
    fn drop(&mut self) {
        match self {
            Outage::Postgres(name) => {
                let name = name.clone();
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    if let Ok(rt) = rt {
                        rt.block_on(crate::db::allow_connections(&name, true));
                    }
                })
                .join();
            }
            Outage::Sqlite(conn) => {
                use diesel::connection::SimpleConnection;
                let _ = conn.batch_execute("ROLLBACK;");
            }
        }
    }
}

/// How the service's embedded store opens its file, and the files it keeps (the data's and
/// the audit trail's).
pub const SQLITE: Opener = Opener {
    connect: adapters_sqlite::connect,
    files: |path| vec![path.to_owned(), adapters_sqlite::audit_path(path)],
};
