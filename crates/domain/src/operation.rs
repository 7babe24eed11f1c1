//! The operations of the interface, each with the REST route template that names it in
//! audit rows. MCP tools map onto these, so an audit row names the same route whichever
//! surface the request came through.

use crate::scope::Scope;

/// Which surface a request arrived on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    Rest,
    Mcp,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Rest => "rest",
            Surface::Mcp => "mcp",
        }
    }
}

/// One operation of the interface. The route template is what audit rows record (never the
/// identifiers a request carried).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    IssueToken,
    ResolveSubject,
    GetSubject,
    GetCompany,
    GetDocument,
    /// A `POST /mcp` message other than `tools/call` (`initialize`, `tools/list`, `ping`, ...).
    McpRequest,
    /// A call of `POST /mcp` `tools/call`; the tool's own route invocations are audited too.
    McpToolCall,
}

impl Operation {
    pub fn method(self) -> &'static str {
        match self {
            Operation::IssueToken
            | Operation::ResolveSubject
            | Operation::McpRequest
            | Operation::McpToolCall => "POST",
            Operation::GetSubject | Operation::GetCompany | Operation::GetDocument => "GET",
        }
    }

    pub fn route_template(self) -> &'static str {
        match self {
            Operation::IssueToken => "/oauth/token",
            Operation::ResolveSubject => "/v1/subjects/resolve",
            Operation::GetSubject => "/v1/subjects/{id}",
            Operation::GetCompany => "/v1/companies/{orgnr}",
            Operation::GetDocument => "/v1/documents/{id}",
            Operation::McpRequest | Operation::McpToolCall => "/mcp",
        }
    }

    /// The audit action name: `mcp.tool_call` for tool calls, else `METHOD template`.
    pub fn action(self) -> String {
        match self {
            Operation::McpToolCall => "mcp.tool_call".to_owned(),
            other => format!("{} {}", other.method(), other.route_template()),
        }
    }

    /// The scopes that open the operation: holding any one of them is enough. The use case
    /// checks these; the MCP tool list is derived from them, so the two cannot drift.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Operation::ResolveSubject => &[Scope::KybRead, Scope::KycRead],
            Operation::GetSubject | Operation::GetCompany | Operation::GetDocument => {
                &[Scope::KybRead]
            }
            // Open to every admitted caller (the token endpoint authenticates by credentials).
            Operation::IssueToken | Operation::McpRequest | Operation::McpToolCall => &[],
        }
    }

    /// The status of a successful answer.
    pub fn success_status(self) -> u16 {
        200
    }
}
