//! `AuditSink` on PostgreSQL: the audit and access rows of one request in one transaction,
//! committed before the call returns (and so before the response is sent).

use crate::convert::{backend, TxError};
use crate::schema::{access_log, audit_log, security_log};
use crate::Database;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::audit::{AccessRecord, SecurityRecord};
use domain::ports::{AuditSink, StoreError};
use ulid::Ulid;

#[async_trait]
impl AuditSink for Database {
    async fn record_access(&self, r: &AccessRecord) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = r.tenant_id.to_string();
        let grant_id = r.grant_id.to_string();
        let request_id = r.request_id.to_string();
        let error_code = r.error_code.map(|c| c.as_str());
        conn.transaction(async |conn| -> Result<(), TxError> {
            diesel::insert_into(audit_log::table)
                .values((
                    audit_log::tenant_id.eq(&tenant_id),
                    audit_log::audit_id.eq(Ulid::generate().to_string()),
                    audit_log::grant_id.eq(&grant_id),
                    audit_log::request_id.eq(&request_id),
                    audit_log::occurred_at.eq(r.occurred_at),
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
                .execute(conn)
                .await?;
            diesel::insert_into(access_log::table)
                .values((
                    access_log::tenant_id.eq(&tenant_id),
                    access_log::grant_id.eq(&grant_id),
                    access_log::access_id.eq(Ulid::generate().to_string()),
                    access_log::request_id.eq(&request_id),
                    access_log::occurred_at.eq(r.occurred_at),
                    access_log::surface.eq(r.surface.as_str()),
                    access_log::method.eq(r.method),
                    access_log::route.eq(r.route),
                    access_log::tool.eq(r.tool.as_deref()),
                    access_log::status.eq(i32::from(r.status)),
                    access_log::outcome.eq(r.outcome.as_str()),
                    access_log::error_code.eq(error_code),
                ))
                .execute(conn)
                .await?;
            Ok(())
        })
        .await
        .map_err(StoreError::from)
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
