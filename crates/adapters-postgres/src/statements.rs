//! The statements of the request path, hand-written and prepared once per connection.
//!
//! Every request reads its grant and tenant, most read one cached row, and every one writes its
//! audit rows, so these few statements decide what a request costs. Each is a single round
//! trip: one statement that joins what the request needs, instead of one query per table.
//!
//! diesel's `sql_query` is never kept in a connection's statement cache (each use costs a
//! Parse round trip before the Execute), so each statement here is its own type with a static
//! query id: diesel-async prepares it on first use and reuses the prepared statement after.
//! Values enter only as bind parameters.

use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::pg::{Pg, PgValue};
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Array, Date, Int4, Int8, Jsonb, Nullable, Text, Timestamptz, Untyped};
use diesel::QueryResult;

/// Implements what makes a statement type cacheable and runnable: a static query id (one per
/// type, so the cache never confuses two statements) and untyped rows (read by column name).
macro_rules! cacheable {
    ($name:ident<'a>) => {
        impl QueryId for $name<'_> {
            type QueryId = $name<'static>;
            const HAS_STATIC_QUERY_ID: bool = true;
        }
        impl Query for $name<'_> {
            type SqlType = Untyped;
        }
    };
    ($name:ident) => {
        impl QueryId for $name {
            type QueryId = $name;
            const HAS_STATIC_QUERY_ID: bool = true;
        }
    };
}

/// A `jsonb` value as the server sends it in binary form: a version byte (1) and the JSON
/// text. Read without building a `serde_json::Value` tree first.
#[derive(Debug, FromSqlRow)]
pub(crate) struct RawJsonb(pub Vec<u8>);

impl FromSql<Jsonb, Pg> for RawJsonb {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        match value.as_bytes().split_first() {
            Some((1, text)) => Ok(RawJsonb(text.to_vec())),
            Some(_) => Err("unsupported jsonb format version".into()),
            None => Err("empty jsonb value".into()),
        }
    }
}

/// The columns of a grant, its tenant and the tenant's current permit (the newest recorded):
/// everything the guard and the token endpoint need, in one row.
const ACCESS_COLUMNS: &str = "\
SELECT g.tenant_id, g.grant_id, g.client_id, g.scopes, g.countries, g.expires_at, g.revoked_at, \
       g.secret_hash, g.credential_generation, g.created_at, g.owner, \
       t.name AS tenant_name, t.own_country, t.provisioned_countries, t.status AS tenant_status, \
       t.data_key, t.daily_paid_calls, t.monitoring_share, t.person_lookup_ceiling, \
       t.retention_days, \
       t.created_at AS tenant_created_at, t.mode AS tenant_mode, t.test_tenant_id, \
       p.valid_from AS permit_valid_from, p.valid_to AS permit_valid_to, \
       p.status AS permit_status, p.recorded_at AS permit_recorded_at \
FROM grants g \
JOIN tenants t ON t.tenant_id = g.tenant_id \
LEFT JOIN LATERAL ( \
    SELECT valid_from, valid_to, status, recorded_at FROM permits \
    WHERE permits.tenant_id = g.tenant_id \
    ORDER BY recorded_at DESC, permit_id DESC LIMIT 1 \
) p ON true ";

/// The grant a token names, with its tenant and permit.
pub(crate) struct AccessByGrant<'a> {
    pub tenant_id: &'a str,
    pub grant_id: &'a str,
}

impl QueryFragment<Pg> for AccessByGrant<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(ACCESS_COLUMNS);
        out.push_sql("WHERE g.tenant_id = ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND g.grant_id = ");
        out.push_bind_param::<Text, _>(self.grant_id)?;
        Ok(())
    }
}
cacheable!(AccessByGrant<'a>);

/// The grant a client id belongs to (through the credential directory), with its tenant and
/// permit.
pub(crate) struct AccessByClient<'a> {
    pub client_id: &'a str,
}

