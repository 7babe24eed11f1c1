//! The audit trail: one row per authenticated request that reached a route (the tenant's
//! audit log plus the grant's access log), and a separate security log for requests that
//! cannot be attributed to a grant.
//!
//! Rows name the route template and never the identifiers a request carried.

use crate::error::ErrorCode;
use crate::ids::{ClientId, ConversationId, GrantId, PortalUserId, RequestId, TenantId};
use crate::operation::{Operation, Surface};
use crate::portal::action::PortalAction;
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// What a surface knows about the request before any rule runs.
#[derive(Clone, Debug)]
pub struct RequestContext {
    pub request_id: RequestId,
    pub received_at: DateTime<Utc>,
    /// The peer address as the server saw it (for the security log).
    pub peer: Option<String>,
    /// The resource (RFC 8707) the request was made to, when a surface names one: a token
    /// minted for other resources is refused there.
    pub resource: Option<String>,
}

impl RequestContext {
    /// A fresh request id for a request received at `received_at` (from the service's clock).
    pub fn new(peer: Option<String>, received_at: DateTime<Utc>) -> Self {
        RequestContext {
            request_id: RequestId::generate(),
            received_at,
            peer,
            resource: None,
        }
    }
}

/// How a request ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Answered with data.
    Allowed,
    /// Refused by a guard: credential, tenant state, scope, country or permit.
    Refused,
    /// Admitted, but the work failed (not found, upstream unavailable, conflict, ...).
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allowed => "allowed",
            Outcome::Refused => "refused",
            Outcome::Failed => "failed",
        }
    }

    pub fn of_error(code: ErrorCode) -> Outcome {
        if code.is_guard_refusal() {
            Outcome::Refused
        } else {
            Outcome::Failed
        }
    }
}

/// One row of a tenant's audit log, and of the grant's access log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessRecord {
    pub tenant_id: TenantId,
    pub grant_id: GrantId,
    pub request_id: RequestId,
    pub occurred_at: DateTime<Utc>,
    pub surface: Surface,
    /// `GET /v1/subjects/{id}`, or `mcp.tool_call`.
    pub action: String,
    pub method: &'static str,
    pub route: &'static str,
    /// For `mcp.tool_call`: the tool's name.
    pub tool: Option<String>,
    pub status: u16,
    pub outcome: Outcome,
    pub error_code: Option<ErrorCode>,
    /// Why a guard refused (`token_expired`, `grant_revoked`, ...).
    pub detail: Option<&'static str>,
    /// The portal user a request was made for, beside the grant: none for a consumer's own
    /// request. Room for the assistant (`docs/decisions.md`, "The tenant portal"), whose tool
    /// calls run under a grant on a portal user's behalf.
    pub portal_user_id: Option<PortalUserId>,
    /// The assistant's conversation a tool call was made in (surface `assistant`).
    pub conversation_id: Option<ConversationId>,
}

impl AccessRecord {
    pub fn new(
        ctx: &RequestContext,
        op: Operation,
        tenant_id: TenantId,
        grant_id: GrantId,
        surface: Surface,
        status: u16,
        outcome: Outcome,
    ) -> Self {
        AccessRecord {
            tenant_id,
            grant_id,
            request_id: ctx.request_id,
            occurred_at: ctx.received_at,
            surface,
            action: op.action(),
            method: op.method(),
            route: op.route_template(),
            tool: None,
            status,
            outcome,
            error_code: None,
            detail: None,
            portal_user_id: None,
            conversation_id: None,
        }
    }

    /// The row of a request made on a portal user's behalf.
    pub fn for_portal_user(mut self, user: PortalUserId) -> Self {
        self.portal_user_id = Some(user);
        self
    }

    pub fn with_error(mut self, code: ErrorCode) -> Self {
        self.error_code = Some(code);
        self
    }

    pub fn with_detail(mut self, detail: &'static str) -> Self {
        self.detail = Some(detail);
        self
    }

    pub fn with_tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self
    }

    /// The row names the portal user and conversation the assistant acted for, if it did.
    pub fn on_behalf(mut self, on_behalf: Option<OnBehalf>) -> Self {
        if let Some(o) = on_behalf {
            self.portal_user_id = Some(o.portal_user);
            self.conversation_id = Some(o.conversation);
        }
        self
    }
}

