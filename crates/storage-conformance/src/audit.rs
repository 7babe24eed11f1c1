//! The audit sink: one access record writes one audit row and one access row; a security record one
//! security row; a portal user's action one audit row naming the user. The audit log reads
//! back one tenant's rows, newest first, filtered and paged.

use super::*;

fn request_context(peer: Option<&str>) -> RequestContext {
    RequestContext {
        request_id: RequestId::generate(),
        received_at: t0() + Duration::microseconds(42),
        peer: peer.map(str::to_owned),
        resource: None,
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

pub async fn check_an_access_record_writes_one_audit_row_and_one_access_row(stores: &Stores) {
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
            "portal_user_id": null,
            "conversation_id": null,
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
            "portal_user_id": null,
            "conversation_id": null,
        })
    );
    assert_eq!(stores.backing.access_rows(ctx.request_id).await.len(), 1);
    assert!(stores
        .backing
        .security_rows(ctx.request_id)
        .await
        .is_empty());
}

pub async fn check_a_security_record_writes_one_security_row(stores: &Stores) {
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

pub async fn check_a_portal_record_writes_one_audit_row_naming_the_portal_user(stores: &Stores) {
    use domain::access::audit::PortalAuditRecord;
    use domain::ids::PortalUserId;
    use domain::portal::action::PortalAction;
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let user = PortalUserId::generate();
    let ctx = request_context(Some("198.51.100.7"));
    let mut record = PortalAuditRecord::concluded(
        &ctx,
        t.id,
        user,
        PortalAction::GrantRotated,
        Err(ErrorCode::Forbidden),
    )
    .on_grant(Some(g.id));
    record.detail = Some("links_per_window");
    stores.audit.record_portal(&record).await.unwrap();
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
            "surface": "portal",
            "action": "portal.grant.rotate",
            "method": "POST",
            "route": "/grants/{id}/rotate",
            "tool": null,
            "status": 403,
            "outcome": "refused",
            "error_code": "forbidden",
            "detail": "links_per_window",
            "portal_user_id": user.to_string(),
            "conversation_id": null,
        })
    );
    // Not a grant's own request: no access row.
    assert!(stores.backing.access_rows(ctx.request_id).await.is_empty());

    // An action on no grant: the grant column is empty, and reads back as none.
    let ctx = request_context(None);
    let record = PortalAuditRecord::concluded(&ctx, t.id, user, PortalAction::AuditRead, Ok(200));
    stores.audit.record_portal(&record).await.unwrap();
    assert_eq!(
        stores.backing.audit_rows(ctx.request_id).await[0]["grant_id"],
        ""
    );
    let read = stores
        .audit_log
        .audit_entries(&t.id, &AuditFilter::default(), 10)
        .await
        .unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(
        (
            read[0].grant_id.as_deref(),
            read[0].portal_user_id.as_deref()
        ),
        (None, Some(user.to_string().as_str()))
    );
    assert_eq!(read[0].action, "portal.audit.read");
    assert_eq!(read[1].grant_id.as_deref(), Some(g.id.to_string().as_str()));

    // A grant's request made on a portal user's behalf (the assistant's, later): both named,
    // and its access row as any other.
    let ctx = request_context(None);
    let on_behalf = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        t.id,
        g.id,
        Surface::Mcp,
        200,
        Outcome::Allowed,
    )
    .for_portal_user(user);
    stores.audit.record_access(&[on_behalf]).await.unwrap();
    let row = &stores.backing.audit_rows(ctx.request_id).await[0];
    assert_eq!(row["grant_id"], g.id.to_string());
    assert_eq!(row["portal_user_id"], user.to_string());
    assert_eq!(stores.backing.access_rows(ctx.request_id).await.len(), 1);
}

pub async fn check_the_audit_log_reads_back_one_tenants_rows_newest_first_filtered_and_paged(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE").await;
    let (a, _) = grant(stores, &t, "SE").await;
    let (b, _) = grant(stores, &t, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let (o, _) = grant(stores, &other, "SE").await;
    // 30 rows, one request each: grants a and b in turn; every third refused; GET then POST.
    for i in 0..30u32 {
        let ctx = request_context(None);
        let (g, op) = if i % 2 == 0 {
            (a.id, Operation::GetSubject)
        } else {
            (b.id, Operation::ResolveSubject)
        };
        let (status, outcome) = if i % 3 == 0 {
            (403, Outcome::Refused)
        } else {
            (200, Outcome::Allowed)
        };
        let row = AccessRecord::new(&ctx, op, t.id, g, Surface::Rest, status, outcome);
        stores.audit.record_access(&[row]).await.unwrap();
    }
    let ctx = request_context(None);
    let theirs = AccessRecord::new(
        &ctx,
        Operation::GetSubject,
        other.id,
        o.id,
        Surface::Rest,
        200,
        Outcome::Allowed,
    );
    stores.audit.record_access(&[theirs]).await.unwrap();

    let read = |filter: AuditFilter, limit: u32| {
        let log = stores.audit_log.clone();
        let tenant = t.id;
        async move { log.audit_entries(&tenant, &filter, limit).await.unwrap() }
    };
    let all = read(AuditFilter::default(), 100).await;
    assert_eq!(all.len(), 30, "one tenant's rows only");
    assert!(
        all.windows(2).all(|w| w[0].audit_id > w[1].audit_id),
        "newest first"
    );
    // (Rows written in one millisecond by different requests order by their ids' random part.)

    let by_grant = read(
        AuditFilter {
            grant: Some(a.id),
            ..AuditFilter::default()
        },
        100,
    )
    .await;
    assert_eq!(by_grant.len(), 15);
    assert!(by_grant
        .iter()
        .all(|r| r.grant_id == Some(a.id.to_string())));

    let refused_posts = read(
        AuditFilter {
            route: Some("/v1/subjects/resolve".into()),
            outcome: Some(Outcome::Refused),
            ..AuditFilter::default()
        },
        100,
    )
    .await;
    // Odd i that are multiples of 3: 3, 9, 15, 21, 27.
    assert_eq!(refused_posts.len(), 5, "{refused_posts:?}");
    assert!(refused_posts
        .iter()
        .all(|r| r.outcome == "refused" && r.status == 403 && r.method == "POST"));

    // Paging: pages of 12 cover every row once, in order.
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = read(
            AuditFilter {
                before: before.clone(),
                ..AuditFilter::default()
            },
            12,
        )
        .await;
        if page.is_empty() {
            break;
        }
        before = page.last().map(|r| r.audit_id.clone());
        seen.extend(page.into_iter().map(|r| r.audit_id));
    }
    let expected: Vec<String> = all.into_iter().map(|r| r.audit_id).collect();
    assert_eq!(seen, expected);
}