impl QueryFragment<Pg> for AccessByClient<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(ACCESS_COLUMNS);
        out.push_sql(
            "JOIN client_credentials c ON c.tenant_id = g.tenant_id AND c.grant_id = g.grant_id \
             WHERE c.client_id = ",
        );
        out.push_bind_param::<Text, _>(self.client_id)?;
        Ok(())
    }
}
cacheable!(AccessByClient<'a>);

/// The subject of a cached row aliased `p`: its canonical id (one merge hop followed) and
/// the ids merged into it. Every cached answer names its subject this way.
const SUBJECT_COLUMNS: &str = "\
s.canonical_id, \
ARRAY(SELECT a.subject_id FROM subjects a \
      WHERE a.tenant_id = p.tenant_id AND a.merged_into = s.canonical_id \
      ORDER BY a.subject_id) AS aliases ";

/// The join that [`SUBJECT_COLUMNS`] reads from.
const SUBJECT_JOIN: &str = "\
JOIN LATERAL ( \
    SELECT COALESCE(merged_into, subject_id) AS canonical_id FROM subjects \
    WHERE subjects.tenant_id = p.tenant_id AND subjects.subject_id = p.subject_id \
) s ON true ";

/// A tenant's cached company profile with the evidence of both its calls and its subject
/// (canonical id, one merge hop followed, and the aliases merged into it).
pub(crate) struct CachedCompany<'a> {
    pub tenant_id: &'a str,
    pub country: &'a str,
    pub orgnr: &'a str,
}

impl QueryFragment<Pg> for CachedCompany<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT p.data, p.fetched_at, \
               m.call_ref AS main_call_ref, m.source AS main_source, \
               m.source_timestamp AS main_source_timestamp, m.upstream_ref AS main_upstream_ref, \
               m.digest AS main_digest, m.schema_version AS main_schema_version, \
               m.retrieved_at AS main_retrieved_at, \
               x.call_ref AS tax_call_ref, x.source AS tax_source, \
               x.source_timestamp AS tax_source_timestamp, x.upstream_ref AS tax_upstream_ref, \
               x.digest AS tax_digest, x.schema_version AS tax_schema_version, \
               x.retrieved_at AS tax_retrieved_at, ",
        );
        out.push_sql(SUBJECT_COLUMNS);
        out.push_sql(
            "FROM company_profiles p \
             JOIN call_records m ON m.tenant_id = p.tenant_id AND m.call_ref = p.main_call_ref \
             LEFT JOIN call_records x ON x.tenant_id = p.tenant_id AND x.call_ref = p.tax_call_ref ",
        );
        out.push_sql(SUBJECT_JOIN);
        out.push_sql("WHERE p.tenant_id = ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND p.country = ");
        out.push_bind_param::<Text, _>(self.country)?;
        out.push_sql(" AND p.orgnr = ");
        out.push_bind_param::<Text, _>(self.orgnr)?;
        Ok(())
    }
}
cacheable!(CachedCompany<'a>);

/// A tenant's cached paid object with the evidence of its call and its subject (canonical
/// id, one merge hop followed, and the aliases merged into it).
pub(crate) struct CachedPaidObject<'a> {
    pub tenant_id: &'a str,
    pub kind: &'a str,
    pub country: &'a str,
    pub key: &'a str,
}

impl QueryFragment<Pg> for CachedPaidObject<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT p.data, p.fetched_at, \
               c.call_ref, c.source, c.source_timestamp, c.upstream_ref, c.digest, \
               c.schema_version, c.retrieved_at, ",
        );
        out.push_sql(SUBJECT_COLUMNS);
        out.push_sql(
            "FROM paid_objects p \
             JOIN call_records c ON c.tenant_id = p.tenant_id AND c.call_ref = p.call_ref ",
        );
        out.push_sql(SUBJECT_JOIN);
        out.push_sql("WHERE p.tenant_id = ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND p.kind = ");
        out.push_bind_param::<Text, _>(self.kind)?;
        out.push_sql(" AND p.country = ");
        out.push_bind_param::<Text, _>(self.country)?;
        out.push_sql(" AND p.key = ");
        out.push_bind_param::<Text, _>(self.key)?;
        Ok(())
    }
}
cacheable!(CachedPaidObject<'a>);

/// The subject holding an `identifier_ref` (kind, the identifier as stored, canonical id and
/// aliases) and the tenant's cached person profile read by that ref with the evidence of its
/// call, in one statement (the profile columns are null when nothing is cached).
pub(crate) struct PersonAtRefRead<'a> {
    pub tenant_id: &'a str,
    pub identifier_ref: &'a str,
}

