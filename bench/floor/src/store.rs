//! The floor's tables, made and seeded on first start, and how it reads and writes them.
//!
//! Every read is by primary key; each log table has only its identity key (the cheapest
//! durable append). Seeded: 1,000 grants over 10 tenants (grant 1 belongs to tenant 1, is
//! live and holds `kyb:read`; every seventh is revoked), and 10,000 cached company documents
//! of about 1.5 KB for each of two tenants, with the synthetic organisation numbers
//! [`FIRST_ORGNR`] onwards.

use diesel::deserialize::{FromSql, FromSqlRow};
use diesel::pg::{Pg, PgValue};
use diesel::sql_types::Jsonb;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, SimpleAsyncConnection as _};

pub type PgPool = Pool<AsyncPgConnection>;

/// The first seeded organisation number; [`COMPANIES`] follow it.
pub const FIRST_ORGNR: u64 = 5_590_000_000;
pub const COMPANIES: u64 = 10_000;

diesel::table! {
    grants (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        scopes -> Text,
        revoked_at -> Nullable<Timestamptz>,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    cached_companies (tenant_id, orgnr) {
        tenant_id -> BigInt,
        orgnr -> Text,
        doc -> Jsonb,
    }
}

diesel::table! {
    audit_rows (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        grant_id -> BigInt,
        action -> Text,
        subject -> Text,
    }
}

diesel::table! {
    access_rows (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        grant_id -> BigInt,
        method -> Text,
        route -> Text,
        status -> SmallInt,
    }
}

/// A `jsonb` column's text, passed through without being parsed.
#[derive(Debug, FromSqlRow)]
pub struct RawJson(pub Vec<u8>);

impl FromSql<Jsonb, Pg> for RawJson {
    fn from_sql(value: PgValue<'_>) -> diesel::deserialize::Result<Self> {
        // The binary form of jsonb is a version byte (1) and the document's text.
        match value.as_bytes().split_first() {
            Some((1, text)) => Ok(RawJson(text.to_vec())),
            _ => Err("not a version 1 jsonb value".into()),
        }
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS grants (
    id bigint PRIMARY KEY,
    tenant_id bigint NOT NULL,
    scopes text NOT NULL,
    revoked_at timestamptz,
    expires_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS cached_companies (
    tenant_id bigint NOT NULL,
    orgnr text NOT NULL,
    doc jsonb NOT NULL,
    PRIMARY KEY (tenant_id, orgnr)
);
CREATE TABLE IF NOT EXISTS audit_rows (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id bigint NOT NULL,
    grant_id bigint NOT NULL,
    action text NOT NULL,
    subject text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS access_rows (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id bigint NOT NULL,
    grant_id bigint NOT NULL,
    method text NOT NULL,
    route text NOT NULL,
    status smallint NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
";

/// Synthetic companies: a name, a form, addresses, an industry code, officers' roles and a
/// description, about 1.5 KB of JSON each.
fn seed() -> String {
    format!(
        "
INSERT INTO grants (id, tenant_id, scopes, revoked_at, expires_at)
SELECT g, 1 + (g - 1) % 10,
       CASE WHEN g % 3 = 0 THEN 'events:read' ELSE 'kyb:read events:read' END,
       CASE WHEN g % 7 = 0 THEN now() - interval '1 day' END,
       now() + interval '1 year'
FROM generate_series(1, 1000) AS g;
INSERT INTO cached_companies (tenant_id, orgnr, doc)
SELECT t, ({FIRST_ORGNR} + i)::text, jsonb_build_object(
    'id', ({FIRST_ORGNR} + i)::text,
    'country', 'SE',
    'name', 'Golvbolaget Referens ' || i || ' AB',
    'legal_form', jsonb_build_object('code', 'AB', 'label', 'Aktiebolag'),
    'status', 'active',
    'registered_on', (date '1990-01-01' + (i * 37) % 12000)::text,
    'address', jsonb_build_object('street', 'Exempelgatan ' || (i % 200),
        'postal_code', lpad((10000 + i % 89999)::text, 5, '0'), 'city', 'Stockholm'),
    'industry', jsonb_build_array(jsonb_build_object('code', lpad((i % 99999)::text, 5, '0'),
        'label', 'Verksamhet ' || (i % 97))),
    'officers', jsonb_build_array(
        jsonb_build_object('role', 'board_member', 'name', 'Styrelse Ledamot ' || i),
        jsonb_build_object('role', 'chair', 'name', 'Styrelse Ordförande ' || i),
        jsonb_build_object('role', 'auditor', 'name', 'Revisor ' || i)),
    'description', repeat('Bolaget bedriver verksamhet inom golv och referenser. ', 16),
    'evidence', jsonb_build_object('source', 'floor.seed', 'retrieved_at', now()::text))
FROM generate_series(1, 2) AS t, generate_series(0, {} - 1) AS i;
ANALYZE;
",
        COMPANIES
    )
}

/// Makes the tables and seeds them when they are empty.
pub async fn prepare(url: &str) -> anyhow::Result<()> {
    let mut conn = AsyncPgConnection::establish(url).await?;
    conn.batch_execute(SCHEMA).await?;
    use diesel::QueryDsl as _;
    use diesel_async::RunQueryDsl as _;
    let grants: i64 = grants::table.count().get_result(&mut conn).await?;
    if grants == 0 {
        conn.batch_execute(&seed()).await?;
    }
    Ok(())
}

/// A pool of at most `size` connections, made on the worker that uses it.
pub fn pool(url: &str, size: usize) -> PgPool {
    Pool::builder(AsyncDieselConnectionManager::<AsyncPgConnection>::new(url))
        .max_size(size)
        .build()
        .expect("a pool without hooks or timeouts builds")
}
