//! The connection pool, database creation and migrations.

use diesel_async::pooled_connection::deadpool::{Object, Pool, PoolError};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, PoolError as ManagerError, RecyclingMethod,
};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The SQL migrations of this crate's `migrations/`, compiled in.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error("invalid database url: {0}")]
    Url(String),
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    #[error("migration failed: {0}")]
    Migration(String),
    #[error("database error: {0}")]
    Query(String),
}

/// The PostgreSQL storage adapter, implementing every storage port.
///
/// Connections are pooled per runtime thread. actix-web runs each worker on its own
/// single-threaded Tokio runtime, and a diesel-async connection's driver task lives on the
/// runtime that established it: a pool shared by all workers hands a worker connections whose
/// I/O another worker drives, so every query pays two cross-thread wake-ups (and stalls while
/// that worker is busy). So a single-threaded runtime (an actix worker) gets its own pool,
/// created on first use on that thread and dropped with it; a multi-thread runtime (the main
/// one: the operator commands, background work, tests) shares one pool.
///
/// Checkouts do not verify the connection with a query (deadpool's `Fast` recycling): a
/// checkout must not cost a round trip. A connection that broke is discarded after the
/// query that found out.
#[derive(Clone)]
pub struct Database {
    inner: Arc<Inner>,
}

/// How many connections each pool may open: every worker thread's own pool, and the shared
/// pool of the multi-thread runtime (background work, operator commands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSizes {
    pub per_thread: usize,
    pub shared: usize,
}

impl PoolSizes {
    /// The fewest connections a worker thread's pool holds: a request's work and its
    /// audit rows' group commit may each hold one at the same moment.
    pub const MIN_PER_THREAD: usize = 2;

    /// `total` connections at most for a process whose pools are the shared one and
    /// `threads` worker threads' (its listeners' workers): a quarter (at least one) for the
    /// shared pool, the rest split evenly among the threads, each at least
    /// [`PoolSizes::MIN_PER_THREAD`]. The process opens at most [`PoolSizes::most`]
    /// connections, which is `total` unless `total` is below that minimum
    /// ([`PoolSizes::below_minimum`]).
    pub fn split(total: usize, threads: usize) -> PoolSizes {
        let total = total.max(1);
        let shared = (total / 4).max(1);
        let per_thread = (total.saturating_sub(shared) / threads.max(1)).max(Self::MIN_PER_THREAD);
        PoolSizes { per_thread, shared }
    }

    /// Whether `total` was too small for `threads` threads, so the process may open more.
    pub fn below_minimum(&self, total: usize, threads: usize) -> bool {
        self.most(threads) > total
    }

    /// The most connections the process may hold with `threads` worker threads.
    pub fn most(&self, threads: usize) -> usize {
        self.shared + self.per_thread * threads
    }
}

struct Inner {
    /// Tells this database's per-thread pools apart from another's in the same process.
    id: u64,
    url: String,
    pool_size: usize,
    shared: Pool<AsyncPgConnection>,
    /// Every worker thread's pool, for counting the connections ([`Database::connections`]).
    workers: std::sync::Mutex<Vec<Pool<AsyncPgConnection>>>,
    /// Statements run on every pool's connections ([`counting`]).
    statements: Arc<AtomicU64>,
}

thread_local! {
    /// The pools of the current thread when it runs a single-threaded runtime, by database.
    static THREAD_POOLS: RefCell<Vec<(u64, Pool<AsyncPgConnection>)>> = const { RefCell::new(Vec::new()) };
}

impl Database {
    /// Opens the pools: at most `pool_size` connections per worker thread, and as many for
    /// the shared pool of the multi-thread runtime. Connections open on first use.
    pub fn connect(url: &str, pool_size: usize) -> Result<Database, DatabaseError> {
        Self::connect_sized(
            url,
            PoolSizes {
                per_thread: pool_size,
                shared: pool_size,
            },
        )
    }

