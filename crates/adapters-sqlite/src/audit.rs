//! `AuditSink` on SQLite: a request's audit and access rows committed (and, with
//! `synchronous = FULL`, on disk) before the call returns and so before the response is
//! sent. An audit row and its access row share their id.
//!
//! The trail's file has a write lock of its own and is written on a connection of its own
//! ([`Database::write_trail`]): an answer never waits for a data write to commit.
//!
//! Group commit: every answered request writes its rows, and SQLite has one writer and one
//! flush per commit, so requests arriving together share a transaction. A request queues its
//! rows and waits for the trail's turn; whoever gets the turn writes everything queued by
//! then in one transaction and tells each request how its rows fared, so a request's answer
//! still waits for its own rows to be durable. Should the shared transaction fail, each
//! request's rows are written alone, so one request's failure is never another's.

use crate::convert::{micros, time, TxError};
use crate::database::PendingAudit;
use crate::schema::{access_log, audit_log, security_log};
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;
use domain::access::audit::{
    AccessRecord, AuditEntry, AuditFilter, PortalAuditRecord, SecurityRecord,
};
use domain::access::ports::{AuditLog, AuditSink};
use domain::error::StoreError;
use domain::ids::TenantId;
use ulid::Ulid;

#[async_trait]
impl AuditSink for Database {
    async fn record_access(&self, records: &[AccessRecord]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let (done, mut outcome) = tokio::sync::oneshot::channel();
        self.audit_queue().push(PendingAudit {
            records: records.to_vec(),
            done,
        });
        // Either the turn in progress writes these rows too (answered then), or this request
        // takes the next turn and writes what is queued by then.
        let turn = tokio::select! {
            biased;
            written = &mut outcome => return answer(written),
            turn = self.turn(crate::database::File::Trail) => turn,
        };
        // Everything queued by now, this request's rows included unless an earlier turn
        // wrote them already.
        let batch = std::mem::take(&mut *self.audit_queue());
        if !batch.is_empty() {
            let requests: Vec<Vec<AccessRecord>> =
                batch.iter().map(|p| p.records.clone()).collect();
            let together = self
                .write_in_turn(&turn, move |conn| {
                    requests.iter().try_for_each(|rows| insert_rows(conn, rows))
                })
                .await;
            for pending in batch {
                let result = match &together {
                    Ok(()) => Ok(()),
                    Err(_) => {
                        let rows = pending.records;
                        self.write_in_turn(&turn, move |conn| insert_rows(conn, &rows))
                            .await
                    }
                };
                // A request that stopped waiting is gone; its rows are written regardless.
                let _ = pending.done.send(result);
            }
        }
        drop(turn);
        answer(outcome.await)
    }

