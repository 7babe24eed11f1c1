//! The store the service keeps its data in, chosen by the database URL: an embedded SQLite
//! file (`sqlite://<path>`; the default is `sqlite://<state dir>/idreg.sqlite3`) or PostgreSQL
//! (`postgres://...`, `postgresql://...`). Either gives every storage port; nothing else in
//! the service knows which.

use anyhow::{bail, Context};
use domain::storage::StoragePorts;
use std::path::{Path, PathBuf};

/// Where the data is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreUrl {
    /// An embedded SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database (the URL as given).
    Postgres(String),
}

impl StoreUrl {
    /// Reads a database URL: `sqlite://<path>` (a relative path is relative to the working
    /// folder), `postgres://` or `postgresql://`. Anything else is refused, naming the forms.
    pub fn parse(url: &str) -> anyhow::Result<StoreUrl> {
        if let Some(path) = url.strip_prefix("sqlite://") {
            if path.is_empty() {
                bail!("a sqlite:// URL names a file: sqlite://<path>");
            }
            return Ok(StoreUrl::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(StoreUrl::Postgres(url.to_owned()));
        }
        bail!("the database URL must be sqlite://<path> or postgres://...")
    }

    /// The default: a file in the state folder.
    pub fn default_in(state_dir: &Path) -> String {
        format!("sqlite://{}", state_dir.join("idreg.sqlite3").display())
    }

    /// How the store is named to an operator (never a password).
    pub fn describe(&self) -> String {
        match self {
            StoreUrl::Sqlite(path) => format!("embedded SQLite file {}", path.display()),
            StoreUrl::Postgres(url) => {
                let host = url
                    .split_once('@')
                    .map_or(url.as_str(), |(_, rest)| rest)
                    .trim_start_matches("postgres://")
                    .trim_start_matches("postgresql://");
                format!("PostgreSQL at {host}")
            }
        }
    }
}

/// An opened, migrated store.
#[derive(Clone)]
pub enum Store {
    Postgres(adapters_postgres::Database),
    Sqlite(adapters_sqlite::Database),
}

impl Store {
    /// Opens the store `url` names, creating and migrating it when needed: a SQLite file (and
    /// its folder), or a PostgreSQL database (created on the server when missing).
    /// Answers the migrations applied (PostgreSQL; a SQLite file reports none).
    pub async fn open(url: &str, pool_size: usize) -> anyhow::Result<(Store, Vec<String>)> {
        Self::open_for(url, pool_size, 1).await
    }

    /// As [`Store::open`] for a process whose listeners run `threads` worker threads:
    /// `total` is the most connections it opens (PostgreSQL: split among the threads' pools
    /// and the shared one, `adapters_postgres::PoolSizes::split`; an embedded file: its
    /// connections).
    pub async fn open_for(
        url: &str,
        total: usize,
        threads: usize,
    ) -> anyhow::Result<(Store, Vec<String>)> {
        let pool_size = total;
        match StoreUrl::parse(url)? {
            StoreUrl::Sqlite(path) => {
                let db = adapters_sqlite::Database::open(&path, pool_size)
                    .context("opening the embedded store")?;
                Ok((Store::Sqlite(db), Vec::new()))
            }
            StoreUrl::Postgres(url) => {
                adapters_postgres::ensure_database_exists(&url)
                    .await
                    .context("creating the database")?;
                let applied = adapters_postgres::run_migrations(&url)
                    .await
                    .context("applying migrations")?;
                let sizes = adapters_postgres::PoolSizes::split(total, threads);
                if sizes.below_minimum(total, threads) {
                    tracing::warn!(
                        most = sizes.most(threads),
                        threads,
                        "IDREG_DB_POOL_SIZE is below two connections per worker thread and a quarter \
                         for background work: this process may open more; raise it, or lower IDREG_WORKERS"
                    );
                }
                tracing::debug!(
                    most = sizes.most(threads),
                    per_thread = sizes.per_thread,
                    shared = sizes.shared,
                    threads,
                    "store connections"
                );
                let db = adapters_postgres::Database::connect_sized(&url, sizes)?;
                db.ping().await.context("connecting to the database")?;
                Ok((Store::Postgres(db), applied))
            }
        }
    }