    /// Opens the pools with the sizes given (see [`PoolSizes::split`]).
    pub fn connect_sized(url: &str, sizes: PoolSizes) -> Result<Database, DatabaseError> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        if sizes.per_thread == 0 || sizes.shared == 0 {
            return Err(DatabaseError::Connect(
                "the pool size must be at least 1".into(),
            ));
        }
        let statements = Arc::new(AtomicU64::new(0));
        Ok(Database {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                url: url.to_owned(),
                pool_size: sizes.per_thread,
                shared: build_pool(url, sizes.shared, &statements)?,
                workers: std::sync::Mutex::new(Vec::new()),
                statements,
            }),
        })
    }

    /// Tells this database apart from others in the process (for per-thread state).
    pub(crate) fn id(&self) -> u64 {
        self.inner.id
    }

    /// Whether the caller runs on a single-threaded runtime (an actix worker), whose thread
    /// keeps its own pool and audit writer.
    pub(crate) fn on_worker_thread(&self) -> bool {
        tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread)
    }

    /// The pool for the runtime the caller runs on.
    fn pool(&self) -> Result<Pool<AsyncPgConnection>, domain::error::StoreError> {
        if !self.on_worker_thread() {
            return Ok(self.inner.shared.clone());
        }
        THREAD_POOLS.with(|pools| {
            let mut pools = pools.borrow_mut();
            if let Some((_, pool)) = pools.iter().find(|(id, _)| *id == self.inner.id) {
                return Ok(pool.clone());
            }
            let pool = build_pool(
                &self.inner.url,
                self.inner.pool_size,
                &self.inner.statements,
            )
            .map_err(|e| domain::error::StoreError::Backend(e.to_string()))?;
            pools.push((self.inner.id, pool.clone()));
            self.inner
                .workers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(pool.clone());
            Ok(pool)
        })
    }

    /// A connection from the caller's pool. When none can be had because the server cannot
    /// be reached (a new connection fails, or none frees up in time) the error is
    /// `Unavailable`. A pooled connection whose server went away is never handed out again
    /// (see [`build_pool`]), so once the server is back every checkout gets a fresh one.
    pub(crate) async fn conn(
        &self,
    ) -> Result<Object<AsyncPgConnection>, domain::error::StoreError> {
        self.pool()?.get().await.map_err(checkout_failed)
    }

    /// The connections this process holds, over the shared pool and every worker's.
    pub(crate) fn connections(&self) -> domain::health::ports::PoolUse {
        let workers = self.inner.workers.lock().unwrap_or_else(|e| e.into_inner());
        let mut total = domain::health::ports::PoolUse {
            statements: AtomicU64::load(&self.inner.statements, Ordering::Relaxed),
            ..Default::default()
        };
        for pool in std::iter::once(&self.inner.shared).chain(workers.iter()) {
            let s = pool.status();
            total.max += s.max_size as u64;
            total.open += s.size as u64;
            total.in_use += s.size.saturating_sub(s.available) as u64;
            total.waiting += s.waiting as u64;
        }
        total
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), DatabaseError> {
        let mut conn = self
            .conn()
            .await
            .map_err(|e| DatabaseError::Connect(e.to_string()))?;
        diesel::sql_query("SELECT 1")
            .execute(&mut conn)
            .await
            .map_err(|e| DatabaseError::Query(e.to_string()))?;
        Ok(())
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Pools this database left on the current thread go with it (other threads' pools go
        // when those threads end).
        let _ = THREAD_POOLS.try_with(|pools| {
            if let Ok(mut pools) = pools.try_borrow_mut() {
                pools.retain(|(id, _)| *id != self.id);
            }
        });
    }
}

/// Why a checkout failed, as a storage error: the server could not be reached (`Unavailable`)
/// or something else went wrong (`Backend`).
fn checkout_failed(e: PoolError) -> domain::error::StoreError {
    use domain::error::StoreError;
    match e {
        // No connection freed up and none could be opened in time.
        PoolError::Timeout(t) => StoreError::Unavailable(format!("pool: timed out ({t:?})")),
        PoolError::Backend(ManagerError::ConnectionError(e)) => {
            crate::convert::connection_failed(e)
        }
        PoolError::Backend(ManagerError::QueryError(e)) => crate::convert::backend(e),
        other => StoreError::Backend(format!("pool: {other}")),
    }
}

/// A pool whose connections are established by (and driven on) the runtime that first asks
/// for them, checked out without a verifying query.
///
/// Recovery after the server went away needs no query either: on every checkout deadpool
/// recycles the idle connection through diesel-async, which discards it when its transaction
/// manager is broken or its tokio-postgres client is closed (the driver task ends when the
/// server terminates the session or the socket closes), and opens a new one instead. A
/// connection that breaks while checked out fails its query (`Unavailable`) and is discarded
/// at its next checkout. `tests/storage_outage.rs` in the `idreg` crate restarts a server
/// under a running binary to prove it.
///
/// Each connection counts the statements it runs into `statements` ([`counting`]).
fn build_pool(
    url: &str,
    size: usize,
    statements: &Arc<AtomicU64>,
) -> Result<Pool<AsyncPgConnection>, DatabaseError> {
    let mut config = ManagerConfig::<AsyncPgConnection>::default();
    config.recycling_method = RecyclingMethod::Fast;
    let statements = Arc::clone(statements);
    config.custom_setup = Box::new(move |url| {
        let statements = Arc::clone(&statements);
        Box::pin(async move {
            let mut conn = AsyncPgConnection::establish(url).await?;
            conn.set_instrumentation(counting(statements));
            Ok(conn)
        })
    });
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(url, config);
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool::Runtime::Tokio1)
        .wait_timeout(Some(Duration::from_secs(10)))
        .create_timeout(Some(Duration::from_secs(10)))
        .build()
        .map_err(|e| DatabaseError::Connect(e.to_string()))
}