impl QueryFragment<Pg> for PersonAtRefRead<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT p.id_type, p.country, p.sealed_value, k.kind, \
               pp.sealed_profile, pp.fetched_at, \
               c.call_ref, c.source, c.source_timestamp, c.upstream_ref, c.digest, \
               c.schema_version, c.retrieved_at, ",
        );
        out.push_sql(SUBJECT_COLUMNS);
        out.push_sql(
            "FROM subject_identifiers p \
             JOIN subjects k ON k.tenant_id = p.tenant_id AND k.subject_id = p.subject_id \
             LEFT JOIN person_profiles pp \
               ON pp.tenant_id = p.tenant_id AND pp.identifier_ref = p.identifier_ref \
             LEFT JOIN call_records c ON c.tenant_id = pp.tenant_id AND c.call_ref = pp.call_ref ",
        );
        out.push_sql(SUBJECT_JOIN);
        out.push_sql("WHERE p.tenant_id = ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND p.identifier_ref = ");
        out.push_bind_param::<Text, _>(self.identifier_ref)?;
        Ok(())
    }
}
cacheable!(PersonAtRefRead<'a>);

/// Counts one person lookup of a tenant's day, only if the count stays within `ceiling`: one
/// statement, atomic like [`SpendBudget`]. Returns a row when counted, none when the ceiling
/// is reached.
pub(crate) struct CountPersonLookup<'a> {
    pub tenant_id: &'a str,
    pub day: chrono::NaiveDate,
    pub ceiling: i64,
}

impl QueryFragment<Pg> for CountPersonLookup<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("INSERT INTO person_lookups AS l (tenant_id, day, used) SELECT ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Date, _>(&self.day)?;
        out.push_sql(", 1 WHERE 1 <= ");
        out.push_bind_param::<Int8, _>(&self.ceiling)?;
        out.push_sql(
            " ON CONFLICT (tenant_id, day) DO UPDATE SET used = l.used + 1 WHERE l.used + 1 <= ",
        );
        out.push_bind_param::<Int8, _>(&self.ceiling)?;
        out.push_sql(" RETURNING l.used");
        Ok(())
    }
}
cacheable!(CountPersonLookup<'a>);

/// Spends `units` of one part (on-demand or scheduled) of a tenant's budget day, only if the
/// part's use stays within `cap`: one statement, so the check and the write are atomic. The
/// first spend of a day creates the row (through the same check); later ones update it under
/// its row lock, which serialises concurrent spends and re-checks the cap against the
/// committed count. Returns a row when the spend was made, none when it did not fit.
///
/// `SCHEDULED` picks the part; each part is its own prepared statement.
pub(crate) struct SpendBudget<'a, const SCHEDULED: bool> {
    pub tenant_id: &'a str,
    pub day: chrono::NaiveDate,
    pub units: i64,
    pub cap: i64,
}

impl<const SCHEDULED: bool> QueryFragment<Pg> for SpendBudget<'_, SCHEDULED> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        // The part's column is chosen by the statement's type, never by a value.
        let (col, other) = if SCHEDULED {
            ("used_scheduled", "used_on_demand")
        } else {
            ("used_on_demand", "used_scheduled")
        };
        out.push_sql("INSERT INTO paid_call_budget AS b (tenant_id, day, ");
        out.push_sql(col);
        out.push_sql(", ");
        out.push_sql(other);
        out.push_sql(") SELECT ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Date, _>(&self.day)?;
        out.push_sql(", ");
        out.push_bind_param::<Int8, _>(&self.units)?;
        out.push_sql(", 0 WHERE ");
        out.push_bind_param::<Int8, _>(&self.units)?;
        out.push_sql(" <= ");
        out.push_bind_param::<Int8, _>(&self.cap)?;
        out.push_sql(" ON CONFLICT (tenant_id, day) DO UPDATE SET ");
        out.push_sql(col);
        out.push_sql(" = b.");
        out.push_sql(col);
        out.push_sql(" + EXCLUDED.");
        out.push_sql(col);
        out.push_sql(" WHERE b.");
        out.push_sql(col);
        out.push_sql(" + EXCLUDED.");
        out.push_sql(col);
        out.push_sql(" <= ");
        out.push_bind_param::<Int8, _>(&self.cap)?;
        out.push_sql(" RETURNING b.");
        out.push_sql(col);
        out.push_sql(" AS used");
        Ok(())
    }
}

