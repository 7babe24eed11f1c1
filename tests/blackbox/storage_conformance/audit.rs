//! The audit sink: one access record writes one audit row and one access row; a security record one
//! security row.

use super::*;

fn request_context(peer: Option<&str>) -> RequestContext {
    RequestContext {
        request_id: RequestId::generate(),
        received_at: t0() + Duration::microseconds(42),
        peer: peer.map(str::to_owned),
    }
}

/// Takes the generated row id out of each row, checking it is present and unique.
fn take_ids(rows: &mut [Value], field: &str) {
    let mut seen = std::collections::HashSet::new();
    for row in rows.iter_mut() {
        let id = row
            .as_object_mut()
            .unwrap()
            .remove(field)
            .unwrap_or_else(|| panic!("no {field} in {row}"));
        let id = id.as_str().unwrap_or_default().to_owned();
        assert!(!id.is_empty(), "{field} is set");
        assert!(seen.insert(id), "{field} is unique");
    }
}

pub(super) async fn check_an_access_record_writes_one_audit_row_and_one_access_row(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let ctx = request_context(Some("198.51.100.4"));
    let record = AccessRecord::new(
        &ctx,
        Operation::McpToolCall,
        t.id,
        g.id,
        Surface::Mcp,
        403,
        Outcome::Refused,
    )
    .with_error(ErrorCode::TenantPending)
    .with_detail("tenant_pending")
    .with_tool("resolve_subject");
    stores
        .audit
        .record_access(std::slice::from_ref(&record))
        .await
        .unwrap();

    let mut audit = stores.backing.audit_rows(ctx.request_id).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    take_ids(&mut audit, "audit_id");
    assert_eq!(
        audit[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "mcp",
            "action": "mcp.tool_call",
            "method": "POST",
            "route": "/mcp",
            "tool": "resolve_subject",
            "status": 403,
            "outcome": "refused",
            "error_code": "tenant_pending",
            "detail": "tenant_pending",
        })
    );
    let mut access = stores.backing.access_rows(ctx.request_id).await;
    assert_eq!(access.len(), 1, "{access:?}");
    take_ids(&mut access, "access_id");
    assert_eq!(
        access[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "mcp",
            "method": "POST",
            "route": "/mcp",
            "tool": "resolve_subject",
            "status": 403,
            "outcome": "refused",
            "error_code": "tenant_pending",
        })
    );

    // An allowed request: no tool, no error, no detail.
    let ctx = request_context(None);
    let allowed = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        t.id,
        g.id,
        Surface::Rest,
        200,
        Outcome::Allowed,
    );
    stores
        .audit
        .record_access(std::slice::from_ref(&allowed))
        .await
        .unwrap();
    let mut audit = stores.backing.audit_rows(ctx.request_id).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    take_ids(&mut audit, "audit_id");
    assert_eq!(
        audit[0],
        json!({
            "tenant_id": t.id.to_string(),
            "grant_id": g.id.to_string(),
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "surface": "rest",
            "action": "GET /v1/subjects/{id}",
            "method": "GET",
            "route": "/v1/subjects/{id}",
            "tool": null,
            "status": 200,
            "outcome": "allowed",
            "error_code": null,
            "detail": null,
        })
    );
    assert_eq!(stores.backing.access_rows(ctx.request_id).await.len(), 1);
    assert!(stores
        .backing
        .security_rows(ctx.request_id)
        .await
        .is_empty());
}

pub(super) async fn check_a_security_record_writes_one_security_row(stores: &Stores) {
    let ctx = request_context(Some("203.0.113.9"));
    let client = ClientId::generate();
    let record = SecurityRecord::new(
        &ctx,
        Operation::IssueToken,
        401,
        SecurityReason::UnknownClient,
    )
    .with_client_id(&client);
    stores.audit.record_security(&record).await.unwrap();
    let mut rows = stores.backing.security_rows(ctx.request_id).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    take_ids(&mut rows, "event_id");
    assert_eq!(
        rows[0],
        json!({
            "request_id": ctx.request_id.to_string(),
            "occurred_at": utc(ctx.received_at),
            "method": "POST",
            "route": "/oauth/token",
            "status": 401,
            "reason": "unknown_client",
            "client_id": client.as_str(),
            "peer": "203.0.113.9",
        })
    );
    assert!(stores.backing.audit_rows(ctx.request_id).await.is_empty());

    let ctx = request_context(None);
    let record = SecurityRecord::new(
        &ctx,
        Operation::GetSubject,
        401,
        SecurityReason::MissingToken,
    );
    stores.audit.record_security(&record).await.unwrap();
    let mut rows = stores.backing.security_rows(ctx.request_id).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    take_ids(&mut rows, "event_id");
    assert_eq!(rows[0]["reason"], "missing_token");
    assert_eq!(rows[0]["route"], "/v1/subjects/{id}");
    assert_eq!(rows[0]["client_id"], Value::Null);
    assert_eq!(rows[0]["peer"], Value::Null);
}
