//! `AuditSink` on PostgreSQL: the audit and access rows of a request in one statement (one
//! transaction, one round trip), committed before the call returns and so before the response
//! is sent; on a worker thread, the rows of concurrent requests share one statement (group
//! commit). An audit row and its access row share their id.

use crate::convert::backend;
use crate::schema::{audit_log, security_log};
use crate::statements::AuditInsert;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::access::audit::{
    AccessRecord, AuditEntry, AuditFilter, PortalAuditRecord, SecurityRecord,
};
use domain::access::ports::{AuditLog, AuditSink};
use domain::error::StoreError;
use domain::ids::TenantId;
use std::cell::RefCell;
use tokio::sync::{mpsc, oneshot};
use ulid::Ulid;

/// The most records one group commit writes; more wait for the next.
const MAX_GROUP: usize = 512;

/// One request's rows waiting for their group commit, and whom to tell when it is durable.
struct Pending {
    records: Vec<AccessRecord>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

thread_local! {
    /// The group-commit writer of each database on this worker thread.
    static WRITERS: RefCell<Vec<(u64, mpsc::UnboundedSender<Pending>)>> = const { RefCell::new(Vec::new()) };
}

impl Database {
    /// Writes records as audit and access rows in one statement: one transaction, one round
    /// trip, however many records.
    async fn insert_audit(&self, records: &[&AccessRecord]) -> Result<(), StoreError> {
        let mut rows = AuditInsert::default();
        // Monotonic within the statement: the ids order a request's rows as they were noted.
        let mut ids = ulid::Generator::new();
        for r in records {
            let id = ids
                .generate()
                .map_err(|e| StoreError::Backend(e.to_string()))?;
            rows.tenant_id.push(r.tenant_id.to_string());
            rows.audit_id.push(id.to_string());
            rows.grant_id.push(r.grant_id.to_string());
            rows.request_id.push(r.request_id.to_string());
            rows.occurred_at.push(r.occurred_at);
            rows.surface.push(r.surface.as_str());
            rows.action.push(r.action.clone());
            rows.method.push(r.method);
            rows.route.push(r.route);
            rows.tool.push(r.tool.clone());
            rows.status.push(i32::from(r.status));
            rows.outcome.push(r.outcome.as_str());
            rows.error_code.push(r.error_code.map(|c| c.as_str()));
            rows.detail.push(r.detail);
            rows.portal_user_id
                .push(r.portal_user_id.map(|u| u.to_string()));
            rows.conversation_id
                .push(r.conversation_id.map(|c| c.to_string()));
        }
        let mut conn = self.conn().await?;
        rows.execute(&mut conn).await.map_err(backend)?;
        Ok(())
    }

    /// This worker thread's group-commit writer, started on first use.
    fn audit_writer(&self) -> mpsc::UnboundedSender<Pending> {
        WRITERS.with(|writers| {
            let mut writers = writers.borrow_mut();
            writers.retain(|(_, tx)| !tx.is_closed());
            if let Some((_, tx)) = writers.iter().find(|(id, _)| *id == self.id()) {
                return tx.clone();
            }
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(group_commits(self.clone(), rx));
            writers.push((self.id(), tx.clone()));
            tx
        })
    }
}

/// Group commit: takes every request waiting when it is free, writes all their rows in one
/// statement, and tells each request once that statement has committed. While one group is
/// being written the next gathers, so under load one commit (and its WAL flush) serves many
/// requests, and when idle a request is written at once. If a group fails, its requests are
/// written one by one, so a request is never failed for another's rows.
async fn group_commits(db: Database, mut waiting: mpsc::UnboundedReceiver<Pending>) {
    while let Some(first) = waiting.recv().await {
        let mut group = vec![first];
        let mut size = group[0].records.len();
        while size < MAX_GROUP {
            match waiting.try_recv() {
                Ok(next) => {
                    size += next.records.len();
                    group.push(next);
                }
                Err(_) => break,
            }
        }
        let rows: Vec<&AccessRecord> = group.iter().flat_map(|p| &p.records).collect();
        match db.insert_audit(&rows).await {
            Ok(()) => {
                for pending in group {
                    let _ = pending.done.send(Ok(()));
                }
            }
            Err(e) if group.len() == 1 => {
                let _ = group.remove(0).done.send(Err(e));
            }
            Err(_) => {
                for pending in group {
                    let rows: Vec<&AccessRecord> = pending.records.iter().collect();
                    let _ = pending.done.send(db.insert_audit(&rows).await);
                }
            }
        }
    }
}

#[async_trait]
impl AuditSink for Database {
    /// Durable when it returns. On an actix worker (a single-threaded runtime) the rows go
    /// through the worker's group commit; elsewhere they are written directly.
    async fn record_access(&self, records: &[AccessRecord]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        if !self.on_worker_thread() {
            let rows: Vec<&AccessRecord> = records.iter().collect();
            return self.insert_audit(&rows).await;
        }
        let (done, committed) = oneshot::channel();
        let pending = Pending {
            records: records.to_vec(),
            done,
        };
        self.audit_writer()
            .send(pending)
            .map_err(|_| StoreError::Backend("the audit writer has stopped".into()))?;
        committed
            .await
            .map_err(|_| StoreError::Backend("the audit writer has stopped".into()))?
    }