/// One row a portal user's action writes to the tenant's audit log (surface `portal`; no row
/// of a grant's access log, which holds a grant's own requests). The actor is the portal
/// user; `grant_id` is the grant the action concerned, when it concerned one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortalAuditRecord {
    pub tenant_id: TenantId,
    pub portal_user_id: PortalUserId,
    pub grant_id: Option<GrantId>,
    pub request_id: RequestId,
    pub occurred_at: DateTime<Utc>,
    pub action: PortalAction,
    pub status: u16,
    pub outcome: Outcome,
    pub error_code: Option<ErrorCode>,
    /// Why it was refused, when no error code says it (`links_per_window`).
    pub detail: Option<&'static str>,
    /// The OAuth client an agent connection's step concerns (its `client_id`).
    pub oauth_client: Option<String>,
}

impl PortalAuditRecord {
    /// The row of `action`, ended with `result` (its status, or the error it failed with).
    pub fn concluded(
        ctx: &RequestContext,
        tenant_id: TenantId,
        portal_user_id: PortalUserId,
        action: PortalAction,
        result: Result<u16, ErrorCode>,
    ) -> PortalAuditRecord {
        let (status, outcome, error_code) = match result {
            Ok(status) => (status, Outcome::Allowed, None),
            Err(code) => (code.status(), Outcome::of_error(code), Some(code)),
        };
        PortalAuditRecord {
            tenant_id,
            portal_user_id,
            grant_id: None,
            request_id: ctx.request_id,
            occurred_at: ctx.received_at,
            action,
            status,
            outcome,
            error_code,
            detail: None,
            oauth_client: None,
        }
    }

    /// The row names the OAuth client an agent connection's step concerns.
    pub fn for_client(mut self, client: Option<&str>) -> Self {
        self.oauth_client = client.map(str::to_owned);
        self
    }

    pub fn on_grant(mut self, grant: Option<GrantId>) -> Self {
        self.grant_id = grant;
        self
    }
}

/// Which rows of a tenant's audit log to read, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Rows of this grant's requests (and portal actions on it).
    pub grant: Option<GrantId>,
    /// Rows of this route template (`GET /v1/subjects/{id}`, `POST /grants`).
    pub route: Option<String>,
    pub outcome: Option<Outcome>,
    /// Rows older than this row (the previous page's last `audit_id`).
    pub before: Option<String>,
}

/// One row of a tenant's audit log as it reads back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEntry {
    /// Time-ordered (a ULID): the paging cursor.
    pub audit_id: String,
    pub occurred_at: DateTime<Utc>,
    pub surface: String,
    pub action: String,
    pub method: String,
    pub route: String,
    pub tool: Option<String>,
    pub status: u16,
    pub outcome: String,
    pub error_code: Option<String>,
    pub detail: Option<String>,
    /// The grant whose request it was (or the grant a portal action concerned).
    pub grant_id: Option<String>,
    /// The portal user who acted, for a portal row (or for whom the assistant acted).
    pub portal_user_id: Option<String>,
    /// The assistant's conversation a tool call was made in.
    pub conversation_id: Option<String>,
}

impl Outcome {
    pub fn parse(s: &str) -> Option<Outcome> {
        [Outcome::Allowed, Outcome::Refused, Outcome::Failed]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// Why a request went to the security log.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SecurityReason {
    MissingToken,
    MalformedToken,
    BadSignature,
    /// A validly signed token naming a grant or tenant that does not exist.
    UnknownGrant,
    /// Client credentials naming no known client.
    UnknownClient,
    /// A portal sign-in asked for an address that is no active portal user's.
    UnknownPortalAddress,
    /// A portal sign-in link that did not sign in (any of the four link codes).
    PortalLinkRefused,
    /// An authorization code or refresh token naming no connection of this service.
    OAuthGrantRefused,
}

impl SecurityReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityReason::MissingToken => "missing_token",
            SecurityReason::MalformedToken => "malformed_token",
            SecurityReason::BadSignature => "bad_signature",
            SecurityReason::UnknownGrant => "unknown_grant",
            SecurityReason::UnknownClient => "unknown_client",
            SecurityReason::UnknownPortalAddress => "unknown_portal_address",
            SecurityReason::PortalLinkRefused => "portal_link_refused",
            SecurityReason::OAuthGrantRefused => "oauth_grant_refused",
        }
    }
}

/// One row of the security log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecurityRecord {
    pub request_id: RequestId,
    pub occurred_at: DateTime<Utc>,
    pub method: &'static str,
    pub route: &'static str,
    pub status: u16,
    pub reason: SecurityReason,
    /// Kept only when it has the shape of an id this service issues (never free text).
    pub client_id: Option<String>,
    pub peer: Option<String>,
}

