//! The store: one SQLite file in WAL mode with foreign keys on, its schema migrated on open,
//! and a few connections each used on a blocking thread, so a port call never blocks the
//! async worker that made it.
//!
//! Every port method is one closure over one connection: [`Database::read`] runs it in a
//! deferred transaction (a consistent snapshot; readers never wait for the writer in WAL
//! mode), [`Database::write`] in an immediate one, which takes SQLite's one write lock at
//! its start. Writes therefore run one at a time, whole: what PostgreSQL gets from row locks
//! (a tenant's event counter, a budget spend, a subject's first sighting) holds here because
//! no other write can interleave with the transaction.
//!
//! The audit trail is a file of its own with a write lock of its own: the data's connections
//! attach it read-only (so their immediate transactions lock the data's file alone), and the
//! trail's rows are written on one connection that opens the trail's file alone
//! ([`Database::write_trail`]). A request's audit commit never waits for a data write (a
//! re-screening pass's, a webhook delivery's), nor a data write for the trail.

use crate::convert::{backend, TxError};
use diesel::connection::SimpleConnection;
use diesel::sqlite::SqliteConnection;
use diesel::Connection;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use domain::error::StoreError;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

pub(crate) const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// How long a connection waits for the write lock before the call fails as unavailable.
const BUSY_TIMEOUT_MS: u32 = 5_000;

/// Set on every connection: WAL (readers beside the one writer), foreign keys enforced (off
/// by default in SQLite), a bounded wait for the write lock, and `synchronous = FULL` so a
/// committed write (an audit row before its answer) survives a power loss.
const PRAGMAS: &str = "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; \
     PRAGMA synchronous = FULL; PRAGMA trusted_schema = OFF;";

#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error("opening {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("migrating {path}: {reason}")]
    Migrate { path: String, reason: String },
}

/// The embedded store. Cheap to clone: every clone shares the file's connections.
#[derive(Clone)]
pub struct Database {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    idle: Mutex<Vec<SqliteConnection>>,
    slots: Semaphore,
    /// The most connections open at once (`slots`' size).
    connections: usize,
    /// Tasks waiting for a slot now.
    waiting: std::sync::atomic::AtomicUsize,
    /// The service's turn at SQLite's one write lock. Writers of this process queue here, in
    /// order, instead of meeting the lock taken and sleeping in SQLite's busy handler (whose
    /// growing sleeps are what a latency tail is made of); `busy_timeout` is left for other
    /// processes on the same file (the operator's commands).
    writer: tokio::sync::Mutex<()>,
    /// Audit rows waiting for the next group commit ([`crate::audit`]).
    audit_queue: Mutex<Vec<PendingAudit>>,
    /// The service's turn at the audit trail's write lock, as `writer` is the data's.
    trail_writer: tokio::sync::Mutex<()>,
    /// The connection the trail is written on (its file alone), idle between turns.
    trail: Mutex<Option<SqliteConnection>>,
    /// Statements run on the service's connections (the pool's and the trail's), counted
    /// by each connection's instrumentation ([`Inner::counted`]).
    statements: Arc<std::sync::atomic::AtomicU64>,
}

