//! The audit trail: one row per authenticated request that reached a route (the tenant's
//! audit log plus the grant's access log), and a separate security log for requests that
//! cannot be attributed to a grant.
//!
//! Rows name the route template and never the identifiers a request carried.

use crate::error::ErrorCode;
use crate::ids::{ClientId, GrantId, RequestId, TenantId};
use crate::operation::{Operation, Surface};
use chrono::{DateTime, Utc};

/// What a surface knows about the request before any rule runs.
#[derive(Clone, Debug)]
pub struct RequestContext {
    pub request_id: RequestId,
    pub received_at: DateTime<Utc>,
    /// The peer address as the server saw it (for the security log).
    pub peer: Option<String>,
}

impl RequestContext {
    pub fn new(peer: Option<String>) -> Self {
        RequestContext {
            request_id: RequestId::generate(),
            received_at: Utc::now(),
            peer,
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
        }
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
}

impl SecurityReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityReason::MissingToken => "missing_token",
            SecurityReason::MalformedToken => "malformed_token",
            SecurityReason::BadSignature => "bad_signature",
            SecurityReason::UnknownGrant => "unknown_grant",
            SecurityReason::UnknownClient => "unknown_client",
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
