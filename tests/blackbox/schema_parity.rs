//! The two stores hold one data model: every table of the migrated PostgreSQL schema exists in
//! the SQLite store with the same columns (name, nullability), the same primary key and the
//! same unique indexes (their columns, in order), and the SQLite store has nothing more; and
//! the two seek rows the same ways (every index of one, unique or not, has one on the other
//! that begins with its columns). A migration added to one store and not the other fails
//! here.

use blackbox::db::{TestDatabase, SCHEMA};
use blackbox::store::{SqliteFile, SQLITE};
use diesel::RunQueryDsl;
use std::collections::{BTreeMap, BTreeSet};

/// What the comparison reads of one table.
#[derive(Debug, PartialEq, Eq, Default)]
struct Shape {
    /// Column name → NOT NULL.
    columns: BTreeMap<String, bool>,
    primary_key: Vec<String>,
    unique: BTreeSet<Vec<String>>,
}

async fn postgres_shapes(db: &TestDatabase) -> BTreeMap<String, Shape> {
    let mut shapes: BTreeMap<String, Shape> = BTreeMap::new();
    for row in db
        .rows(
            "SELECT table_name::text AS tbl, column_name::text AS col, is_nullable = 'NO' AS not_null \
             FROM information_schema.columns WHERE table_schema = 'public' \
             AND table_name <> '__diesel_schema_migrations'",
        )
        .await
    {
        shapes
            .entry(row["tbl"].as_str().unwrap().to_owned())
            .or_default()
            .columns
            .insert(
                row["col"].as_str().unwrap().to_owned(),
                row["not_null"].as_bool().unwrap(),
            );
    }
    for row in db
        .rows(
            "SELECT c.relname AS tbl, ix.indisprimary AS primary, \
               ARRAY(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord) \
                 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum \
                 ORDER BY k.ord) AS cols \
             FROM pg_index ix JOIN pg_class c ON c.oid = ix.indrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = 'public' AND ix.indisunique \
             AND c.relname <> '__diesel_schema_migrations'",
        )
        .await
    {
        let cols: Vec<String> = row["cols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let shape = shapes
            .entry(row["tbl"].as_str().unwrap().to_owned())
            .or_default();
        if row["primary"] == true {
            shape.primary_key = cols;
        } else {
            shape.unique.insert(cols);
        }
    }
    shapes
}

/// One column of one of SQLite's indexes (none: an index of expressions alone).
#[derive(diesel::QueryableByName)]
struct IndexColumn {
    #[diesel(sql_type = diesel::sql_types::Text)]
    t: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    index: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    c: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    partial: bool,
}

fn sqlite_shapes(file: &SqliteFile) -> BTreeMap<String, Shape> {
    #[derive(diesel::QueryableByName)]
    struct Column {
        #[diesel(sql_type = diesel::sql_types::Text)]
        t: String,
        #[diesel(sql_type = diesel::sql_types::Text)]
        c: String,
        #[diesel(sql_type = diesel::sql_types::Bool)]
        not_null: bool,
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pk: i32,
    }
    let mut conn = file.connect();
    let mut shapes: BTreeMap<String, Shape> = BTreeMap::new();
    let columns: Vec<Column> = diesel::sql_query(
        "SELECT m.name AS t, p.name AS c, (p.\"notnull\" OR p.pk > 0) AS not_null, p.pk AS pk \
         FROM (SELECT name, type FROM main.sqlite_schema UNION ALL \
         SELECT name, type FROM audit.sqlite_schema) m, pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
         AND m.name <> '__diesel_schema_migrations'",
    )
    .load(&mut conn)
    .expect("columns");
    let mut keys: BTreeMap<String, Vec<(i32, String)>> = BTreeMap::new();
    for column in columns {
        if column.pk > 0 {
            keys.entry(column.t.clone())
                .or_default()
                .push((column.pk, column.c.clone()));
        }
        shapes
            .entry(column.t)
            .or_default()
            .columns
            .insert(column.c, column.not_null);
    }
    for (table, mut key) in keys {
        key.sort();
        shapes.get_mut(&table).unwrap().primary_key = key.into_iter().map(|(_, c)| c).collect();
    }
    // Unique indexes other than the primary key (`origin` 'pk'), columns in index order; an
    // expression is no column (as on the PostgreSQL side), so an index on a constant (one
    // active row) reads as an index of no columns.
    let index_columns: Vec<IndexColumn> = diesel::sql_query(
        "SELECT m.name AS t, l.name AS \"index\", i.name AS c, l.partial AS partial \
         FROM (SELECT name, type FROM main.sqlite_schema UNION ALL \
         SELECT name, type FROM audit.sqlite_schema) m, pragma_index_list(m.name) l, pragma_index_info(l.name) i \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
         AND m.name <> '__diesel_schema_migrations' AND l.\"unique\" AND l.origin <> 'pk' \
         AND i.name IS NOT NULL ORDER BY m.name, l.name, i.seqno",
    )
    .load(&mut conn)
    .expect("indexes");
    let mut indexes: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for column in index_columns {
        indexes
            .entry((column.t, column.index))
            .or_default()
            .extend(column.c);
    }
    for ((table, _), cols) in indexes {
        shapes.get_mut(&table).unwrap().unique.insert(cols);
    }
    // Indexes whose every column is an expression have no row above.
    let constant: Vec<IndexColumn> = diesel::sql_query(
        "SELECT m.name AS t, l.name AS \"index\", NULL AS c, l.partial AS partial \
         FROM (SELECT name, type FROM main.sqlite_schema UNION ALL \
         SELECT name, type FROM audit.sqlite_schema) m, pragma_index_list(m.name) l \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND l.\"unique\" \
         AND NOT EXISTS (SELECT 1 FROM pragma_index_info(l.name) i WHERE i.name IS NOT NULL)",
    )
    .load(&mut conn)
    .expect("constant indexes");
    for index in constant {
        shapes.get_mut(&index.t).unwrap().unique.insert(Vec::new());
    }
    shapes
}

/// A fresh PostgreSQL database and a fresh SQLite file, both migrated.
async fn both_migrated() -> (TestDatabase, SqliteFile) {
    let db = TestDatabase::create(&SCHEMA).await;
    let file = SqliteFile::new(SQLITE);
    adapters_sqlite::Database::open(&file.path, 1).expect("opening the store");
    (db, file)
}

#[tokio::test(flavor = "multi_thread")]
async fn both_stores_hold_one_data_model() {
    let (db, file) = both_migrated().await;
    let postgres = postgres_shapes(&db).await;
    let sqlite = sqlite_shapes(&file);
    assert_eq!(
        postgres.keys().collect::<Vec<_>>(),
        sqlite.keys().collect::<Vec<_>>(),
        "the same tables"
    );
    for (table, shape) in &postgres {
        assert_eq!(
            &sqlite[table], shape,
            "`{table}` differs between the stores"
        );
    }
}

/// One index of a store, unique or not: its table, its columns in order (an expression is
/// no column), and whether it holds only the rows its `WHERE` names.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Index {
    table: String,
    columns: Vec<String>,
    partial: bool,
}

