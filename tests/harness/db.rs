//! Fresh PostgreSQL databases with the service's schema (`test-stores` clones them from a
//! template migrated once per migration set).

pub use test_stores::postgres::{allow_connections, server_url, Template, TestDatabase};

/// The service's PostgreSQL schema: `adapters-postgres`' migrations.
pub const SCHEMA: Template = Template {
    migrations: || adapters_postgres::MIGRATIONS,
    folder: concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/adapters-postgres/migrations"
    ),
};
