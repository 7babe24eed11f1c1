//! The store's rows as neutral JSON, for copying it into another store (`idreg store copy`):
//! each row a JSON object of its columns as SQLite holds them (times as integer microseconds,
//! dates, lists and documents as their text, bytes as lower-case hex).

use crate::convert::TxError;
use crate::Database;
use diesel::prelude::*;
use diesel::sql_types::Text;
use domain::error::StoreError;
use serde_json::Value;

impl Database {
    /// The tables of the data model, by name (the audit trail's among them).
    pub async fn tables(&self) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            #[derive(QueryableByName)]
            struct Name {
                #[diesel(sql_type = Text)]
                name: String,
            }
            // The store's file and the audit trail's (attached as `audit`).
            let names: Vec<Name> = diesel::sql_query(
                "SELECT name FROM (SELECT name, type FROM main.sqlite_schema \
                   UNION ALL SELECT name, type FROM audit.sqlite_schema) \
                 WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' AND name <> '__diesel_schema_migrations' \
                 ORDER BY name",
            )
            .load(conn)?;
            Ok(names.into_iter().map(|n| n.name).collect())
        })
        .await
    }

    /// Every row of `table` (one of [`Database::tables`]), in one snapshot.
    pub async fn export_table(&self, table: &str) -> Result<Vec<Value>, StoreError> {
        let table = table.to_owned();
        self.read(move |conn| {
            #[derive(QueryableByName)]
            struct Column {
                #[diesel(sql_type = Text)]
                name: String,
            }
            #[derive(QueryableByName)]
            struct Row {
                #[diesel(sql_type = Text)]
                j: String,
            }
            let columns: Vec<Column> =
                diesel::sql_query("SELECT name FROM pragma_table_info(?) ORDER BY cid")
                    .bind::<Text, _>(&table)
                    .load(conn)?;
            if columns.is_empty() {
                return Err(TxError(StoreError::NotFound));
            }
            let fields: Vec<String> = columns
                .iter()
                .map(|c| {
                    format!(
                        "'{0}', CASE typeof(\"{0}\") WHEN 'blob' THEN lower(hex(\"{0}\")) \
                         ELSE \"{0}\" END",
                        c.name
                    )
                })
                .collect();
            let rows: Vec<Row> = diesel::sql_query(format!(
                "SELECT json_object({}) AS j FROM \"{table}\"",
                fields.join(", ")
            ))
            .load(conn)?;
            rows.into_iter()
                .map(|r| {
                    serde_json::from_str(&r.j)
                        .map_err(|e| TxError(StoreError::Backend(e.to_string())))
                })
                .collect()
        })
        .await
    }
}
