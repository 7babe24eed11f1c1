//! Fresh PostgreSQL databases for tests, cloned from a migrated template.

use diesel::sql_types::{BigInt, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness};
use std::path::Path;
use std::sync::Mutex;

/// The schema a test database starts with: a store's migrations, and the folder they were
/// embedded from (its files name the template, so a changed migration gets a new one).
pub struct Template {
    /// The migrations (`embed_migrations!`'s constant, handed out afresh).
    pub migrations: fn() -> EmbeddedMigrations,
    /// The folder `migrations` were embedded from.
    pub folder: &'static str,
}

/// The server tests use; any database on it works as the maintenance connection.
pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

fn url_for(database: &str) -> String {
    let server = server_url();
    let base = server.rsplit_once('/').map(|(b, _)| b).unwrap_or(&server);
    format!("{base}/{database}")
}

/// A digest of the migrations (each file's path within the folder and its bytes), so a
/// changed migration set gets a new template and the same set shares one, wherever its
/// checkout lives: two checkouts of one commit testing against one server at once use the
/// same template.
fn migrations_digest(folder: &str) -> String {
    let dir = Path::new(folder);
    let mut entries: Vec<_> = walk(dir);
    entries.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in entries {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let within = path.strip_prefix(dir).unwrap_or(&path).to_owned();
        for b in within.to_string_lossy().bytes().chain(bytes) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(read) = std::fs::read_dir(dir) {
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    #[allow(dead_code)] // only counted
    datname: String,
}

/// The templates this process made sure of.
static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

async fn maintenance() -> AsyncPgConnection {
    AsyncPgConnection::establish(&server_url())
        .await
        .expect("connecting to the test PostgreSQL (is it running? see README)")
}

/// Creates (once per migration set, under a lock shared by all test processes) the template,
/// and answers its name.
async fn template(schema: &Template) -> String {
    let name = format!("idreg_tpl_{}", migrations_digest(schema.folder));
    if BUILT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&name)
    {
        return name;
    }
    let mut conn = maintenance().await;
    diesel::sql_query("SELECT pg_advisory_lock(727272)")
        .execute(&mut conn)
        .await
        .unwrap();
    let exists: Vec<Name> = diesel::sql_query("SELECT datname FROM pg_database WHERE datname = $1")
        .bind::<Text, _>(&name)
        .load(&mut conn)
        .await
        .unwrap();
    if exists.is_empty() {
        let building = format!("{name}_building");
        let _ = diesel::sql_query(format!(
            "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
        ))
        .execute(&mut conn)
        .await;
        diesel::sql_query(format!("CREATE DATABASE \"{building}\""))
            .execute(&mut conn)
            .await
            .unwrap();
        migrate(&url_for(&building), (schema.migrations)()).await;
        diesel::sql_query(format!(
            "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
        ))
        .execute(&mut conn)
        .await
        .unwrap();
        // When it was built: another migration set's run sweeps it only a day later.
        diesel::sql_query(format!(
            "COMMENT ON DATABASE \"{name}\" IS '{}'",
            ulid::Ulid::generate()
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    sweep_leftovers(&mut conn, &name).await;
    diesel::sql_query("SELECT pg_advisory_unlock(727272)")
        .execute(&mut conn)
        .await
        .unwrap();
    BUILT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(name.clone());
    name
}

/// Applies `migrations` to the database at `url` (diesel's harness is synchronous).
async fn migrate(url: &str, migrations: EmbeddedMigrations) {
    let conn = AsyncPgConnection::establish(url)
        .await
        .expect("connecting to the template being built");
    tokio::task::spawn_blocking(move || {
        diesel_async::AsyncMigrationHarness::new(conn)
            .run_pending_migrations(migrations)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
    .await
    .expect("the migrating thread")
    .expect("migrating the template");
}

/// Drops test databases of crashed runs (their ULID says they are over an hour old) and
/// templates of other migration sets built over a day ago (their comment's ULID says when;
/// a run of another branch on the same server may still be cloning a younger one).
async fn sweep_leftovers(conn: &mut AsyncPgConnection, current: &str) {
    #[derive(QueryableByName)]
    struct Leftover {
        #[diesel(sql_type = Text)]
        datname: String,
        #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
        built: Option<String>,
    }
    let names: Vec<Leftover> = diesel::sql_query(
        "SELECT datname, shobj_description(oid, 'pg_database') AS built \
         FROM pg_database WHERE datname LIKE 'idreg_t%'",
    )
    .load(conn)
    .await
    .unwrap_or_default();
    let now = ulid::Ulid::generate().timestamp_ms();
    let older_than = |id: &str, ms: u64| {
        ulid::Ulid::from_string(&id.trim().to_ascii_uppercase())
            .map(|u| now.saturating_sub(u.timestamp_ms()) > ms)
    };
    for Leftover { datname, built } in names {
        let stale = if let Some(id) = datname.strip_prefix("idreg_t_") {
            older_than(id, 3_600_000).unwrap_or(false)
        } else if datname.starts_with("idreg_tpl_") && datname != current {
            // One without a readable date was built before templates carried one.
            built.is_none_or(|b| older_than(&b, 86_400_000).unwrap_or(true))
        } else {
            false
        };
        if stale {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS \"{datname}\" WITH (FORCE)"
            ))
            .execute(conn)
            .await;
        }
    }
}

/// One test's database; dropped with it.
pub struct TestDatabase {
    pub name: String,
    pub url: String,
}

impl TestDatabase {
    /// A fresh database with `schema`'s migrations applied.
    pub async fn create(schema: &Template) -> TestDatabase {
        let template = template(schema).await;
        let name = format!(
            "idreg_t_{}",
            ulid::Ulid::generate().to_string().to_ascii_lowercase()
        );
        let mut conn = maintenance().await;
        let mut attempt = 0;
        loop {
            // Concurrent clones of one template can collide; retry briefly.
            match diesel::sql_query(format!(
                "CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""
            ))
            .execute(&mut conn)
            .await
            {
                Ok(_) => break,
                Err(e) if attempt < 20 => {
                    attempt += 1;
                    let _ = e;
                    tokio::time::sleep(std::time::Duration::from_millis(100 * attempt)).await;
                }
                Err(e) => panic!("creating the test database: {e}"),
            }
        }
        TestDatabase {
            url: url_for(&name),
            name,
        }
    }

    /// A database with no schema at all (no migration applied), dropped with it.
    pub async fn create_empty() -> TestDatabase {
        let name = format!(
            "idreg_t_{}",
            ulid::Ulid::generate().to_string().to_ascii_lowercase()
        );
        let mut conn = maintenance().await;
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .await
            .expect("creating an empty test database");
        TestDatabase {
            url: url_for(&name),
            name,
        }
    }

    pub async fn connect(&self) -> AsyncPgConnection {
        AsyncPgConnection::establish(&self.url)
            .await
            .expect("connecting to the test database")
    }

    /// `SELECT count(*) FROM <table> WHERE <condition>` (the condition is test-written SQL).
    pub async fn count(&self, table: &str, condition: &str) -> i64 {
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = self.connect().await;
        let rows: Vec<Count> = diesel::sql_query(format!(
            "SELECT count(*) AS n FROM {table} WHERE {condition}"
        ))
        .load(&mut conn)
        .await
        .expect("count query");
        rows[0].n
    }

    /// Runs a test-written statement (to set up a state no route creates yet).
    pub async fn execute(&self, statement: &str) -> usize {
        let mut conn = self.connect().await;
        diesel::sql_query(statement)
            .execute(&mut conn)
            .await
            .expect("test statement")
    }

    /// The rows of a query, each as a JSON object (`SELECT row_to_json(t) FROM (...) t`).
    pub async fn rows(&self, query: &str) -> Vec<serde_json::Value> {
        #[derive(QueryableByName)]
        struct Row {
            #[diesel(sql_type = Text)]
            j: String,
        }
        let mut conn = self.connect().await;
        let rows: Vec<Row> =
            diesel::sql_query(format!("SELECT row_to_json(t)::text AS j FROM ({query}) t"))
                .load(&mut conn)
                .await
                .expect("rows query");
        rows.into_iter()
            .map(|r| serde_json::from_str(&r.j).unwrap())
            .collect()
    }

    /// Refuses (or allows again) new connections to this database; refusing also ends the
    /// sessions open on it, so the app finds its storage gone.
    pub async fn refuse_connections(&self, refuse: bool) {
        allow_connections(&self.name, !refuse).await;
    }

    /// A plain-text dump of every table (for scans for raw personal numbers).
    pub async fn dump_text(&self) -> String {
        let output = tokio::process::Command::new("pg_dump")
            .arg("--data-only")
            .arg(&self.url)
            .output()
            .await
            .expect("running pg_dump");
        assert!(
            output.status.success(),
            "pg_dump failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

/// Allows or refuses connections to `database`; refusing ends its open sessions.
pub async fn allow_connections(database: &str, allow: bool) {
    let mut conn = maintenance().await;
    diesel::sql_query(format!(
        "ALTER DATABASE \"{database}\" ALLOW_CONNECTIONS {allow}"
    ))
    .execute(&mut conn)
    .await
    .expect("altering the test database");
    if !allow {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
        ))
        .execute(&mut conn)
        .await
        .expect("ending the test database's sessions");
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs outside any runtime guarantee: use a thread with its own runtime.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            if let Ok(rt) = rt {
                rt.block_on(async {
                    if let Ok(mut conn) = AsyncPgConnection::establish(&server_url()).await {
                        let _ = diesel::sql_query(format!(
                            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                        ))
                        .execute(&mut conn)
                        .await;
                    }
                });
            }
        })
        .join();
    }
}