impl Inner {
    /// `conn`, made ready, from now on adding one to the store's count for each statement it
    /// finishes (`BEGIN` and `COMMIT` included): one atomic addition a statement.
    fn counted(&self, mut conn: SqliteConnection) -> SqliteConnection {
        use diesel::connection::{Instrumentation, InstrumentationEvent};
        fn counting(statements: Arc<std::sync::atomic::AtomicU64>) -> impl Instrumentation {
            move |event: InstrumentationEvent<'_>| {
                if matches!(event, InstrumentationEvent::FinishQuery { .. }) {
                    statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        conn.set_instrumentation(counting(Arc::clone(&self.statements)));
        conn
    }
}

impl Database {
    /// Opens (creating it and its folder when missing) the store at `path`, migrates it, and
    /// keeps up to `connections` connections.
    pub fn open(path: &Path, connections: usize) -> Result<Database, DatabaseError> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| DatabaseError::Open {
                path: shown.clone(),
                reason: e.to_string(),
            })?;
        }
        let mut conn = connect(path).map_err(|reason| DatabaseError::Open {
            path: shown.clone(),
            reason,
        })?;
        conn.run_pending_migrations(MIGRATIONS)
            .map_err(|e| DatabaseError::Migrate {
                path: shown.clone(),
                reason: e.to_string(),
            })?;
        // A store whose audit trail's file went missing (a backup of one file of the two)
        // opens to an empty `audit`: refuse it rather than serve without the trail.
        let trail = conn
            .batch_execute("SELECT 1 FROM audit.audit_log LIMIT 0")
            .is_ok();
        if !trail {
            return Err(DatabaseError::Open {
                path: shown,
                reason: format!(
                    "its audit trail's file {} is missing; restore it beside the store",
                    audit_path(path).display()
                ),
            });
        }
        // The migrating connection may write the trail; the pool's may not.
        drop(conn);
        Ok(Database {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                idle: Mutex::new(Vec::new()),
                slots: Semaphore::new(connections.max(1)),
                connections: connections.max(1),
                waiting: std::sync::atomic::AtomicUsize::new(0),
                writer: tokio::sync::Mutex::new(()),
                audit_queue: Mutex::new(Vec::new()),
                trail_writer: tokio::sync::Mutex::new(()),
                trail: Mutex::new(None),
                statements: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            }),
        })
    }

    /// The file the store lives in.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `work` in a deferred (read) transaction on a blocking thread.
    pub(crate) async fn read<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<T, TxError> + Send + 'static,
    {
        self.with(move |conn| conn.transaction(work)).await
    }

    /// Runs `work` in an immediate (write) transaction on a blocking thread: it holds the
    /// data's write lock from its first statement to its commit.
    pub(crate) async fn write<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<T, TxError> + Send + 'static,
    {
        let turn = self.turn(File::Data).await;
        self.write_in_turn(&turn, work).await
    }

    /// Runs `work` in an immediate transaction on the audit trail's own connection, in this
    /// process's turn at the trail's write lock (no data write waits for it, nor it for one).
    pub(crate) async fn write_trail<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<T, TxError> + Send + 'static,
    {
        let turn = self.turn(File::Trail).await;
        self.write_in_turn(&turn, work).await
    }

    /// Waits for this process's turn at `file`'s write lock.
    pub(crate) async fn turn(&self, file: File) -> Turn<'_> {
        let lock = match file {
            File::Data => &self.inner.writer,
            File::Trail => &self.inner.trail_writer,
        };
        Turn {
            file,
            _held: lock.lock().await,
        }
    }

    /// [`Database::write`] or [`Database::write_trail`] for a caller that holds the file's
    /// turn already.
    pub(crate) async fn write_in_turn<T, F>(
        &self,
        turn: &Turn<'_>,
        work: F,
    ) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<T, TxError> + Send + 'static,
    {
        match turn.file {
            File::Data => {
                self.with(move |conn| conn.immediate_transaction(work))
                    .await
            }
            File::Trail => {
                let inner = self.inner.clone();
                joined(
                    tokio::task::spawn_blocking(move || {
                        let idle = inner.trail.lock().unwrap_or_else(|e| e.into_inner()).take();
                        let mut conn = match idle {
                            Some(conn) => conn,
                            None => inner.counted(
                                connect_trail(&inner.path).map_err(StoreError::Unavailable)?,
                            ),
                        };
                        let result = conn.immediate_transaction(work);
                        *inner.trail.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn);
                        result.map_err(StoreError::from)
                    })
                    .await,
                )
            }
        }
    }

    /// The audit rows queued for the next group commit.
    pub(crate) fn audit_queue(&self) -> std::sync::MutexGuard<'_, Vec<PendingAudit>> {
        self.inner
            .audit_queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The connections this process holds: open ones are in use or idle.
    pub(crate) fn connections(&self) -> domain::health::ports::PoolUse {
        let max = self.inner.connections;
        let in_use = max.saturating_sub(self.inner.slots.available_permits());
        let idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len();
        domain::health::ports::PoolUse {
            max: max as u64,
            open: (in_use + idle) as u64,
            in_use: in_use as u64,
            waiting: self
                .inner
                .waiting
                .load(std::sync::atomic::Ordering::Relaxed) as u64,
            statements: self
                .inner
                .statements
                .load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    async fn with<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<T, TxError> + Send + 'static,
    {
        let _slot = match self.inner.slots.try_acquire() {
            Ok(slot) => slot,
            Err(_) => {
                // Counted while waiting, also when the waiting request is dropped.
                struct Waiting<'a>(&'a std::sync::atomic::AtomicUsize);
                impl Drop for Waiting<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                self.inner
                    .waiting
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let _waiting = Waiting(&self.inner.waiting);
                self.inner
                    .slots
                    .acquire()
                    .await
                    .map_err(|_| StoreError::Unavailable("the store is closed".into()))?
            }
        };
        let inner = self.inner.clone();
        let done = tokio::task::spawn_blocking(move || {
            let idle = inner.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let mut conn = match idle {
                Some(conn) => conn,
                None => inner.counted(
                    connect_with(&inner.path, Trail::ReadOnly).map_err(StoreError::Unavailable)?,
                ),
            };
            let result = work(&mut conn);
            inner
                .idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(conn);
            result.map_err(StoreError::from)
        })
        .await;
        joined(done)
    }
}