/// A connection's instrumentation that adds one to `statements` for each statement it
/// finishes (one round trip each, `BEGIN` and `COMMIT` included): one atomic addition, so the
/// count costs a request nothing it would notice.
fn counting(statements: Arc<AtomicU64>) -> impl diesel::connection::Instrumentation {
    move |event: diesel::connection::InstrumentationEvent<'_>| {
        if matches!(
            event,
            diesel::connection::InstrumentationEvent::FinishQuery { .. }
        ) {
            statements.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Splits `postgres://.../name?opts` into the URL of the `postgres` maintenance database and
/// the database name.
fn maintenance_url(url: &str) -> Result<(String, String), DatabaseError> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let slash = base
        .rfind('/')
        .filter(|i| *i > base.find("//").map_or(0, |j| j + 1))
        .ok_or_else(|| DatabaseError::Url("the URL names no database".into()))?;
    let name = &base[slash + 1..];
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(DatabaseError::Url(
            "database names may hold letters, digits, `_` and `-` only".into(),
        ));
    }
    let mut maintenance = format!("{}/postgres", &base[..slash]);
    if let Some(q) = query {
        maintenance.push('?');
        maintenance.push_str(q);
    }
    Ok((maintenance, name.to_owned()))
}

/// Creates the database named by `url` when it does not exist yet.
pub async fn ensure_database_exists(url: &str) -> Result<(), DatabaseError> {
    if AsyncPgConnection::establish(url).await.is_ok() {
        return Ok(());
    }
    let (maintenance, name) = maintenance_url(url)?;
    let mut conn = AsyncPgConnection::establish(&maintenance)
        .await
        .map_err(|e| DatabaseError::Connect(e.to_string()))?;
    // The name was checked to be [A-Za-z0-9_-]; quoting keeps `-` legal.
    match diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(&mut conn)
        .await
    {
        Ok(_) => Ok(()),
        // Someone else created it in the meantime.
        Err(e) if e.to_string().contains("already exists") => Ok(()),
        Err(e) => Err(DatabaseError::Query(e.to_string())),
    }
}

/// The advisory lock key migrations are applied under (`idreg` in ASCII, as an integer).
pub const MIGRATION_LOCK: i64 = 0x0069_6472_6567;

/// Applies pending migrations. Runs the harness on a blocking thread, as diesel's migration
/// harness is synchronous.
///
/// Replicas starting together against one database take turns: the migrating connection
/// holds a session-level advisory lock ([`MIGRATION_LOCK`]) until it is done, so the second
/// replica waits, then finds nothing pending, instead of racing on the same migration.
pub async fn run_migrations(url: &str) -> Result<Vec<String>, DatabaseError> {
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .map_err(|e| DatabaseError::Connect(e.to_string()))?;
    diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))
        .execute(&mut conn)
        .await
        .map_err(|e| DatabaseError::Migration(format!("taking the migration lock: {e}")))?;
    // The lock is the session's: it goes with the connection when the harness drops it.
    tokio::task::spawn_blocking(move || {
        let mut harness = diesel_async::AsyncMigrationHarness::new(conn);
        harness
            .run_pending_migrations(MIGRATIONS)
            .map(|versions| versions.iter().map(|v| v.to_string()).collect())
            .map_err(|e| DatabaseError::Migration(e.to_string()))
    })
    .await
    .map_err(|e| DatabaseError::Migration(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_is_split_among_the_threads_and_the_shared_pool() {
        for (total, threads) in [(16, 4), (16, 18), (24, 3), (100, 16), (1, 1), (3, 8)] {
            let sizes = PoolSizes::split(total, threads);
            assert!(sizes.per_thread >= 1 && sizes.shared >= 1);
            if total > threads {
                assert!(
                    sizes.most(threads) <= total,
                    "{total} over {threads}: {sizes:?}"
                );
            }
        }
        assert_eq!(
            PoolSizes::split(16, 4),
            PoolSizes {
                per_thread: 3,
                shared: 4
            }
        );
    }

    #[test]
    fn maintenance_url_swaps_the_database_name() {
        let (m, n) = maintenance_url("postgres://postgres@127.0.0.1:5432/idreg").unwrap();
        assert_eq!(m, "postgres://postgres@127.0.0.1:5432/postgres");
        assert_eq!(n, "idreg");
        let (m, _) = maintenance_url("postgres://u@h/db?sslmode=disable").unwrap();
        assert_eq!(m, "postgres://u@h/postgres?sslmode=disable");
        assert!(maintenance_url("postgres://u@h/db;drop").is_err());
        assert!(maintenance_url("postgres://u@h").is_err());
    }
}
