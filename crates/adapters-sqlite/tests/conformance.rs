//! The storage conformance suite on the embedded store: every check of
//! `storage-conformance`, the very checks PostgreSQL passes, each on a fresh file.

use async_trait::async_trait;
use serde_json::Value;
use storage_conformance::{Backing, Dialect, Stores};
use test_stores::sqlite::{Opener, SqliteFile};

/// How this store opens its file, and the files it keeps.
const OPENER: Opener = Opener {
    connect: adapters_sqlite::connect,
    files: |path| vec![path.to_owned(), adapters_sqlite::audit_path(path)],
};

/// Beneath the ports: the test's own connections to the file.
struct Beneath(SqliteFile);

#[async_trait]
impl Backing for Beneath {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    async fn rows(
        &self,
        table: &str,
        columns: &[&str],
        times: &[&str],
        condition: &str,
    ) -> Vec<Value> {
        self.0.rows(table, columns, times, condition)
    }

    async fn count(&self, table: &str, condition: &str) -> i64 {
        self.0.count(table, condition)
    }

    async fn try_execute(&self, statement: &str) -> Result<usize, String> {
        use diesel::RunQueryDsl;
        diesel::sql_query(statement)
            .execute(&mut self.0.connect())
            .map_err(|e| e.to_string())
    }
}

/// The embedded store on a fresh file.
async fn stores() -> Stores {
    let file = SqliteFile::new(OPENER);
    let database = adapters_sqlite::Database::open(&file.path, 4).expect("opening the store");
    Stores::of(database, Beneath(file))
}

storage_conformance::all_checks!(stores);
