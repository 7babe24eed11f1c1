//! The storage conformance suite on PostgreSQL: every check of `storage-conformance`, each on
//! a fresh database cloned from a template this crate's migrations built.

use async_trait::async_trait;
use serde_json::Value;
use storage_conformance::{Backing, Dialect, Stores};
use test_stores::postgres::{Template, TestDatabase};

/// This crate's schema.
const SCHEMA: Template = Template {
    migrations: || adapters_postgres::MIGRATIONS,
    folder: concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"),
};

/// Beneath the ports: the test's own connections to the database.
struct Beneath(TestDatabase);

#[async_trait]
impl Backing for Beneath {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    async fn rows(
        &self,
        table: &str,
        columns: &[&str],
        times: &[&str],
        condition: &str,
    ) -> Vec<Value> {
        let fields: Vec<String> = columns
            .iter()
            .map(|c| {
                if times.contains(c) {
                    format!(
                        "to_char({c} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') AS {c}"
                    )
                } else {
                    (*c).to_owned()
                }
            })
            .collect();
        self.0
            .rows(&format!(
                "SELECT {} FROM {table} WHERE {condition}",
                fields.join(", ")
            ))
            .await
    }

    async fn count(&self, table: &str, condition: &str) -> i64 {
        self.0.count(table, condition).await
    }

    async fn try_execute(&self, statement: &str) -> Result<usize, String> {
        use diesel_async::RunQueryDsl;
        let mut conn = self.0.connect().await;
        diesel::sql_query(statement)
            .execute(&mut conn)
            .await
            .map_err(|e| e.to_string())
    }
}

/// The PostgreSQL store on a fresh migrated database.
async fn stores() -> Stores {
    let db = TestDatabase::create(&SCHEMA).await;
    let database =
        adapters_postgres::Database::connect(&db.url, 4).expect("connecting to the test database");
    Stores::of(database, Beneath(db))
}

storage_conformance::all_checks!(stores);
