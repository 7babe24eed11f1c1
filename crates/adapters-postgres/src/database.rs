//! The connection pool, database creation and migrations.

use diesel::ConnectionError;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::time::Duration;

/// The SQL migrations of `migrations/`, compiled in.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

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

/// The PostgreSQL storage adapter: one pool, implementing every storage port.
#[derive(Clone)]
pub struct Database {
    pub(crate) pool: Pool<AsyncPgConnection>,
}

impl Database {
    /// Opens a pool of at most `max_size` connections.
    ///
    /// Must be called from within the process's main multi-thread Tokio runtime: each
    /// connection's driver task is spawned there. actix-web runs every worker on its own
    /// single-threaded runtime; a connection whose driver lived on one worker's runtime would
    /// stall while that worker is busy and break when it stops, and the pool hands
    /// connections to every worker.
    pub fn connect(url: &str, max_size: usize) -> Result<Database, DatabaseError> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| DatabaseError::Connect("no Tokio runtime to run connections on".into()))?;
        let mut config = ManagerConfig::<AsyncPgConnection>::default();
        config.custom_setup = Box::new(move |url: &str| {
            let url = url.to_owned();
            let runtime = runtime.clone();
            Box::pin(async move {
                runtime
                    .spawn(async move { AsyncPgConnection::establish(&url).await })
                    .await
                    .map_err(|e| ConnectionError::BadConnection(e.to_string()))?
            })
        });
        let manager =
            AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(url, config);
        let pool = Pool::builder(manager)
            .max_size(max_size)
            .runtime(deadpool::Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| DatabaseError::Connect(e.to_string()))?;
        Ok(Database { pool })
    }

    pub(crate) async fn conn(
        &self,
    ) -> Result<Object<AsyncPgConnection>, domain::ports::StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| domain::ports::StoreError::Backend(format!("pool: {e}")))
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), DatabaseError> {
        let mut conn = self
            .pool
            .get()
            .await
            .map_err(|e| DatabaseError::Connect(e.to_string()))?;
        diesel::sql_query("SELECT 1")
            .execute(&mut conn)
            .await
            .map_err(|e| DatabaseError::Query(e.to_string()))?;
        Ok(())
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

/// Applies pending migrations. Runs the harness on a blocking thread, as diesel's migration
/// harness is synchronous.
pub async fn run_migrations(url: &str) -> Result<Vec<String>, DatabaseError> {
    let conn = AsyncPgConnection::establish(url)
        .await
        .map_err(|e| DatabaseError::Connect(e.to_string()))?;
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
