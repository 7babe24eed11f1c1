//! `EventStore` on PostgreSQL: the per-tenant event log.
//!
//! An append is one transaction: lock the tenant's counter row (an upsert, so the first
//! append of a tenant creates it under the same lock), find the idempotency keys already
//! logged, insert the new events with the next `seq` values, and write the counter back. The
//! lock is held until the commit, so writers on any replica queue on it and the sequence has
//! no gap and no duplicate; a rollback undoes the counter with the rows.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::schema::{customer_refs, event_counters, events};
use crate::statements::{EventPageRead, EventScanEnd, RawJsonb};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::countries::country::Country;
use domain::error::StoreError;
use domain::ids::TenantId;
use domain::monitoring::event::{EventPage, EventQuery, LoggedEvent, NewEvent};
use domain::monitoring::ports::EventStore;
use domain::subjects::subject::SubjectHandle;
use serde_json::Value;
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
        let tenant_id = tenant.to_string();
        let mut conn = self.conn().await?;
        let seqs = conn
            .transaction(async |conn| append_within(conn, &tenant_id, new).await)
            .await?;
        Ok(seqs)
    }

    async fn events_page(
        &self,
        tenant: &TenantId,
        query: &EventQuery,
    ) -> Result<EventPage, StoreError> {
        let tenant_id = tenant.to_string();
        let (any_type, types, type_prefixes) = match &query.types {
            None => (true, Vec::new(), Vec::new()),
            Some(list) => {
                let (families, exact): (Vec<&String>, Vec<&String>) =
                    list.iter().partition(|t| t.ends_with(".*"));
                (
                    false,
                    exact.into_iter().cloned().collect(),
                    families
                        .into_iter()
                        .map(|f| format!("{}%", f.trim_end_matches('*')))
                        .collect(),
                )
            }
        };
        let scan = i64::from(query.scan_window.max(1));
        let mut conn = self.conn().await?;
        let rows: Vec<EventRow> = EventPageRead {
            tenant_id: &tenant_id,
            after: query.after,
            window_end: query.after.saturating_add(scan),
            limit: i64::from(query.limit),
            countries: query.countries.iter().map(Country::code).collect(),
            any_type,
            types,
            type_prefixes,
        }
        .load(&mut conn)
        .await
        .map_err(backend)?;
        // A full page ends at its last event; a short one has looked at the whole window,
        // up to the log's end (the log is gap-free, so the window is a range of `seq`).
        let window_end = query.after.saturating_add(scan);
        let next_cursor = if rows.len() == query.limit as usize && query.limit > 0 {
            rows.last().map_or(query.after, |r| r.seq)
        } else {
            let log_end = match <[EventRow]>::first(&rows) {
                Some(r) => r.scanned_to,
                None => {
                    let end: ScanEndRow = EventScanEnd {
                        tenant_id: &tenant_id,
                    }
                    .get_result(&mut conn)
                    .await
                    .map_err(backend)?;
                    end.scanned_to
                }
            };
            log_end.unwrap_or(0).min(window_end).max(query.after)
        };
        let events = rows
            .into_iter()
            .map(EventRow::into_domain)
            .collect::<Result<_, _>>()?;
        Ok(EventPage {
            events,
            next_cursor,
        })
    }
}