impl<const SCHEDULED: bool> QueryId for SpendBudget<'_, SCHEDULED> {
    type QueryId = SpendBudget<'static, SCHEDULED>;
    const HAS_STATIC_QUERY_ID: bool = true;
}
impl<const SCHEDULED: bool> Query for SpendBudget<'_, SCHEDULED> {
    type SqlType = Untyped;
}

/// The audit rows of one or more requests: each record is a row of the tenant's audit log and
/// a row of its grant's access log (with the same id), written by one statement, so they
/// commit together and cost one round trip whatever their number.
#[derive(Default)]
pub(crate) struct AuditInsert {
    pub tenant_id: Vec<String>,
    pub audit_id: Vec<String>,
    pub grant_id: Vec<String>,
    pub request_id: Vec<String>,
    pub occurred_at: Vec<chrono::DateTime<chrono::Utc>>,
    pub surface: Vec<&'static str>,
    pub action: Vec<String>,
    pub method: Vec<&'static str>,
    pub route: Vec<&'static str>,
    pub tool: Vec<Option<String>>,
    pub status: Vec<i32>,
    pub outcome: Vec<&'static str>,
    pub error_code: Vec<Option<&'static str>>,
    pub detail: Vec<Option<&'static str>>,
    pub portal_user_id: Vec<Option<String>>,
    pub conversation_id: Vec<Option<String>>,
}

impl QueryFragment<Pg> for AuditInsert {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "WITH audit AS ( \
               INSERT INTO audit_log (tenant_id, audit_id, grant_id, request_id, occurred_at, \
                 surface, action, method, route, tool, status, outcome, error_code, detail, \
                 portal_user_id, conversation_id) \
               SELECT * FROM unnest(",
        );
        out.push_bind_param::<Array<Text>, _>(&self.tenant_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.audit_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.grant_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.request_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Timestamptz>, _>(&self.occurred_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.surface)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.action)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.method)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.route)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.tool)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Int4>, _>(&self.status)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.outcome)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.error_code)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.detail)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.portal_user_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.conversation_id)?;
        out.push_sql(
            ") \
               RETURNING tenant_id, grant_id, audit_id, request_id, occurred_at, surface, method, \
                 route, tool, status, outcome, error_code \
             ) \
             INSERT INTO access_log (tenant_id, grant_id, access_id, request_id, occurred_at, \
               surface, method, route, tool, status, outcome, error_code) \
             SELECT * FROM audit",
        );
        Ok(())
    }
}
cacheable!(AuditInsert);

/// One page of a tenant's event log: among the events `after + 1 ..= window_end` (the log
/// is gap-free, so that is exactly the next `scan` events: an index range, read only as far
/// as the page fills), those of the countries and types asked, at most `limit`, with each
/// subject's canonical id and aliases, and on every row the log's last `seq`. The SQL is the
/// same for every call (the type filter is switched by a parameter), so it is prepared once.
pub(crate) struct EventPageRead<'a> {
    pub tenant_id: &'a str,
    pub after: i64,
    /// `after + scan`, saturating (a cursor may be as large as `i64::MAX`).
    pub window_end: i64,
    pub limit: i64,
    pub countries: Vec<&'static str>,
    pub any_type: bool,
    pub types: Vec<String>,
    pub type_prefixes: Vec<String>,
}