impl SecurityRecord {
    pub fn new(ctx: &RequestContext, op: Operation, status: u16, reason: SecurityReason) -> Self {
        SecurityRecord {
            request_id: ctx.request_id,
            occurred_at: ctx.received_at,
            method: op.method(),
            route: op.route_template(),
            status,
            reason,
            client_id: None,
            peer: ctx.peer.clone(),
        }
    }

    pub fn with_client_id(mut self, client_id: &ClientId) -> Self {
        if client_id.is_well_formed() {
            self.client_id = Some(client_id.as_str().to_owned());
        }
        self
    }
}

/// Whom an audit row is filed under: the tenant, its grant, and the surface the request came
/// through.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Attribution {
    pub tenant_id: TenantId,
    pub grant_id: GrantId,
    pub surface: Surface,
    /// The portal user (and conversation) a grant's request was made for, by the assistant.
    pub on_behalf: Option<OnBehalf>,
}

/// Whom the assistant acts for: a portal user, in one of their conversations. Every audit row
/// of its tool calls names both, beside the grant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OnBehalf {
    pub portal_user: PortalUserId,
    pub conversation: ConversationId,
}

/// The audit policy: the one place that decides whether an outcome is recorded, in which log,
/// and as what. The gate, the token endpoint and the MCP transport all record through it.
///
/// - A request that cannot be attributed to a grant goes to the security log.
/// - A request attributed to a grant and refused by a guard (credential, tenant state) is
///   recorded once, by that guard, with the reason as `detail`.
/// - An admitted request is recorded once for its outcome, and so is each route invocation an
///   MCP tool call makes; a 400 validation failure is not recorded, except for the
///   `mcp.tool_call` row, which every tool call writes whatever its outcome.
pub struct AuditPolicy;

impl AuditPolicy {
    /// The security-log row of a request no grant can answer for.
    pub fn unattributable(
        ctx: &RequestContext,
        op: Operation,
        reason: SecurityReason,
    ) -> SecurityRecord {
        SecurityRecord::new(ctx, op, 401, reason)
    }

    /// The row of a request a guard refused before it reached the use case.
    pub fn refused(
        ctx: &RequestContext,
        op: Operation,
        who: Attribution,
        code: ErrorCode,
        detail: &'static str,
    ) -> AccessRecord {
        AccessRecord::new(
            ctx,
            op,
            who.tenant_id,
            who.grant_id,
            who.surface,
            code.status(),
            Outcome::Refused,
        )
        .with_error(code)
        .with_detail(detail)
        .on_behalf(who.on_behalf)
    }

    /// The row of an admitted request (or route invocation) that ended with `outcome`: the
    /// status it answered, or the error code it failed with. `None` when nothing is recorded.
    pub fn concluded(
        ctx: &RequestContext,
        op: Operation,
        who: Attribution,
        outcome: Result<u16, ErrorCode>,
        tool: Option<&str>,
    ) -> Option<AccessRecord> {
        let (status, result, code) = match outcome {
            Ok(status) => (status, Outcome::Allowed, None),
            Err(code) if code.status() == 400 && op != Operation::McpToolCall => return None,
            Err(code) => (code.status(), Outcome::of_error(code), Some(code)),
        };
        let mut record = AccessRecord::new(
            ctx,
            op,
            who.tenant_id,
            who.grant_id,
            who.surface,
            status,
            result,
        );
        record.error_code = code;
        if let Some(tool) = tool {
            record = record.with_tool(tool);
        }
        Some(record.on_behalf(who.on_behalf))
    }
}

/// The audit rows one request produced, kept until it is about to answer and then written
/// together in one durable write (an MCP tool call produces its `mcp.tool_call` row and a row
/// per route invocation).
#[derive(Debug, Default)]
pub struct AuditTrail {
    rows: Mutex<Vec<AccessRecord>>,
}

impl AuditTrail {
    pub fn new() -> AuditTrail {
        AuditTrail::default()
    }

    /// Adds a row (nothing when the policy records nothing).
    pub fn push(&self, row: Option<AccessRecord>) {
        if let Some(row) = row {
            self.lock().push(row);
        }
    }

    /// The rows noted so far, leaving the trail empty.
    pub fn take(&self) -> Vec<AccessRecord> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<AccessRecord>> {
        // A panic while holding the lock cannot leave a half-pushed row: keep the rows.
        self.rows.lock().unwrap_or_else(|e| e.into_inner())
    }
}
