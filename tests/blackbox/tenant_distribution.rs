//! What distributing the schema by tenant (Citus; `docs/scale-out.md`) needs of it, read from
//! the migrated catalog of a fresh database, so the plan cannot rot:
//!
//! - every table is placed: distributed by `tenant_id` (it has the column), a reference table
//!   (global data every node reads: the sanctions lists, the screening policies, and the
//!   credential directory that finds a client's tenant), or distributed on its own key (the
//!   security log, which has no tenant);
//! - every primary key and unique index of a distributed tenant table leads with `tenant_id`;
//! - every foreign key between tenant tables carries `tenant_id` on both sides, at the same
//!   place;
//! - no foreign key points from a reference table into a tenant table, except those the plan
//!   drops at distribution time (named below, with the rule that replaces them).

use blackbox::db::{TestDatabase, SCHEMA};
use serde_json::Value;
use std::collections::BTreeSet;

/// Global tables every node holds a copy of (Citus reference tables).
const REFERENCE: [&str; 9] = [
    "client_credentials",
    "key_fingerprints",
    "oauth_clients",
    "sanctions_active_lists",
    "sanctions_entries",
    "sanctions_import_failures",
    "sanctions_list_changes",
    "sanctions_source_versions",
    "screening_policy_versions",
];

/// Tables with no tenant, distributed on their own key in a colocation group of their own.
const OWN_KEY: [(&str, &str); 2] = [
    ("security_log", "event_id"),
    ("oauth_authorizations", "request_digest"),
];

/// Tables outside the data model.
const TOOLING: [&str; 1] = ["__diesel_schema_migrations"];

/// Foreign keys from a reference table into a tenant table, which Citus does not support: the
/// plan drops them when it distributes and keeps the rule in the application. The credential
/// directory names its grant; the adapter writes both in one transaction (`insert_grant`,
/// `rotate_secret`), and a grant is never deleted, only revoked.
const DROPPED_AT_DISTRIBUTION: [(&str, &str); 1] = [("client_credentials", "grants")];

fn names(rows: &[Value], key: &str) -> BTreeSet<String> {
    rows.iter()
        .map(|r| r[key].as_str().unwrap().to_owned())
        .collect()
}

fn columns(row: &Value, key: &str) -> Vec<String> {
    row[key]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| c.as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_schema_distributes_by_tenant() {
    let db = TestDatabase::create(&SCHEMA).await;

    let tables = names(
        &db.rows("SELECT tablename AS table_name FROM pg_tables WHERE schemaname = 'public'")
            .await,
        "table_name",
    );
    let tenant_tables = names(
        &db.rows(
            "SELECT c.relname AS table_name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' \
             WHERE n.nspname = 'public' AND c.relkind = 'r'",
        )
        .await,
        "table_name",
    );
    let reference: BTreeSet<String> = REFERENCE.iter().map(|s| s.to_string()).collect();
    let distributed: BTreeSet<String> = tenant_tables.difference(&reference).cloned().collect();
    assert!(distributed.contains("tenants") && distributed.contains("events"));

    // Every table is placed, once.
    for table in &tables {
        let placed = [
            distributed.contains(table),
            reference.contains(table),
            OWN_KEY.iter().any(|(t, _)| t == table),
            TOOLING.contains(&table.as_str()),
        ];
        assert_eq!(
            placed.iter().filter(|p| **p).count(),
            1,
            "`{table}` must be placed in docs/scale-out.md and here: distributed by tenant_id \
             (give it the column), a reference table, or distributed on its own key"
        );
    }
    for listed in REFERENCE
        .iter()
        .chain(OWN_KEY.iter().map(|(t, _)| t))
        .chain(TOOLING.iter())
    {
        assert!(
            tables.contains(*listed),
            "`{listed}` is placed but does not exist"
        );
    }

    // Keys: the primary key and every unique index of a tenant table lead with tenant_id; a
    // table on its own key has it as its primary key.
    let keys = db
        .rows(
            "SELECT c.relname AS table_name, i.relname AS index, ix.indisprimary AS primary, \
               ARRAY(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord) \
                 LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum \
                 ORDER BY k.ord) AS columns \
             FROM pg_index ix JOIN pg_class c ON c.oid = ix.indrelid \
             JOIN pg_class i ON i.oid = ix.indexrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = 'public' AND ix.indisunique",
        )
        .await;
    for table in &distributed {
        let of_table: Vec<&Value> = keys
            .iter()
            .filter(|k| k["table_name"] == table.as_str())
            .collect();
        assert!(
            of_table.iter().any(|k| k["primary"] == true),
            "`{table}` has no primary key"
        );
        for key in of_table {
            let cols = columns(key, "columns");
            assert_eq!(
                cols.first().map(String::as_str),
                Some("tenant_id"),
                "`{}` on `{table}` must lead with tenant_id: {cols:?}",
                key["index"]
            );
        }
    }
    for (table, column) in OWN_KEY {
        let primary = keys
            .iter()
            .find(|k| k["table_name"] == table && k["primary"] == true)
            .unwrap_or_else(|| panic!("`{table}` has no primary key"));
        assert_eq!(columns(primary, "columns"), [column]);
    }

    // Foreign keys.
    let foreign = db
        .rows(
            "SELECT conrelid::regclass::text AS from, confrelid::regclass::text AS to, \
               ARRAY(SELECT a.attname FROM unnest(conkey) WITH ORDINALITY k(attnum, ord) \
                 JOIN pg_attribute a ON a.attrelid = conrelid AND a.attnum = k.attnum \
                 ORDER BY k.ord) AS from_columns, \
               ARRAY(SELECT a.attname FROM unnest(confkey) WITH ORDINALITY k(attnum, ord) \
                 JOIN pg_attribute a ON a.attrelid = confrelid AND a.attnum = k.attnum \
                 ORDER BY k.ord) AS to_columns \
             FROM pg_constraint WHERE contype = 'f'",
        )
        .await;
    assert!(!foreign.is_empty());
    let mut dropped = Vec::new();
    for fk in &foreign {
        let (from, to) = (fk["from"].as_str().unwrap(), fk["to"].as_str().unwrap());
        let (from_cols, to_cols) = (columns(fk, "from_columns"), columns(fk, "to_columns"));
        if distributed.contains(from) && distributed.contains(to) {
            let at = from_cols.iter().position(|c| c == "tenant_id");
            assert!(
                at.is_some() && at == to_cols.iter().position(|c| c == "tenant_id"),
                "{from} → {to} must carry tenant_id on both sides at the same place: \
                 {from_cols:?} → {to_cols:?}"
            );
        } else if distributed.contains(to) {
            // From a reference table (or anything not distributed) into a tenant table.
            assert!(
                DROPPED_AT_DISTRIBUTION.contains(&(from, to)),
                "{from} → {to}: Citus supports no foreign key from a reference table into a \
                 distributed one"
            );
            dropped.push((from.to_owned(), to.to_owned()));
        }
        // Tenant table → reference table, and reference → reference: supported as they are.
    }
    let expected: Vec<(String, String)> = DROPPED_AT_DISTRIBUTION
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    assert_eq!(
        dropped, expected,
        "the plan names exactly the keys it drops"
    );
}