impl Index {
    /// Whether `other` seeks what this one seeks: same table, its columns beginning with
    /// this one's, and not partial unless this one is (a partial index serves only the
    /// queries that name its condition).
    fn served_by(&self, other: &Index) -> bool {
        self.table == other.table
            && other.columns.starts_with(&self.columns)
            && (self.partial || !other.partial)
    }
}

impl std::fmt::Display for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.table, self.columns.join(", "))?;
        if self.partial {
            f.write_str(" WHERE ..")?;
        }
        Ok(())
    }
}

async fn postgres_indexes(db: &TestDatabase) -> BTreeSet<Index> {
    db.rows(
        "SELECT c.relname AS tbl, ix.indpred IS NOT NULL AS partial, \
           ARRAY(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord) \
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum \
             ORDER BY k.ord) AS cols \
         FROM pg_index ix JOIN pg_class c ON c.oid = ix.indrelid \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relname <> '__diesel_schema_migrations'",
    )
    .await
    .into_iter()
    .map(|row| Index {
        table: row["tbl"].as_str().unwrap().to_owned(),
        columns: row["cols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect(),
        partial: row["partial"] == true,
    })
    .collect()
}

fn sqlite_indexes(file: &SqliteFile) -> BTreeSet<Index> {
    let mut conn = file.connect();
    let rows: Vec<IndexColumn> = diesel::sql_query(
        "SELECT m.name AS t, l.name AS \"index\", i.name AS c, l.partial AS partial \
         FROM (SELECT name, type FROM main.sqlite_schema UNION ALL \
         SELECT name, type FROM audit.sqlite_schema) m, pragma_index_list(m.name) l \
         LEFT JOIN pragma_index_info(l.name) i \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
         AND m.name <> '__diesel_schema_migrations' ORDER BY m.name, l.name, i.seqno",
    )
    .load(&mut conn)
    .expect("indexes");
    let mut indexes: BTreeMap<(String, String), Index> = BTreeMap::new();
    for row in rows {
        let index = indexes
            .entry((row.t.clone(), row.index))
            .or_insert_with(|| Index {
                table: row.t,
                columns: Vec::new(),
                partial: row.partial,
            });
        index.columns.extend(row.c);
    }
    let mut indexes: BTreeSet<Index> = indexes.into_values().collect();
    // Every table is sought by its primary key, an `INTEGER PRIMARY KEY` too (the table's row
    // id, with no index of its own).
    for (table, shape) in sqlite_shapes(file) {
        if !shape.primary_key.is_empty() {
            indexes.insert(Index {
                table,
                columns: shape.primary_key,
                partial: false,
            });
        }
    }
    indexes
}

/// The stores seek rows the same ways: every index of one (its table and leading columns)
/// has an index on the other store beginning with the same columns. A lookup indexed on one
/// store alone is a scan on the other, which grows with the tenant (a subscription sought by
/// its subject walked a tenant's 10,000 subscriptions on PostgreSQL, 9 ms a read, where
/// SQLite sought it).
#[tokio::test(flavor = "multi_thread")]
async fn both_stores_seek_rows_the_same_ways() {
    let (db, file) = both_migrated().await;
    let postgres = postgres_indexes(&db).await;
    let sqlite = sqlite_indexes(&file);
    let missing = |of: &BTreeSet<Index>, on: &BTreeSet<Index>| {
        of.iter()
            .filter(|index| !on.iter().any(|other| index.served_by(other)))
            .map(Index::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        missing(&sqlite, &postgres),
        Vec::<String>::new(),
        "indexed on SQLite, not on PostgreSQL"
    );
    assert_eq!(
        missing(&postgres, &sqlite),
        Vec::<String>::new(),
        "indexed on PostgreSQL, not on SQLite"
    );
}
