//! Fresh embedded SQLite stores for tests, each in a folder of its own.

use diesel::sql_types::BigInt;
use diesel::{QueryableByName, SqliteConnection};
use std::path::{Path, PathBuf};

/// How a store opens its file, handed in by the store's tests (this crate knows no store).
#[derive(Clone, Copy)]
pub struct Opener {
    /// A connection made as the store makes its own (with the files it attaches).
    pub connect: fn(&Path) -> Result<SqliteConnection, String>,
    /// Every file the store keeps beside (and including) the one it is opened at.
    pub files: fn(&Path) -> Vec<PathBuf>,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A fresh SQLite store in a folder of its own, removed afterwards. The app (or an adapter)
/// creates and migrates the file on open.
pub struct SqliteFile {
    dir: PathBuf,
    pub path: PathBuf,
    opener: Opener,
}

impl SqliteFile {
    /// A path for a store that `opener` opens, in a fresh folder (nothing is created yet).
    pub fn new(opener: Opener) -> SqliteFile {
        let dir = std::env::temp_dir().join(format!("idreg-store-{}", ulid::Ulid::generate()));
        let path = dir.join("idreg.sqlite3");
        SqliteFile { dir, path, opener }
    }

    /// A connection of the test's own to the store, made as the store makes its own.
    pub fn connect(&self) -> SqliteConnection {
        (self.opener.connect)(&self.path).expect("opening the store")
    }

    /// How many rows of `table` meet `condition`.
    pub fn count(&self, table: &str, condition: &str) -> i64 {
        use diesel::RunQueryDsl;
        let n: Count = diesel::sql_query(format!(
            "SELECT COUNT(*) AS n FROM {table} WHERE {condition}"
        ))
        .get_result(&mut self.connect())
        .expect("count query");
        n.n
    }

    /// The rows of `table` meeting `condition`, each a JSON object of `columns`, times (the
    /// columns named in `times`) rendered as UTC text with microseconds.
    pub fn rows(
        &self,
        table: &str,
        columns: &[&str],
        times: &[&str],
        condition: &str,
    ) -> Vec<serde_json::Value> {
        use diesel::RunQueryDsl;
        #[derive(QueryableByName)]
        struct J {
            #[diesel(sql_type = diesel::sql_types::Text)]
            j: String,
        }
        let fields: Vec<String> = columns
            .iter()
            .map(|c| {
                if times.contains(c) {
                    format!(
                        "'{c}', strftime('%Y-%m-%dT%H:%M:%S', {c} / 1000000, 'unixepoch') \
                         || '.' || printf('%06d', {c} % 1000000)"
                    )
                } else {
                    format!("'{c}', {c}")
                }
            })
            .collect();
        let rows: Vec<J> = diesel::sql_query(format!(
            "SELECT json_object({}) AS j FROM {table} WHERE {condition}",
            fields.join(", ")
        ))
        .load(&mut self.connect())
        .expect("rows query");
        rows.into_iter()
            .map(|r| serde_json::from_str(&r.j).unwrap())
            .collect()
    }

    /// The rows of any query, each a JSON object of its columns (named through a temporary
    /// view, as SQLite has no `row_to_json`).
    pub fn query(&self, query: &str) -> Vec<serde_json::Value> {
        use diesel::connection::SimpleConnection;
        use diesel::RunQueryDsl;
        #[derive(QueryableByName)]
        struct Name {
            #[diesel(sql_type = diesel::sql_types::Text)]
            name: String,
        }
        #[derive(QueryableByName)]
        struct J {
            #[diesel(sql_type = diesel::sql_types::Text)]
            j: String,
        }
        let mut conn = self.connect();
        conn.batch_execute(&format!("CREATE TEMP VIEW test_query AS {query}"))
            .expect("the query is valid SQL");
        let names: Vec<Name> =
            diesel::sql_query("SELECT name FROM pragma_table_info('test_query') ORDER BY cid")
                .load(&mut conn)
                .expect("the query's columns");
        let fields: Vec<String> = names
            .iter()
            .map(|n| format!("'{0}', \"{0}\"", n.name))
            .collect();
        let rows: Vec<J> = diesel::sql_query(format!(
            "SELECT json_object({}) AS j FROM test_query",
            fields.join(", ")
        ))
        .load(&mut conn)
        .expect("rows query");
        rows.into_iter()
            .map(|r| serde_json::from_str(&r.j).unwrap())
            .collect()
    }

    /// The store's files and their write-ahead logs, bytes read as text.
    pub fn raw_text(&self) -> String {
        let mut text = String::new();
        for file in (self.opener.files)(&self.path) {
            for suffix in ["", "-wal"] {
                let mut name = file.clone().into_os_string();
                name.push(suffix);
                if let Ok(bytes) = std::fs::read(&name) {
                    text.push_str(&String::from_utf8_lossy(&bytes));
                }
            }
        }
        assert!(!text.is_empty(), "the store's file exists");
        text
    }
}

impl Drop for SqliteFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