/// Appends events inside the caller's transaction (a subscription change and its event
/// commit together): the tenant's counter row is locked until that transaction ends.
pub(crate) async fn append_within(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    new: &[NewEvent],
) -> Result<Vec<i64>, TxError> {
    let rows: Vec<(&NewEvent, Value, Value)> = new
        .iter()
        .map(|e| (e, data_to_json(&e.data), evidence_to_json(&e.evidence)))
        .collect();
    let recorded_at = Utc::now();
    // The tenant's counter, locked until the commit.
    let last: i64 = diesel::insert_into(event_counters::table)
        .values(event_counters::tenant_id.eq(tenant_id))
        .on_conflict(event_counters::tenant_id)
        .do_update()
        .set(event_counters::last_seq.eq(event_counters::last_seq))
        .returning(event_counters::last_seq)
        .get_result(conn)
        .await?;
    let keys: Vec<&str> = new.iter().map(|e| e.idempotency_key.as_str()).collect();
    let logged: HashMap<String, i64> = events::table
        .filter(events::tenant_id.eq(tenant_id))
        .filter(events::idempotency_key.eq_any(&keys))
        .select((events::idempotency_key, events::seq))
        .load::<(String, i64)>(conn)
        .await?
        .into_iter()
        .collect();
    // The reference an event names, when its producer gave none: the subject's first
    // customer reference (the port's rule), read in this transaction.
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
            .load(conn)
            .await?;
        for (subject, reference) in refs {
            first_refs.entry(subject).or_insert(reference);
        }
    }
    let mut next = last;
    let mut seqs = Vec::with_capacity(new.len());
    let mut fresh: HashMap<&str, i64> = HashMap::new();
    let mut inserts = Vec::new();
    for (e, data, evidence) in &rows {
        let key = e.idempotency_key.as_str();
        if let Some(seq) = logged.get(key).or_else(|| fresh.get(key)) {
            seqs.push(*seq);
            continue;
        }
        next += 1;
        fresh.insert(key, next);
        seqs.push(next);
        inserts.push((
            events::tenant_id.eq(tenant_id),
            events::seq.eq(next),
            events::event_id.eq(e.id.to_string()),
            events::idempotency_key.eq(key),
            events::type_.eq(&e.type_name),
            events::country.eq(e.country.code()),
            events::subject_id.eq(e.subject_id.map(|s| s.to_string())),
            events::subject_ref.eq(e.subject_ref.as_deref().or_else(|| {
                e.subject_id
                    .and_then(|s| first_refs.get(&s.to_string()).map(String::as_str))
            })),
            events::occurred_at.eq(e.occurred_at),
            events::recorded_at.eq(recorded_at),
            events::data.eq(data),
            events::evidence.eq(evidence),
            events::subscription_id.eq(e.subscription_id.map(|s| s.to_string())),
        ));
    }
    if !inserts.is_empty() {
        diesel::insert_into(events::table)
            .values(inserts)
            .execute(conn)
            .await?;
        diesel::update(event_counters::table.find(tenant_id))
            .set(event_counters::last_seq.eq(next))
            .execute(conn)
            .await?;
    }
    Ok(seqs)
}

#[derive(QueryableByName)]
struct ScanEndRow {
    #[diesel(sql_type = Nullable<Int8>)]
    scanned_to: Option<i64>,
}

#[derive(QueryableByName)]
struct EventRow {
    #[diesel(sql_type = Int8)]
    seq: i64,
    #[diesel(sql_type = Text)]
    event_id: String,
    #[diesel(sql_type = Text)]
    idempotency_key: String,
    #[diesel(sql_type = Text, column_name = "type")]
    type_name: String,
    #[diesel(sql_type = Text)]
    country: String,
    #[diesel(sql_type = Nullable<Text>)]
    subject_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    subject_ref: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    occurred_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    recorded_at: DateTime<Utc>,
    #[diesel(sql_type = Jsonb)]
    data: RawJsonb,
    #[diesel(sql_type = Jsonb)]
    evidence: RawJsonb,
    #[diesel(sql_type = Nullable<Text>)]
    subscription_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    canonical_id: Option<String>,
    #[diesel(sql_type = Array<Text>)]
    aliases: Vec<String>,
    #[diesel(sql_type = Nullable<Int8>)]
    scanned_to: Option<i64>,
}

impl EventRow {
    fn into_domain(self) -> Result<LoggedEvent, StoreError> {
        let data: Value =
            serde_json::from_slice(&self.data.0).map_err(|_| corrupt("event data"))?;
        let evidence: Value =
            serde_json::from_slice(&self.evidence.0).map_err(|_| corrupt("event evidence"))?;
        let subject = match &self.canonical_id {
            None => None,
            Some(c) => Some(SubjectHandle {
                subject_id: parse_id(c, "subject id")?,
                aliases: self
                    .aliases
                    .iter()
                    .map(|a| parse_id(a, "subject id"))
                    .collect::<Result<_, _>>()?,
            }),
        };
        Ok(LoggedEvent {
            seq: self.seq,
            recorded_at: self.recorded_at,
            subject,
            event: NewEvent {
                id: parse_id(&self.event_id, "event id")?,
                idempotency_key: self.idempotency_key,
                type_name: self.type_name,
                country: Country::from_code(&self.country).ok_or_else(|| corrupt("country"))?,
                subject_id: self
                    .subject_id
                    .as_deref()
                    .map(|s| parse_id(s, "subject id"))
                    .transpose()?,
                subject_ref: self.subject_ref,
                subscription_id: self
                    .subscription_id
                    .as_deref()
                    .map(|s| parse_id(s, "subscription id"))
                    .transpose()?,
                occurred_at: self.occurred_at,
                data: data_from_json(data),
                evidence: evidence_from_json(&evidence)?,
            },
        })
    }
}
