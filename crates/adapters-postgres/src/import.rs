//! Rows of another store (neutral JSON, as `adapters_sqlite::Database::export_table` gives
//! them) written into this one, for `idreg store copy`: all in one transaction, into an empty
//! store only, each value converted by the column's type here (times from integer
//! microseconds, lists and documents from their JSON text, bytes from hex, flags from 0/1).

use crate::convert::{backend, TxError};
use crate::Database;
use diesel::sql_types::{Jsonb, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::error::StoreError;
use serde_json::{Map, Value};

#[derive(QueryableByName)]
struct ColumnType {
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

impl Database {
    /// Writes `tables` (in the order given: parents before the rows that name them) into this
    /// store, in one transaction. Refused when the store already holds data.
    pub async fn import(&self, tables: &[(String, Vec<Value>)]) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let tables = tables.to_vec();
        let written = conn.transaction(async |conn| -> Result<u64, TxError> {
            let held: Count = diesel::sql_query(
                "SELECT (SELECT COUNT(*) FROM tenants) + (SELECT COUNT(*) FROM \
                 sanctions_source_versions) + (SELECT COUNT(*) FROM screening_policy_versions) AS n",
            )
            .get_result(conn)
            .await
            .map_err(backend)?;
            if held.n > 0 {
                return Err(TxError(StoreError::Backend(
                    "the target store already holds data: copy into an empty one".into(),
                )));
            }
            let mut written = 0u64;
            for (table, rows) in &tables {
                let types: Vec<ColumnType> = diesel::sql_query(
                    "SELECT column_name::text AS column_name, data_type::text AS data_type \
                     FROM information_schema.columns \
                     WHERE table_schema = 'public' AND table_name = $1",
                )
                .bind::<Text, _>(table)
                .load(conn)
                .await
                .map_err(backend)?;
                if types.is_empty() {
                    return Err(TxError(StoreError::Backend(format!("no table {table} here"))));
                }
                // The table name is one of this store's own, read back from its catalog.
                let statement = format!(
                    "INSERT INTO \"{table}\" SELECT * FROM jsonb_populate_record(NULL::\"{table}\", $1)"
                );
                for row in rows {
                    let row = convert(row, &types).map_err(TxError)?;
                    diesel::sql_query(&statement)
                        .bind::<Jsonb, _>(row)
                        .execute(conn)
                        .await
                        .map_err(backend)?;
                    written += 1;
                }
            }
            Ok(written)
        })
        .await?;
        Ok(written)
    }
}

/// A neutral row in the JSON form `jsonb_populate_record` reads into this table's types.
fn convert(row: &Value, types: &[ColumnType]) -> Result<Value, StoreError> {
    let bad = |column: &str| StoreError::Backend(format!("a value of {column} does not convert"));
    let source = row.as_object().ok_or_else(|| bad("a row"))?;
    let mut out = Map::new();
    for column in types {
        let name = column.column_name.as_str();
        let value = source.get(name).cloned().unwrap_or(Value::Null);
        let value = match (column.data_type.as_str(), value) {
            (_, Value::Null) => Value::Null,
            ("timestamp with time zone", Value::Number(n)) => {
                let micros = n.as_i64().ok_or_else(|| bad(name))?;
                let at =
                    chrono::DateTime::from_timestamp_micros(micros).ok_or_else(|| bad(name))?;
                Value::String(at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
            }
            ("ARRAY" | "jsonb", Value::String(text)) => {
                serde_json::from_str(&text).map_err(|_| bad(name))?
            }
            ("bytea", Value::String(hex)) => Value::String(format!("\\x{hex}")),
            ("boolean", Value::Number(n)) => Value::Bool(n.as_i64() == Some(1)),
            (_, value) => value,
        };
        out.insert(name.to_owned(), value);
    }
    Ok(Value::Object(out))
}