/// One request's audit rows waiting for the trail's next group commit ([`crate::audit`]),
/// and where to say how they fared.
pub(crate) struct PendingAudit {
    pub(crate) records: Vec<domain::access::audit::AccessRecord>,
    pub(crate) done: tokio::sync::oneshot::Sender<Result<(), StoreError>>,
}

/// Which of the store's two files a write goes to, each with its own write lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum File {
    /// The data (`idreg.sqlite3`).
    Data,
    /// The audit trail (`idreg.audit.sqlite3`).
    Trail,
}

/// This process's turn at one file's write lock, held until dropped.
pub(crate) struct Turn<'a> {
    file: File,
    _held: tokio::sync::MutexGuard<'a, ()>,
}

/// A blocking task's outcome: a task that panicked is a backend failure.
fn joined<T>(done: Result<Result<T, StoreError>, tokio::task::JoinError>) -> Result<T, StoreError> {
    done.unwrap_or_else(|e| Err(StoreError::Backend(format!("a store task failed: {e}"))))
}

/// The audit trail's file: beside the store, `idreg.sqlite3` → `idreg.audit.sqlite3`.
///
/// Every answered request commits its audit row, and in WAL mode a commit to a file makes
/// every other connection drop its page cache for that file at its next read; in a file of
/// its own, the trail's commits leave the data's pages cached for the reads of the requests
/// that follow. The file is attached to every connection as `audit`, so the trail's tables
/// keep their unqualified names. A backup copies both files.
pub fn audit_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.audit.{}", ext.to_string_lossy()),
        None => format!("{stem}.audit"),
    };
    path.with_file_name(name)
}

/// How a connection holds the audit trail's file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trail {
    /// Attached for writing too: migrations, operator commands, tests.
    Writable,
    /// Attached read-only: the pool's connections, whose immediate transactions then lock
    /// the data's file alone.
    ReadOnly,
}

/// A connection to the store with the audit trail's file attached (writable), its settings
/// made: for migrations and for tools outside the service's pool.
pub fn connect(path: &Path) -> Result<SqliteConnection, String> {
    connect_with(path, Trail::Writable)
}

fn connect_with(path: &Path, trail: Trail) -> Result<SqliteConnection, String> {
    use diesel::RunQueryDsl;
    let url = path.to_str().ok_or("the path is not UTF-8")?;
    let audit = audit_path(path);
    let audit = audit.to_str().ok_or("the path is not UTF-8")?;
    let mut conn = SqliteConnection::establish(url).map_err(|e| e.to_string())?;
    conn.batch_execute(&format!(
        "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}; {PRAGMAS}"
    ))
    .map_err(|e| backend(e).to_string())?;
    // diesel opens with URI names allowed, so ATTACH reads one: `mode=ro` keeps the pool's
    // transactions off the trail's write lock.
    let attached = match trail {
        Trail::Writable => audit.to_owned(),
        Trail::ReadOnly => format!("{}?mode=ro", file_uri(audit)),
    };
    diesel::sql_query("ATTACH DATABASE ? AS audit")
        .bind::<diesel::sql_types::Text, _>(attached)
        .execute(&mut conn)
        .map_err(|e| backend(e).to_string())?;
    if trail == Trail::Writable {
        conn.batch_execute("PRAGMA audit.journal_mode = WAL; PRAGMA audit.synchronous = FULL;")
            .map_err(|e| backend(e).to_string())?;
    }
    Ok(conn)
}

