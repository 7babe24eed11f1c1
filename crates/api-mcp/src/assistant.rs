//! The portal assistant's tools: this crate's tool table, run for the assistant's caller
//! exactly as `tools/call` runs it (the same handlers, argument checks, bodies, scopes and
//! route rows), offered only where the assistant may act (`domain::assistant::bounds`).

use crate::tools::{catalog, find, Ctx};
use api_core::bodies;
use async_trait::async_trait;
use domain::access::audit::AuditTrail;
use domain::access::caller::Caller;
use domain::access::scope::ScopeSet;
use domain::assistant::bounds;
use domain::assistant::model::ToolSpec;
use domain::assistant::ports::{AssistantTools, Resolved, ToolAnswer};
use domain::operation::Operation;
use domain::services::Services;
use domain::subjects::identifier::shape::holds_personal_number;
use domain::subjects::identifier::Identifier;
use domain::subjects::subject::ResolveRequest;
use domain::{ErrorCode, Failure};
use serde_json::{json, Value};
use std::sync::Arc;

/// Tools never offered to the assistant whatever the scopes: their argument is a personal
/// identity number by definition (the person's message resolves numbers instead).
const TAKES_A_PERSONAL_NUMBER: [&str; 1] = ["lookup_person"];

/// The tool table as the assistant's port.
pub struct AssistantToolLayer {
    services: Arc<Services>,
}

impl AssistantToolLayer {
    pub fn new(services: Arc<Services>) -> AssistantToolLayer {
        AssistantToolLayer { services }
    }
}

/// Whether a tool input (JSON text) holds a personal number in any leaf; unparsable input
/// is judged on its text.
fn input_holds_number(input: &str) -> bool {
    match serde_json::from_str::<Value>(input) {
        Ok(value) => leaf_holds_number(&value),
        Err(_) => holds_personal_number(input),
    }
}

/// Whether any leaf of `value` (a string, a number, a key) holds a personal number.
fn leaf_holds_number(value: &Value) -> bool {
    match value {
        Value::String(s) => holds_personal_number(s),
        Value::Number(n) => holds_personal_number(&n.to_string()),
        Value::Array(items) => items.iter().any(leaf_holds_number),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| holds_personal_number(k) || leaf_holds_number(v)),
        Value::Bool(_) | Value::Null => false,
    }
}

#[async_trait(?Send)]
impl AssistantTools for AssistantToolLayer {
    fn offered(&self, scopes: &ScopeSet) -> Vec<ToolSpec> {
        catalog()
            .iter()
            .filter(|t| {
                t.listed_for(scopes)
                    && t.operations().iter().all(|op| bounds::may_run(*op))
                    && !TAKES_A_PERSONAL_NUMBER.contains(&t.name())
            })
            .map(|t| {
                let d = t.descriptor();
                ToolSpec {
                    name: t.name().to_owned(),
                    description: d["description"].as_str().unwrap_or_default().to_owned(),
                    input_schema: d["inputSchema"].to_string(),
                }
            })
            .collect()
    }

    fn input_holds_personal_number(&self, input: &str) -> bool {
        input_holds_number(input)
    }

    fn failure_content(&self, failure: &Failure) -> String {
        json!({"error": {"code": failure.code.as_str(), "message": failure.message}}).to_string()
    }

    async fn call(
        &self,
        caller: &Caller,
        trail: &AuditTrail,
        name: &str,
        input: &str,
    ) -> Result<ToolAnswer, Failure> {
        let tool = find(name).ok_or_else(|| {
            Failure::new(ErrorCode::Forbidden, "not a tool offered here".to_owned())
        })?;
        let arguments: Value = if input.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(input).map_err(|_| {
                Failure::bad_request("input", "the tool call's arguments are not a JSON object")
            })?
        };
        let cx = Ctx {
            services: &self.services,
            caller,
            trail,
        };
        let result = tool.call(cx, arguments).await?;
        let summary = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let content = result["content"][1]["text"]
            .as_str()
            .unwrap_or("{}")
            .to_owned();
        let cited = serde_json::from_str::<Value>(&content)
            .map(|body| api_core::evidence::citations(&body))
            .unwrap_or_default();
        Ok(ToolAnswer {
            content,
            summary,
            citations: cited,
        })
    }

    async fn resolve(
        &self,
        caller: &Caller,
        trail: &AuditTrail,
        identifier: &Identifier,
    ) -> Result<Resolved, Failure> {
        let request = ResolveRequest {
            id_type: identifier.id_type().as_str().to_owned(),
            value: identifier.expose_wire(),
            customer_ref: None,
        };
        let cx = Ctx {
            services: &self.services,
            caller,
            trail,
        };
        let resolved = cx
            .route(Operation::ResolveSubject, move |s, c| async move {
                bodies::resolve_person(s, &c, request).await
            })
            .await?;
        Ok(Resolved {
            identifier_ref: resolved.value.identifier_ref,
            subject_id: resolved.value.subject_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_in_any_leaf_is_found() {
        crate::install_schemes();
        // Skatteverket's test number in a string, as a JSON number, escaped, and as a key.
        for input in [
            r#"{"ref":"195704133106"}"#,
            r#"{"n":195704133106}"#,
            r#"{"ref":"\u0031\u0039\u0035\u0037\u0030\u0034\u0031\u0033\u0033\u0031\u0030\u0036"}"#,
            r#"{"195704133106":true}"#,
            r#"{"a":[{"b":"570413-3106"}]}"#,
            r#"{"cut": "19570413-3106"#,
        ] {
            assert!(input_holds_number(input), "{input}");
        }
        assert!(!input_holds_number(r#"{"orgnr":"5560021361"}"#));
    }
}