    /// Every storage port of the store.
    pub fn ports(&self) -> StoragePorts {
        match self {
            Store::Postgres(db) => StoragePorts::of(db.clone()),
            Store::Sqlite(db) => StoragePorts::of(db.clone()),
        }
    }
}

/// The tables in the order a copy writes them: each before the rows that name it.
pub const COPY_ORDER: [&str; 43] = [
    "key_fingerprints",
    "tenants",
    "permits",
    "grants",
    "client_credentials",
    "call_records",
    "subjects",
    "subject_identifiers",
    "customer_refs",
    "audit_log",
    "access_log",
    "security_log",
    "company_profiles",
    "company_documents",
    "paid_objects",
    "paid_call_budget",
    "person_profiles",
    "person_lookups",
    "event_counters",
    "events",
    "subscriptions",
    "monitoring_baselines",
    "sanctions_source_versions",
    "sanctions_entries",
    "sanctions_active_lists",
    "sanctions_import_failures",
    "sanctions_list_changes",
    "screening_policy_versions",
    "screening_override_versions",
    "screening_whitelist_entries",
    "screening_checks",
    "idempotency_keys",
    "webhook_endpoints",
    "webhook_deliveries",
    "portal_users",
    "portal_links",
    "portal_sessions",
    "oauth_clients",
    "oauth_authorizations",
    "oauth_connections",
    "assistant_conversations",
    "assistant_turns",
    "assistant_model_calls",
];

/// Copies an embedded store into an empty PostgreSQL database, every row of every table in
/// one transaction there (so an evaluation grows into a deployment without losing its tenants,
/// grants, subjects and events). Answers the rows copied per table.
pub async fn copy(from: &str, to: &str) -> anyhow::Result<serde_json::Value> {
    let (StoreUrl::Sqlite(_), StoreUrl::Postgres(_)) =
        (StoreUrl::parse(from)?, StoreUrl::parse(to)?)
    else {
        bail!("a copy goes from an embedded store into PostgreSQL: --from sqlite://... --to postgres://...");
    };
    let (Store::Sqlite(source), _) = Store::open(from, 1).await? else {
        unreachable!("parsed as sqlite above")
    };
    let (Store::Postgres(target), _) = Store::open(to, 2).await? else {
        unreachable!("parsed as postgres above")
    };
    let mut tables = source.tables().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    tables.sort();
    let mut known: Vec<&str> = COPY_ORDER.to_vec();
    known.sort_unstable();
    if tables != known {
        bail!("the source store's tables are not this build's: {tables:?}");
    }
    let mut data = Vec::with_capacity(COPY_ORDER.len());
    let mut counts = serde_json::Map::new();
    for table in COPY_ORDER {
        let rows = source
            .export_table(table)
            .await
            .map_err(|e| anyhow::anyhow!("reading {table}: {e}"))?;
        counts.insert(table.to_owned(), serde_json::json!(rows.len()));
        data.push((table.to_owned(), rows));
    }
    let written = target
        .import(&data)
        .await
        .map_err(|e| anyhow::anyhow!("writing into the target: {e}"))?;
    Ok(serde_json::json!({ "copied": written, "tables": counts }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_url_names_a_file_or_a_server() {
        assert_eq!(
            StoreUrl::parse("sqlite://.idreg/idreg.sqlite3").unwrap(),
            StoreUrl::Sqlite(PathBuf::from(".idreg/idreg.sqlite3"))
        );
        assert_eq!(
            StoreUrl::parse("sqlite:///var/lib/idreg/db").unwrap(),
            StoreUrl::Sqlite(PathBuf::from("/var/lib/idreg/db"))
        );
        assert!(matches!(
            StoreUrl::parse("postgres://u:secret@db:5432/idreg").unwrap(),
            StoreUrl::Postgres(_)
        ));
        for bad in ["sqlite://", "mysql://x", "idreg.db", ""] {
            assert!(StoreUrl::parse(bad).is_err(), "{bad}");
        }
        let described = StoreUrl::parse("postgres://u:secret@db:5432/idreg")
            .unwrap()
            .describe();
        assert_eq!(described, "PostgreSQL at db:5432/idreg");
        assert!(!described.contains("secret"));
        assert_eq!(
            StoreUrl::default_in(Path::new(".idreg")),
            "sqlite://.idreg/idreg.sqlite3"
        );
    }

    #[tokio::test]
    async fn an_embedded_store_opens_with_every_port() {
        let dir = std::env::temp_dir().join(format!("idreg-store-{}", ulid::Ulid::generate()));
        let url = format!("sqlite://{}", dir.join("nested/idreg.sqlite3").display());
        let (store, applied) = Store::open(&url, 2).await.unwrap();
        assert!(applied.is_empty());
        assert!(matches!(store, Store::Sqlite(_)));
        let tenant = domain::ids::TenantId::generate();
        let missing = store.ports().tenants.tenant(&tenant).await;
        assert_eq!(missing.unwrap_err(), domain::error::StoreError::NotFound);
        std::fs::remove_dir_all(dir).ok();
    }
}
