//! `AuditSink` on SQLite: a request's audit and access rows in one write transaction,
//! committed (and, with `synchronous = FULL`, on disk) before the call returns and so before
//! the response is sent. An audit row and its access row share their id.

use crate::convert::micros;
use crate::schema::{access_log, audit_log, security_log};
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use domain::access::audit::{AccessRecord, SecurityRecord};
use domain::access::ports::AuditSink;
use domain::error::StoreError;
use ulid::Ulid;

#[async_trait]
impl AuditSink for Database {
    async fn record_access(&self, records: &[AccessRecord]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let records = records.to_vec();
        self.write(move |conn| {
            // Monotonic within the request: the ids order its rows as they were noted.
            let mut ids = ulid::Generator::new();
            for r in &records {
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
        })
        .await
    }

    async fn record_security(&self, r: &SecurityRecord) -> Result<(), StoreError> {
        let r = r.clone();
        self.write(move |conn| {
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