    async fn record_portal(&self, r: &PortalAuditRecord) -> Result<(), StoreError> {
        let r = r.clone();
        self.write_trail(move |conn| {
            diesel::insert_into(audit_log::table)
                .values((
                    audit_log::tenant_id.eq(r.tenant_id.to_string()),
                    audit_log::audit_id.eq(Ulid::generate().to_string()),
                    audit_log::grant_id.eq(r.grant_id.map(|g| g.to_string()).unwrap_or_default()),
                    audit_log::request_id.eq(r.request_id.to_string()),
                    audit_log::occurred_at.eq(micros(r.occurred_at)),
                    audit_log::surface.eq(domain::operation::Surface::Portal.as_str()),
                    audit_log::action.eq(r.action.action()),
                    audit_log::method.eq(r.action.method()),
                    audit_log::route.eq(r.action.route()),
                    audit_log::status.eq(i32::from(r.status)),
                    audit_log::outcome.eq(r.outcome.as_str()),
                    audit_log::error_code.eq(r.error_code.map(|c| c.as_str())),
                    audit_log::detail.eq(r.detail),
                    audit_log::portal_user_id.eq(r.portal_user_id.to_string()),
                    audit_log::oauth_client.eq(r.oauth_client.clone()),
                ))
                .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn record_security(&self, r: &SecurityRecord) -> Result<(), StoreError> {
        let r = r.clone();
        self.write_trail(move |conn| {
            diesel::insert_into(security_log::table)
                .values((
                    security_log::event_id.eq(Ulid::generate().to_string()),
                    security_log::request_id.eq(r.request_id.to_string()),
                    security_log::occurred_at.eq(micros(r.occurred_at)),
                    security_log::method.eq(r.method),
                    security_log::route.eq(r.route),
                    security_log::status.eq(i32::from(r.status)),
                    security_log::reason.eq(r.reason.as_str()),
                    security_log::client_id.eq(r.client_id.as_deref()),
                    security_log::peer.eq(r.peer.as_deref()),
                ))
                .execute(conn)?;
            Ok(())
        })
        .await
    }
}

#[async_trait]
impl AuditLog for Database {
    async fn audit_entries(
        &self,
        tenant: &TenantId,
        filter: &AuditFilter,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let (tenant, filter) = (tenant.to_string(), filter.clone());
        self.read(move |conn| {
            let mut query = audit_log::table
                .filter(audit_log::tenant_id.eq(tenant))
                .into_boxed();
            if let Some(grant) = filter.grant {
                query = query.filter(audit_log::grant_id.eq(grant.to_string()));
            }
            if let Some(route) = filter.route {
                query = query.filter(audit_log::route.eq(route));
            }
            if let Some(outcome) = filter.outcome {
                query = query.filter(audit_log::outcome.eq(outcome.as_str()));
            }
            if let Some(before) = filter.before {
                query = query.filter(audit_log::audit_id.lt(before));
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
                .load(conn)?;
            rows.into_iter()
                .map(|r| {
                    Ok(AuditEntry {
                        audit_id: r.0,
                        occurred_at: time(r.1)?,
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
                    })
                })
                .collect()
        })
        .await
    }
}

type EntryRow = (
    String,
    i64,
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

/// How a request's rows fared, from the turn that wrote them.
fn answer(
    written: Result<Result<(), StoreError>, tokio::sync::oneshot::error::RecvError>,
) -> Result<(), StoreError> {
    written.unwrap_or_else(|_| {
        Err(StoreError::Backend(
            "the audit group commit ended without an answer".into(),
        ))
    })
}

/// Inserts one request's audit and access rows.
fn insert_rows(conn: &mut SqliteConnection, records: &[AccessRecord]) -> Result<(), TxError> {
    // Monotonic within the request: the ids order its rows as they were noted.
    let mut ids = ulid::Generator::new();
    for r in records {
        let id = ids
            .generate()
            .map_err(|e| StoreError::Backend(e.to_string()))?
            .to_string();
        let (tenant_id, grant_id) = (r.tenant_id.to_string(), r.grant_id.to_string());
        let request_id = r.request_id.to_string();
        let error_code = r.error_code.map(|c| c.as_str());
        diesel::insert_into(audit_log::table)
            .values((
                audit_log::tenant_id.eq(&tenant_id),
                audit_log::audit_id.eq(&id),
                audit_log::grant_id.eq(&grant_id),
                audit_log::request_id.eq(&request_id),
                audit_log::occurred_at.eq(micros(r.occurred_at)),
                audit_log::surface.eq(r.surface.as_str()),
                audit_log::action.eq(&r.action),
                audit_log::method.eq(r.method),
                audit_log::route.eq(r.route),
                audit_log::tool.eq(r.tool.as_deref()),
                audit_log::status.eq(i32::from(r.status)),
                audit_log::outcome.eq(r.outcome.as_str()),
                audit_log::error_code.eq(error_code),
                audit_log::detail.eq(r.detail),
                audit_log::portal_user_id.eq(r.portal_user_id.map(|u| u.to_string())),
                audit_log::conversation_id.eq(r.conversation_id.map(|c| c.to_string())),
            ))
            .execute(conn)?;
        diesel::insert_into(access_log::table)
            .values((
                access_log::tenant_id.eq(&tenant_id),
                access_log::grant_id.eq(&grant_id),
                access_log::access_id.eq(&id),
                access_log::request_id.eq(&request_id),
                access_log::occurred_at.eq(micros(r.occurred_at)),
                access_log::surface.eq(r.surface.as_str()),
                access_log::method.eq(r.method),
                access_log::route.eq(r.route),
                access_log::tool.eq(r.tool.as_deref()),
                access_log::status.eq(i32::from(r.status)),
                access_log::outcome.eq(r.outcome.as_str()),
                access_log::error_code.eq(error_code),
            ))
            .execute(conn)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::tests::scratch;
    use diesel::connection::SimpleConnection;
    use diesel::sql_types::BigInt;
    use domain::access::audit::Outcome;
    use domain::ids::{GrantId, RequestId, TenantId};
    use domain::operation::Surface;

    fn rows(action: &str, n: usize) -> Vec<AccessRecord> {
        let (tenant_id, grant_id, request_id) = (
            TenantId::generate(),
            GrantId::generate(),
            RequestId::generate(),
        );
        (0..n)
            .map(|_| AccessRecord {
                tenant_id,
                grant_id,
                request_id,
                occurred_at: chrono::Utc::now(),
                surface: Surface::Rest,
                action: action.to_owned(),
                method: "GET",
                route: "/v1/companies/{orgnr}",
                tool: None,
                status: 200,
                outcome: Outcome::Allowed,
                error_code: None,
                detail: None,
                portal_user_id: None,
                conversation_id: None,
            })
            .collect()
    }

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    async fn count(db: &Database, table: &'static str, condition: String) -> i64 {
        db.read(move |conn| {
            let c: Count = diesel::sql_query(format!(
                "SELECT COUNT(*) AS n FROM {table} WHERE {condition}"
            ))
            .get_result(conn)?;
            Ok(c.n)
        })
        .await
        .unwrap()
    }

    /// Requests arriving together share commits, each still answered only once its own rows
    /// are in; a request whose rows cannot be written fails alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_requests_share_commits_and_fail_alone() {
        let (_dir, db) = scratch();
        // A row the store refuses, standing for any failure of one request's rows.
        db.write_trail(|conn| {
            conn.batch_execute(
                "CREATE TRIGGER refuse_poison BEFORE INSERT ON audit_log \
                 WHEN NEW.action = 'poison' BEGIN SELECT RAISE(ABORT, 'refused'); END;",
            )?;
            Ok(())
        })
        .await
        .unwrap();
        let mut tasks = Vec::new();
        for i in 0..64 {
            let db = db.clone();
            let action = if i == 17 {
                "poison"
            } else {
                "GET /v1/companies/{orgnr}"
            };
            let records = rows(action, 1 + i % 3);
            tasks.push(tokio::spawn(async move {
                let result = db.record_access(&records).await;
                // Read the moment the request is answered.
                let request = records[0].request_id.to_string();
                let stored = count(&db, "audit_log", format!("request_id = '{request}'")).await;
                let accessed = count(&db, "access_log", format!("request_id = '{request}'")).await;
                (records, result, stored, accessed)
            }));
        }
        let mut written = 0;
        for task in tasks {
            let (records, result, stored, accessed) = task.await.unwrap();
            if records[0].action == "poison" {
                assert!(result.is_err(), "the refused request fails");
                assert_eq!((stored, accessed), (0, 0), "nothing of it is kept");
            } else {
                result.expect("every other request's rows are written");
                assert_eq!(
                    stored,
                    records.len() as i64,
                    "its audit rows, when answered"
                );
                assert_eq!(accessed, records.len() as i64, "and its access rows");
                written += records.len() as i64;
            }
        }
        assert_eq!(count(&db, "audit_log", "true".into()).await, written);
        assert!(db.audit_queue().is_empty(), "nothing left waiting");
    }
}