/// The connection the audit trail is written on: the trail's file alone (as its main
/// database, so its tables keep their names), WAL, and durable at each commit.
fn connect_trail(path: &Path) -> Result<SqliteConnection, String> {
    let audit = audit_path(path);
    let audit = audit.to_str().ok_or("the path is not UTF-8")?;
    let mut conn = SqliteConnection::establish(&file_uri(audit)).map_err(|e| e.to_string())?;
    conn.batch_execute(&format!(
        "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; \
         PRAGMA synchronous = FULL; PRAGMA trusted_schema = OFF;"
    ))
    .map_err(|e| backend(e).to_string())?;
    Ok(conn)
}

/// A path as an SQLite `file:` URI: every byte but the unreserved ones and `/` escaped, so
/// that `?`, `#` and `%` in a folder's name stay part of the name.
fn file_uri(path: &str) -> String {
    use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
    const PATH: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    format!("file:{}", utf8_percent_encode(path, PATH))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use diesel::sql_types::{BigInt, Text};
    use diesel::{QueryableByName, RunQueryDsl};

    #[derive(QueryableByName)]
    struct Pragma {
        #[diesel(sql_type = Text)]
        value: String,
    }

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    pub(crate) fn scratch() -> (tempdir::Dir, Database) {
        let dir = tempdir::Dir::new();
        let db = Database::open(&dir.0.join("nested/idreg.sqlite3"), 4).expect("open");
        (dir, db)
    }

    #[test]
    fn a_store_whose_audit_file_is_gone_is_refused() {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("idreg.sqlite3");
        drop(Database::open(&path, 1).expect("open"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", audit_path(&path).display()));
        }
        let refused = Database::open(&path, 1).err().expect("refused");
        assert!(
            refused.to_string().contains("audit trail's file"),
            "{refused}"
        );
    }

    pub(crate) mod tempdir {
        /// A folder removed when dropped.
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let path =
                    std::env::temp_dir().join(format!("idreg-sqlite-{}", ulid::Ulid::generate()));
                std::fs::create_dir_all(&path).unwrap();
                Dir(path)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[tokio::test]
    async fn a_store_opens_migrated_in_wal_mode_with_foreign_keys_on() {
        let (_dir, db) = scratch();
        let (journal, foreign_keys, tables) = db
            .read(|conn| {
                let journal: Pragma =
                    diesel::sql_query("SELECT journal_mode AS value FROM pragma_journal_mode")
                        .get_result(conn)?;
                let fk: Pragma = diesel::sql_query(
                    "SELECT CAST(foreign_keys AS TEXT) AS value FROM pragma_foreign_keys",
                )
                .get_result(conn)?;
                let tables: Count = diesel::sql_query(
                    "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table' \
                     AND name NOT LIKE 'sqlite_%' AND name <> '__diesel_schema_migrations'",
                )
                .get_result(conn)?;
                let trail: Count = diesel::sql_query(
                    "SELECT COUNT(*) AS n FROM audit.sqlite_schema WHERE type = 'table' \
                     AND name IN ('audit_log', 'access_log', 'security_log')",
                )
                .get_result(conn)?;
                let trail_journal: Pragma = diesel::sql_query(
                    "SELECT journal_mode AS value FROM pragma_journal_mode('audit')",
                )
                .get_result(conn)?;
                assert_eq!(trail.n, 3, "the audit trail in its own file");
                assert_eq!(trail_journal.value, "wal");
                Ok((journal.value, fk.value, tables.n))
            })
            .await
            .unwrap();
        assert_eq!(journal, "wal");
        assert_eq!(foreign_keys, "1");
        // The PostgreSQL data model's tables, every one: 40 in the store's file, the audit
        // trail's three in its own.
        assert_eq!(tables, 40);
        assert!(audit_path(db.path()).exists());
        assert_eq!(
            audit_path(db.path()).file_name().unwrap(),
            "idreg.audit.sqlite3"
        );
        // Opening again finds it migrated.
        let again = Database::open(db.path(), 1).expect("reopen");
        assert_eq!(again.path(), db.path());
    }

    #[tokio::test]
    async fn foreign_keys_and_strict_types_refuse_bad_rows() {
        let (_dir, db) = scratch();
        let orphan = db
            .write(|conn| {
                diesel::sql_query(
                    "INSERT INTO permits VALUES ('t', 'p', '2026-01-01', '2026-12-31', 'active', 0)",
                )
                .execute(conn)?;
                Ok(())
            })
            .await;
        assert!(orphan.is_err(), "a permit of no tenant is refused");
        let mistyped = db
            .write_trail(|conn| {
                diesel::sql_query(
                    "INSERT INTO security_log VALUES ('e', 'r', 'not a time', 'GET', '/', 401, 'x', NULL, NULL)",
                )
                .execute(conn)?;
                Ok(())
            })
            .await;
        assert!(mistyped.is_err(), "a text where a time goes is refused");
    }

    /// One security-log row into `table` (the trail's, named as the connection sees it).
    fn insert_security_row(conn: &mut SqliteConnection, table: &str) -> Result<(), TxError> {
        diesel::sql_query(format!(
            "INSERT INTO {table} VALUES ('e', 'r', 1, 'GET', '/', 401, 'x', NULL, NULL)"
        ))
        .execute(conn)?;
        Ok(())
    }

    /// The trail's security-log rows, read through the pool.
    async fn security_rows(db: &Database) -> i64 {
        db.read(|conn| {
            Ok(
                diesel::sql_query("SELECT COUNT(*) AS n FROM audit.security_log")
                    .get_result::<Count>(conn)?
                    .n,
            )
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn the_trail_is_written_while_a_data_write_holds_the_datas_lock() {
        let (_dir, db) = scratch();
        // A data write holds SQLite's write lock on the data's file until told to commit.
        let (commit, wait) = std::sync::mpsc::channel::<()>();
        let (held, holding) = tokio::sync::oneshot::channel::<()>();
        let writing = {
            let db = db.clone();
            tokio::spawn(async move {
                db.write(move |conn| {
                    diesel::sql_query("INSERT INTO tenants (tenant_id) SELECT 'x' WHERE 0")
                        .execute(conn)?;
                    let _ = held.send(());
                    let _ = wait.recv();
                    Ok(())
                })
                .await
            })
        };
        holding.await.unwrap();
        // The trail's rows commit meanwhile, without waiting for it (nor for the busy
        // handler's 5 s).
        let trail = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            db.write_trail(|conn| insert_security_row(conn, "security_log")),
        )
        .await;
        commit.send(()).unwrap();
        writing.await.unwrap().unwrap();
        trail
            .expect("the trail waited for the data's write")
            .unwrap();
        let rows = security_rows(&db).await;
        assert_eq!(rows, 1, "the pool's connections read the trail");
    }

    #[tokio::test]
    async fn the_pools_connections_cannot_write_the_trail() {
        let (_dir, db) = scratch();
        let written = db
            .write(|conn| insert_security_row(conn, "audit.security_log"))
            .await;
        assert!(
            written.is_err(),
            "only the trail's own connection writes it"
        );
    }

    #[tokio::test]
    async fn a_store_in_a_folder_with_uri_characters_in_its_name_works() {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("a b?c#d%20e&f=g").join("idreg.sqlite3");
        let db = Database::open(&path, 2).expect("open");
        db.write_trail(|conn| insert_security_row(conn, "security_log"))
            .await
            .unwrap();
        let rows = security_rows(&db).await;
        assert_eq!(rows, 1);
        assert!(audit_path(&path).exists());
        // No file was made under a name cut at `?` or `#`.
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);
    }

    proptest::proptest! {
        #[test]
        fn a_file_uri_names_the_path_it_was_made_of(path in "\\PC{0,40}") {
            let uri = file_uri(&path);
            let rest = uri.strip_prefix("file:").unwrap();
            proptest::prop_assert!(!rest.contains(['?', '#']));
            let back = percent_encoding::percent_decode_str(rest).decode_utf8().unwrap();
            proptest::prop_assert_eq!(back, path.as_str());
        }
    }
}