    async fn record_security(&self, r: &SecurityRecord) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(security_log::table)
            .values((
                security_log::event_id.eq(Ulid::generate().to_string()),
                security_log::request_id.eq(r.request_id.to_string()),
                security_log::occurred_at.eq(r.occurred_at),
                security_log::method.eq(r.method),
                security_log::route.eq(r.route),
                security_log::status.eq(i32::from(r.status)),
                security_log::reason.eq(r.reason.as_str()),
                security_log::client_id.eq(r.client_id.as_deref()),
                security_log::peer.eq(r.peer.as_deref()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn record_portal(&self, r: &PortalAuditRecord) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(audit_log::table)
            .values((
                audit_log::tenant_id.eq(r.tenant_id.to_string()),
                audit_log::audit_id.eq(Ulid::generate().to_string()),
                audit_log::grant_id.eq(r.grant_id.map(|g| g.to_string()).unwrap_or_default()),
                audit_log::request_id.eq(r.request_id.to_string()),
                audit_log::occurred_at.eq(r.occurred_at),
                audit_log::surface.eq(domain::operation::Surface::Portal.as_str()),
                audit_log::action.eq(r.action.action()),
                audit_log::method.eq(r.action.method()),
                audit_log::route.eq(r.action.route()),
                audit_log::status.eq(i32::from(r.status)),
                audit_log::outcome.eq(r.outcome.as_str()),
                audit_log::error_code.eq(r.error_code.map(|c| c.as_str())),
                audit_log::detail.eq(r.detail),
                audit_log::portal_user_id.eq(r.portal_user_id.to_string()),
                audit_log::oauth_client.eq(r.oauth_client.as_deref()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }
}

type EntryRow = (
    String,
    DateTime<Utc>,
    String,
    String,
    String,
    String,
    Option<String>,
    i32,
    String,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
);

#[async_trait]
impl AuditLog for Database {
    async fn audit_entries(
        &self,
        tenant: &TenantId,
        filter: &AuditFilter,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let mut conn = self.conn().await?;
        let mut query = audit_log::table
            .filter(audit_log::tenant_id.eq(tenant.to_string()))
            .into_boxed();
        if let Some(grant) = &filter.grant {
            query = query.filter(audit_log::grant_id.eq(grant.to_string()));
        }
        if let Some(route) = &filter.route {
            query = query.filter(audit_log::route.eq(route.clone()));
        }
        if let Some(outcome) = filter.outcome {
            query = query.filter(audit_log::outcome.eq(outcome.as_str()));
        }
        if let Some(before) = &filter.before {
            query = query.filter(audit_log::audit_id.lt(before.clone()));
        }
        let rows: Vec<EntryRow> = query
            .order(audit_log::audit_id.desc())
            .limit(i64::from(limit))
            .select((
                audit_log::audit_id,
                audit_log::occurred_at,
                audit_log::surface,
                audit_log::action,
                audit_log::method,
                audit_log::route,
                audit_log::tool,
                audit_log::status,
                audit_log::outcome,
                audit_log::error_code,
                audit_log::detail,
                audit_log::grant_id,
                audit_log::portal_user_id,
                audit_log::conversation_id,
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        Ok(rows.into_iter().map(entry_of).collect())
    }
}

fn entry_of(r: EntryRow) -> AuditEntry {
    AuditEntry {
        audit_id: r.0,
        occurred_at: r.1,
        surface: r.2,
        action: r.3,
        method: r.4,
        route: r.5,
        tool: r.6,
        status: u16::try_from(r.7).unwrap_or(0),
        outcome: r.8,
        error_code: r.9,
        detail: r.10,
        grant_id: Some(r.11).filter(|g| !g.is_empty()),
        portal_user_id: r.12,
        conversation_id: r.13,
    }
}