impl QueryFragment<Pg> for EventPageRead<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "SELECT e.seq, e.event_id, e.idempotency_key, e.type, e.country, e.subject_id, \
               e.subject_ref, e.occurred_at, e.recorded_at, e.data, e.evidence, \
               e.subscription_id, s.canonical_id, \
               CASE WHEN s.canonical_id IS NULL THEN ARRAY[]::text[] ELSE ARRAY( \
                 SELECT a.subject_id FROM subjects a \
                 WHERE a.tenant_id = e.tenant_id AND a.merged_into = s.canonical_id \
                 ORDER BY a.subject_id) END AS aliases, \
               (SELECT c.last_seq FROM event_counters c WHERE c.tenant_id = e.tenant_id) \
                 AS scanned_to \
             FROM events e \
             LEFT JOIN LATERAL ( \
               SELECT COALESCE(merged_into, subject_id) AS canonical_id FROM subjects \
               WHERE subjects.tenant_id = e.tenant_id AND subjects.subject_id = e.subject_id \
             ) s ON true \
             WHERE e.tenant_id = ",
        );
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(" AND e.seq > ");
        out.push_bind_param::<Int8, _>(&self.after)?;
        out.push_sql(" AND e.seq <= ");
        out.push_bind_param::<Int8, _>(&self.window_end)?;
        out.push_sql(" AND e.country = ANY(");
        out.push_bind_param::<Array<Text>, _>(&self.countries)?;
        out.push_sql(") AND (");
        out.push_bind_param::<diesel::sql_types::Bool, _>(&self.any_type)?;
        out.push_sql(" OR e.type = ANY(");
        out.push_bind_param::<Array<Text>, _>(&self.types)?;
        out.push_sql(") OR e.type LIKE ANY(");
        out.push_bind_param::<Array<Text>, _>(&self.type_prefixes)?;
        out.push_sql(")) ORDER BY e.seq LIMIT ");
        out.push_bind_param::<Int8, _>(&self.limit)?;
        Ok(())
    }
}
cacheable!(EventPageRead<'a>);

/// The last `seq` of a tenant's log (none before its first event).
pub(crate) struct EventScanEnd<'a> {
    pub tenant_id: &'a str,
}

impl QueryFragment<Pg> for EventScanEnd<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("SELECT (SELECT last_seq FROM event_counters WHERE tenant_id = ");
        out.push_bind_param::<Text, _>(self.tenant_id)?;
        out.push_sql(") AS scanned_to");
        Ok(())
    }
}
cacheable!(EventScanEnd<'a>);

/// The scheduler's claim: due, active, unleased subscriptions across tenants, locked with
/// `SKIP LOCKED` so replicas claim disjoint sets, leased in the same statement.
pub(crate) struct ClaimDue {
    pub now: chrono::DateTime<chrono::Utc>,
    pub lease_until: chrono::DateTime<chrono::Utc>,
    pub limit: i64,
}

impl QueryFragment<Pg> for ClaimDue {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "WITH due AS ( \
               SELECT tenant_id, subscription_id FROM subscriptions \
               WHERE status = 'active' AND next_run_at <= ",
        );
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(" AND (claimed_until IS NULL OR claimed_until <= ");
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(") ORDER BY next_run_at LIMIT ");
        out.push_bind_param::<Int8, _>(&self.limit)?;
        out.push_sql(
            " FOR UPDATE SKIP LOCKED) \
             UPDATE subscriptions s SET claimed_until = ",
        );
        out.push_bind_param::<Timestamptz, _>(&self.lease_until)?;
        out.push_sql(
            " FROM due WHERE s.tenant_id = due.tenant_id AND s.subscription_id = due.subscription_id \
             RETURNING s.tenant_id, s.subscription_id, \
               COALESCE((SELECT m.merged_into FROM subjects m \
                 WHERE m.tenant_id = s.tenant_id AND m.subject_id = s.subject_id), \
                 s.subject_id) AS subject_id, \
               s.kind, s.legal_basis, \
               s.legal_basis_ref, s.status, s.check_days, s.full_refresh_days, s.country, \
               s.created_at, s.suspended_at, s.suspension_reason, s.ended_at, s.purge_after, \
               s.next_run_at, s.claimed_until, s.last_checked_at, s.last_full_refresh_at, \
               ARRAY(SELECT a.subject_id FROM subjects a \
                 WHERE a.tenant_id = s.tenant_id AND a.merged_into = COALESCE(( \
                   SELECT m.merged_into FROM subjects m \
                   WHERE m.tenant_id = s.tenant_id AND m.subject_id = s.subject_id), \
                   s.subject_id) \
                 ORDER BY a.subject_id) AS aliases",
        );
        Ok(())
    }
}
cacheable!(ClaimDue);
impl Query for ClaimDue {
    type SqlType = Untyped;
}
