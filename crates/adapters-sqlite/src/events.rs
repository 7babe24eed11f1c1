//! `EventStore` on SQLite: each tenant's log with gap-free `seq`. An append runs in a write
//! transaction, which holds the store's one write lock until it commits, so appends never
//! interleave: no gap, no duplicate, and a rolled-back append leaves no hole.

use crate::convert::{corrupt, list, micros, parse_id, time, TxError};
use crate::schema::{customer_refs, event_counters, events};
use crate::Database;
use async_trait::async_trait;
use chrono::Utc;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::ids::TenantId;
use domain::monitoring::event::{EventPage, EventQuery, LoggedEvent, NewEvent};
use domain::monitoring::ports::EventStore;
use domain::subjects::subject::SubjectHandle;
use std::collections::HashMap;
use storage_codec::evidence::{data_from_json, data_to_json, evidence_from_json, evidence_to_json};

#[async_trait]
impl EventStore for Database {
    async fn append_events(
        &self,
        tenant: &TenantId,
        new: &[NewEvent],
    ) -> Result<Vec<i64>, StoreError> {
        if new.is_empty() {
            return Ok(Vec::new());
        }
        let (tenant_id, new) = (tenant.to_string(), new.to_vec());
        self.write(move |conn| append_within(conn, &tenant_id, &new))
            .await
    }

    async fn events_page(
        &self,
        tenant: &TenantId,
        query: &EventQuery,
    ) -> Result<EventPage, StoreError> {
        let (tenant_id, query) = (tenant.to_string(), query.clone());
        self.read(move |conn| page(conn, &tenant_id, &query)).await
    }
}

/// Appends inside the caller's write transaction (a subject merge logs its events with it).
pub(crate) fn append_within(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    new: &[NewEvent],
) -> Result<Vec<i64>, TxError> {
    diesel::insert_into(event_counters::table)
        .values(event_counters::tenant_id.eq(tenant_id))
        .on_conflict_do_nothing()
        .execute(conn)?;
    let last: i64 = event_counters::table
        .find(tenant_id)
        .select(event_counters::last_seq)
        .first(conn)?;
    let keys: Vec<&str> = new.iter().map(|e| e.idempotency_key.as_str()).collect();
    let logged: HashMap<String, i64> = events::table
        .filter(events::tenant_id.eq(tenant_id))
        .filter(events::idempotency_key.eq_any(&keys))
        .select((events::idempotency_key, events::seq))
        .load::<(String, i64)>(conn)?
        .into_iter()
        .collect();
    let unnamed: Vec<String> = new
        .iter()
        .filter(|e| e.subject_ref.is_none() && !logged.contains_key(&e.idempotency_key))
        .filter_map(|e| e.subject_id.map(|s| s.to_string()))
        .collect();
    let mut first_refs: HashMap<String, String> = HashMap::new();
    if !unnamed.is_empty() {
        let refs: Vec<(String, String)> = customer_refs::table
            .filter(customer_refs::tenant_id.eq(tenant_id))
            .filter(customer_refs::subject_id.eq_any(&unnamed))
            .order((
                customer_refs::subject_id,
                customer_refs::created_at,
                customer_refs::ref_,
            ))
            .select((customer_refs::subject_id, customer_refs::ref_))
            .load(conn)?;
        for (subject, reference) in refs {
            first_refs.entry(subject).or_insert(reference);
        }
    }
    let recorded_at = micros(Utc::now());
    let mut next = last;
    let mut seqs = Vec::with_capacity(new.len());
    let mut fresh: HashMap<&str, i64> = HashMap::new();
    for e in new {
        let key = e.idempotency_key.as_str();
        if let Some(seq) = logged.get(key).or_else(|| fresh.get(key)) {
            seqs.push(*seq);
            continue;
        }
        next += 1;
        fresh.insert(key, next);
        seqs.push(next);
        let subject_ref = e.subject_ref.clone().or_else(|| {
            e.subject_id
                .and_then(|s| first_refs.get(&s.to_string()).cloned())
        });
        diesel::insert_into(events::table)
            .values((
                events::tenant_id.eq(tenant_id),
                events::seq.eq(next),
                events::event_id.eq(e.id.to_string()),
                events::idempotency_key.eq(key),
                events::type_.eq(&e.type_name),
                events::country.eq(e.country.code()),
                events::subject_id.eq(e.subject_id.map(|s| s.to_string())),
                events::subject_ref.eq(subject_ref),
                events::occurred_at.eq(micros(e.occurred_at)),
                events::recorded_at.eq(recorded_at),
                events::data.eq(data_to_json(&e.data).to_string()),
                events::evidence.eq(evidence_to_json(&e.evidence).to_string()),
                events::subscription_id.eq(e.subscription_id.map(|s| s.to_string())),
            ))
            .execute(conn)?;
    }
    if next != last {
        diesel::update(event_counters::table.find(tenant_id))
            .set(event_counters::last_seq.eq(next))
            .execute(conn)?;
    }
    Ok(seqs)
}

