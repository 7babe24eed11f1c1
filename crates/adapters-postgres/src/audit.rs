//! `AuditSink` on PostgreSQL: the audit and access rows of a request in one statement (one
//! transaction, one round trip), committed before the call returns and so before the response
//! is sent; on a worker thread, the rows of concurrent requests share one statement (group
//! commit). An audit row and its access row share their id.

use crate::convert::backend;
use crate::schema::security_log;
use crate::statements::AuditInsert;
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::access::audit::{AccessRecord, SecurityRecord};
use domain::access::ports::AuditSink;
use domain::error::StoreError;
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
}