#[derive(QueryableByName)]
struct EventRow {
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Text)]
    event_id: String,
    #[diesel(sql_type = Text)]
    idempotency_key: String,
    #[diesel(sql_type = Text)]
    type_name: String,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = Nullable<Text>)]
    subject_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    subject_ref: Option<String>,
    #[diesel(sql_type = BigInt)]
    occurred_at: i64,
    #[diesel(sql_type = BigInt)]
    recorded_at: i64,
    #[diesel(sql_type = Text)]
    data: String,
    #[diesel(sql_type = Text)]
    evidence: String,
    #[diesel(sql_type = Nullable<Text>)]
    subscription_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    canonical_id: Option<String>,
}

/// One page: the events after `after` within the scan window, filtered, in `seq` order, each
/// with its subject's canonical id and aliases now; all read in one snapshot.
fn page(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    query: &EventQuery,
) -> Result<EventPage, TxError> {
    let (any_type, types, families) = match &query.types {
        None => (true, Vec::new(), Vec::new()),
        Some(list) => {
            let (families, exact): (Vec<&String>, Vec<&String>) =
                list.iter().partition(|t| t.ends_with(".*"));
            (
                false,
                exact.into_iter().map(String::as_str).collect(),
                families
                    .into_iter()
                    .map(|f| f.trim_end_matches('*'))
                    .collect::<Vec<_>>(),
            )
        }
    };
    let window_end = query
        .after
        .saturating_add(i64::from(query.scan_window.max(1)));
    let rows: Vec<EventRow> = diesel::sql_query(
        "SELECT e.seq, e.event_id, e.idempotency_key, e.type AS type_name, e.country, \
           e.subject_id, e.subject_ref, e.occurred_at, e.recorded_at, e.data, e.evidence, \
           e.subscription_id, \
           (SELECT COALESCE(s.merged_into, s.subject_id) FROM subjects s \
             WHERE s.tenant_id = e.tenant_id AND s.subject_id = e.subject_id) AS canonical_id \
         FROM events e \
         WHERE e.tenant_id = ? AND e.seq > ? AND e.seq <= ? \
           AND e.country IN (SELECT value FROM json_each(?)) \
           AND (? OR e.type IN (SELECT value FROM json_each(?)) \
             OR EXISTS (SELECT 1 FROM json_each(?) f \
               WHERE substr(e.type, 1, length(f.value)) = f.value)) \
         ORDER BY e.seq LIMIT ?",
    )
    .bind::<Text, _>(tenant_id)
    .bind::<BigInt, _>(query.after)
    .bind::<BigInt, _>(window_end)
    .bind::<Text, _>(list(query.countries.iter().map(Country::code)))
    .bind::<Bool, _>(any_type)
    .bind::<Text, _>(list(types))
    .bind::<Text, _>(list(families))
    .bind::<BigInt, _>(i64::from(query.limit))
    .load(conn)?;
    let next_cursor = if rows.len() == query.limit as usize && query.limit > 0 {
        rows.last().map_or(query.after, |r| r.seq)
    } else {
        let log_end: Option<i64> = event_counters::table
            .find(tenant_id)
            .select(event_counters::last_seq)
            .first(conn)
            .optional()?;
        log_end.unwrap_or(0).min(window_end).max(query.after)
    };
    let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
    let mut events = Vec::with_capacity(rows.len());
    for row in rows {
        let subject = match &row.canonical_id {
            None => None,
            Some(canonical) => {
                if !aliases.contains_key(canonical) {
                    let ids: Vec<String> =
                        crate::subject_ids::aliases_query(tenant_id, canonical).load(conn)?;
                    aliases.insert(canonical.clone(), ids);
                }
                Some(SubjectHandle {
                    subject_id: parse_id(canonical, "subject id")?,
                    aliases: aliases[canonical]
                        .iter()
                        .map(|a| parse_id(a, "subject id"))
                        .collect::<Result<_, _>>()?,
                })
            }
        };
        events.push(logged(row, subject)?);
    }
    Ok(EventPage {
        events,
        next_cursor,
    })
}

fn logged(row: EventRow, subject: Option<SubjectHandle>) -> Result<LoggedEvent, StoreError> {
    let data: serde_json::Value =
        serde_json::from_str(&row.data).map_err(|_| corrupt("event data"))?;
    let evidence: serde_json::Value =
        serde_json::from_str(&row.evidence).map_err(|_| corrupt("event evidence"))?;
    Ok(LoggedEvent {
        seq: row.seq,
        recorded_at: time(row.recorded_at)?,
        subject,
        event: NewEvent {
            id: parse_id(&row.event_id, "event id")?,
            idempotency_key: row.idempotency_key,
            type_name: row.type_name,
            country: Country::from_code(&row.country).ok_or_else(|| corrupt("country"))?,
            subject_id: row
                .subject_id
                .as_deref()
                .map(|s| parse_id(s, "subject id"))
                .transpose()?,
            subject_ref: row.subject_ref,
            subscription_id: row
                .subscription_id
                .as_deref()
                .map(|s| parse_id(s, "subscription id"))
                .transpose()?,
            occurred_at: time(row.occurred_at)?,
            data: data_from_json(data),
            evidence: evidence_from_json(&evidence)?,
        },
    })
}
