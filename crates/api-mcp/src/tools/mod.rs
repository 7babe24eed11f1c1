//! The tool table: every MCP tool, each calling the very same body function as its REST route
//! (`api_core::bodies`, with typed arguments), through the same gate, so scopes, countries and
//! tenant isolation cannot differ between the surfaces. This file holds what every tool
//! shares (the [`Tool`] type, the catalog, the shape of results); each capability's tools are
//! in a file of their own (`companies`, `persons`, `subjects`, `monitoring`, `screening`,
//! `webhooks`), with their arguments, entries, handlers and tests.
//!
//! Adding a tool for a route that exists, in its capability's file: an arguments struct
//! (`Deserialize + JsonSchema`, its doc comments become the input schema's descriptions), a
//! handler of a few lines that runs the route's body function through [`Ctx::route`], a
//! summary function in `summary.rs`, and one [`Tool::new`] entry in the file's `tools()`
//! (plus `.with_output::<Body>()` when the spec declares an output schema).

use crate::{args, schema};
use api_core::bodies::{self, Body};
use api_core::dto::usage::QuotaDto;
use domain::access::audit::AuditTrail;
use domain::access::caller::Caller;
use domain::access::scope::ScopeSet;
use domain::operation::Operation;
use domain::services::Services;
use domain::usage::quota::Limit;
use domain::Failure;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

/// What a tool handler returns: the REST body (or composition) it produced.
pub type Fut<'a> = Pin<Box<dyn Future<Output = Result<Body, Failure>> + 'a>>;

type Handler = Box<dyn for<'a> Fn(Ctx<'a>, Value) -> Fut<'a> + Send + Sync>;

/// What a tool handler works with: the use cases, the admitted caller, and the request's
/// audit trail (where each route invocation notes its row).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub services: &'a Services,
    pub caller: &'a Caller,
    pub trail: &'a AuditTrail,
}

impl<'a> Ctx<'a> {
    /// One invocation of a REST route's use case, audited as that route (surface `mcp`)
    /// exactly as the REST handler's invocation is.
    pub async fn route<T, F, R>(self, op: Operation, use_case: F) -> Result<T, Failure>
    where
        F: FnOnce(&'a Services, Caller) -> R,
        R: Future<Output = Result<T, Failure>>,
    {
        let services = self.services;
        services
            .gate
            .run(self.trail, self.caller, op, move |caller| {
                use_case(services, caller)
            })
            .await
    }
}

/// Whether a tool changes anything: drives `readOnlyHint` and `idempotentHint` (the spec
/// sets both alike on every tool).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Read,
    Write,
}

/// The fixed facts of one tool.
pub struct Spec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The interface operations the tool runs. It is listed for a caller whom every one of
    /// them lists it for (`Operation::listed_for`, derived from `Operation::scopes`, the
    /// scopes the use cases check).
    pub operations: &'static [Operation],
    pub effect: Effect,
    /// True when the tool may ask an upstream register (data from outside the service).
    pub open_world: bool,
    /// The one-line summary of `content[0]`, read off the body.
    pub summary: fn(&Value) -> String,
}

/// One registered tool.
pub struct Tool {
    pub spec: Spec,
    input_schema: Map<String, Value>,
    output_schema: Option<Map<String, Value>>,
    descriptor: Value,
    handler: Handler,
}

impl Tool {
    /// A tool whose arguments are `A` (its `inputSchema` is generated from `A`, and arguments
    /// are checked against that very schema before `handler` sees them).
    pub fn new<A>(spec: Spec, handler: for<'a> fn(Ctx<'a>, A) -> Fut<'a>) -> Tool
    where
        A: DeserializeOwned + JsonSchema + 'static,
    {
        let input_schema = schema::input::<A>();
        let checked = input_schema.clone();
        let handler = erase(
            move |cx, arguments| match args::parse::<A>(&checked, arguments) {
                Ok(parsed) => handler(cx, parsed),
                Err(failure) => Box::pin(async move { Err(failure) }),
            },
        );
        let mut tool = Tool {
            spec,
            input_schema,
            output_schema: None,
            descriptor: Value::Null,
            handler,
        };
        tool.describe();
        tool
    }

    /// Declares the `outputSchema`: the REST body type `T` plus `summary`.
    pub fn with_output<T: JsonSchema>(mut self) -> Tool {
        let mut output = schema::output::<T>();
        if !self.metered_by().is_empty() {
            schema::add_quota(&mut output);
        }
        self.output_schema = Some(output);
        self.describe();
        self
    }

    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The operations (REST routes) the tool runs.
    pub fn operations(&self) -> &'static [Operation] {
        self.spec.operations
    }

    /// Whether `tools/list` shows the tool to a caller holding `scopes`.
    pub fn listed_for(&self, scopes: &ScopeSet) -> bool {
        self.spec.operations.iter().all(|op| op.listed_for(scopes))
    }

    pub fn has_output_schema(&self) -> bool {
        self.output_schema.is_some()
    }

    /// The tool's entry in `tools/list`.
    pub fn descriptor(&self) -> &Value {
        &self.descriptor
    }

    /// Runs the tool and shapes its `tools/call` result. `Err` is the API failure to relay
    /// as an `isError` result (see [`error_result`]).
    pub async fn call(&self, cx: Ctx<'_>, arguments: Value) -> Result<Value, Failure> {
        let body = (self.handler)(cx, arguments).await?;
        let mut result = success_result(&body, self.spec.summary)?;
        // A metered tool's answer states the caller's standing against its daily limits
        // (the numbers the REST route's `RateLimit` fields carry), read after it spent.
        let limits = self.metered_by();
        if let Some(lines) = bodies::quota(cx.services, cx.caller, &limits).await {
            let quota: Vec<QuotaDto> = lines.iter().map(QuotaDto::from).collect();
            result["structuredContent"]["quota"] = json!(quota);
        }
        Ok(result)
    }

    /// The daily limits the tool's operations spend, each once.
    pub fn metered_by(&self) -> Vec<Limit> {
        let mut limits: Vec<Limit> = Vec::new();
        for limit in self.spec.operations.iter().flat_map(|op| op.metered_by()) {
            if !limits.contains(limit) {
                limits.push(*limit);
            }
        }
        limits
    }

    fn describe(&mut self) {
        let read = self.spec.effect == Effect::Read;
        let mut descriptor = json!({
            "name": self.spec.name,
            "title": self.spec.title,
            "description": self.spec.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "title": self.spec.title,
                "readOnlyHint": read,
                "destructiveHint": false,
                "idempotentHint": read,
                "openWorldHint": self.spec.open_world,
            },
        });
        if let Some(output) = &self.output_schema {
            descriptor["outputSchema"] = Value::Object(output.clone());
        }
        self.descriptor = descriptor;
    }
}

/// Pins a closure to the higher-ranked handler signature.
fn erase<F>(f: F) -> Handler
where
    F: for<'a> Fn(Ctx<'a>, Value) -> Fut<'a> + Send + Sync + 'static,
{
    Box::new(f)
}

/// Every tool, ordered by name.
pub fn catalog() -> &'static [Tool] {
    static CATALOG: OnceLock<Vec<Tool>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut tools = build();
        tools.sort_by_key(|t| t.spec.name);
        tools
    })
}

/// The tool of that name.
pub fn find(name: &str) -> Option<&'static Tool> {
    catalog().iter().find(|t| t.spec.name == name)
}

/// The `tools/list` entries a caller holding `scopes` sees.
pub fn listed_for(scopes: &ScopeSet) -> Vec<Value> {
    catalog()
        .iter()
        .filter(|t| t.listed_for(scopes))
        .map(|t| t.descriptor().clone())
        .collect()
}

/// A successful result: the summary, the REST body byte for byte, and the body parsed plus
/// `summary` as `structuredContent`.
fn success_result(body: &Body, summary: fn(&Value) -> String) -> Result<Value, Failure> {
    let mut structured: Map<String, Value> = serde_json::from_str(&body.0)
        .map_err(|e| Failure::internal(format!("a tool body is not a JSON object: {e}")))?;
    let line = summary(&Value::Object(structured.clone()));
    structured.insert("summary".into(), Value::String(line.clone()));
    Ok(json!({
        "content": [
            {"type": "text", "text": line},
            {"type": "text", "text": body.0},
        ],
        "structuredContent": structured,
        "isError": false,
    }))
}

/// The API's error body: the one both surfaces serialise.
pub use api_core::ErrorBody;

/// An `isError` result: `<code>: <message>`, then the API's error body.
pub fn error_result(failure: &Failure) -> Value {
    let body = ErrorBody::of(failure);
    json!({
        "content": [
            {"type": "text", "text": format!("{}: {}", body.error, body.message)},
            {"type": "text", "text": body.text()},
        ],
        "isError": true,
    })
}

mod companies;
mod monitoring;
mod persons;
mod screening;
mod subjects;
mod webhooks;

/// Tools without arguments.
#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Every capability's tools.
fn build() -> Vec<Tool> {
    [
        companies::tools(),
        persons::tools(),
        subjects::tools(),
        monitoring::tools(),
        screening::tools(),
        webhooks::tools(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::access::scope::Scope;

    // The descriptors describe company codes by the installed schemes: each test reads the
    // catalog through these, which install them first (as the binary does at start).
    fn catalog() -> &'static [Tool] {
        crate::install_schemes();
        super::catalog()
    }

    fn find(name: &str) -> Option<&'static Tool> {
        crate::install_schemes();
        super::find(name)
    }

    fn listed_for(scopes: &ScopeSet) -> Vec<Value> {
        crate::install_schemes();
        super::listed_for(scopes)
    }

    #[test]
    fn names_are_unique_and_sorted() {
        let names: Vec<&str> = catalog().iter().map(Tool::name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn descriptors_follow_the_spec_table() {
        let all: ScopeSet = Scope::CONSUMER.into_iter().collect();
        let listed = listed_for(&all);
        assert_eq!(listed.len(), catalog().len());
        for tool in catalog() {
            let d = tool.descriptor();
            assert_eq!(d["inputSchema"]["type"], "object", "{}", tool.name());
            assert_eq!(d["annotations"]["destructiveHint"], false);
            let writes = [
                "create_webhook",
                "disable_webhook",
                "enable_webhook",
                "end_subscription",
                "refresh_company",
                "rotate_webhook_secret",
                "screen_subject",
                "subscribe_monitoring",
            ]
            .contains(&tool.name());
            assert_eq!(d["annotations"]["readOnlyHint"], !writes);
            assert_eq!(d["annotations"]["idempotentHint"], !writes);
            // A title for the directories, and the open world where a register may be asked.
            assert!(d["title"].as_str().is_some_and(|t| !t.is_empty()));
            assert_eq!(d["annotations"]["title"], d["title"]);
            let upstream = [
                "get_beneficial_owners",
                "get_company_profile",
                "get_officers",
                "get_person_engagements",
                "get_person_profile",
                "get_signatories",
                "lookup_company",
                "lookup_person",
                "refresh_company",
                "screen_subject",
            ]
            .contains(&tool.name());
            assert_eq!(
                d["annotations"]["openWorldHint"],
                upstream,
                "{}",
                tool.name()
            );
            let no_output = ["lookup_company", "lookup_person"].contains(&tool.name());
            assert_eq!(
                d.get("outputSchema").is_some(),
                !no_output,
                "{}",
                tool.name()
            );
            if let Some(output) = d.get("outputSchema") {
                assert_eq!(output["type"], "object");
                assert!(output["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("summary")));
            }
        }
        assert_eq!(
            find("get_company_profile").unwrap().descriptor()["inputSchema"]["required"],
            json!(["orgnr"])
        );
        assert_eq!(
            find("get_subject").unwrap().descriptor()["inputSchema"]["required"],
            json!(["id"])
        );
    }

    #[test]
    fn listing_follows_the_scopes() {
        let kyb: ScopeSet = [Scope::KybRead].into_iter().collect();
        let events: ScopeSet = [Scope::EventsRead].into_iter().collect();
        let names = |scopes: &ScopeSet| -> Vec<String> {
            listed_for(scopes)
                .iter()
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(
            names(&kyb),
            [
                "get_beneficial_owners",
                "get_company_profile",
                "get_officers",
                "get_person_engagements",
                "get_signatories",
                "get_subject",
                "lookup_company"
            ]
        );
        // `events:read` reads the log, and pushes it to webhook endpoints.
        assert_eq!(
            names(&events),
            [
                "create_webhook",
                "disable_webhook",
                "enable_webhook",
                "get_webhook",
                "list_changes",
                "list_events",
                "list_webhook_deliveries",
                "list_webhooks",
                "rotate_webhook_secret"
            ]
        );
        let read: ScopeSet = [Scope::ScreeningRead].into_iter().collect();
        let run: ScopeSet = [Scope::ScreeningRun].into_iter().collect();
        let reads = [
            "get_screening_check",
            "list_screening_checks",
            "list_screening_overrides",
            "list_screening_whitelist",
        ];
        assert_eq!(names(&read), reads);
        let mut all = reads.to_vec();
        all.push("screen_subject");
        assert_eq!(names(&run), all);
        // The subscription reads open for `kyb:read` and `kyc:read` in part (their own kind),
        // so they are listed for the monitoring scopes only.
        let monitoring: ScopeSet = [Scope::MonitoringRead].into_iter().collect();
        assert_eq!(
            names(&monitoring),
            ["get_subscription", "list_subscriptions"]
        );
        let subscribe: ScopeSet = [Scope::MonitoringSubscribe].into_iter().collect();
        assert_eq!(
            names(&subscribe),
            [
                "end_subscription",
                "get_subscription",
                "list_subscriptions",
                "subscribe_monitoring"
            ]
        );
    }

    /// The operations no tool runs, each for a reason: an operation added to the interface
    /// without a tool, or a tool for one of these, fails here until this list says so.
    const WITHOUT_TOOL: &[(Operation, &str)] = &[
        (
            Operation::IssueToken,
            "an agent's client gets its token from the token endpoint",
        ),
        (Operation::McpRequest, "MCP itself"),
        (Operation::McpToolCall, "MCP itself"),
        (
            Operation::GetDocument,
            "a binary archive (the interface names it without a tool)",
        ),
        (
            Operation::GetUsage,
            "the interface's tool table has none; each metered tool's result states the standing",
        ),
    ];

    /// Every operation a request reaches by a route is run by a tool or named in
    /// [`WITHOUT_TOOL`], and a tool runs operations only (never one named there).
    #[test]
    fn every_routed_operation_has_a_tool_or_a_reason() {
        let run: Vec<Operation> = catalog()
            .iter()
            .flat_map(|t| t.spec.operations.iter().copied())
            .collect();
        let wrong: Vec<String> = Operation::ROUTED
            .into_iter()
            .filter_map(|op| {
                let without = WITHOUT_TOOL.iter().any(|(o, _)| *o == op);
                let has = run.contains(&op);
                (has == without)
                    .then(|| format!("{op:?} (run by a tool: {has}, named without one: {without})"))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// The scopes a tool is listed for come from its operations' `Operation::scopes` and
    /// nowhere else: a caller holding one consumer scope sees a tool exactly when that scope
    /// opens every operation of the tool whole, and never one its use case would refuse.
    #[test]
    fn every_tool_is_listed_for_the_scopes_of_its_operations() {
        for scope in Scope::CONSUMER {
            let held: ScopeSet = [scope].into_iter().collect();
            let listed: Vec<Value> = listed_for(&held);
            for tool in catalog() {
                let ops = tool.spec.operations;
                let shown = listed.iter().any(|d| d["name"] == tool.name());
                let opens = |op: &Operation| op.scopes().is_empty() || op.scopes().contains(&scope);
                let opens_whole = |op: &Operation| {
                    op.scopes().is_empty() || op.listing_scopes().any(|s| s == scope)
                };
                if shown {
                    assert!(ops.iter().all(opens), "{} listed for {scope}", tool.name());
                }
                assert_eq!(
                    shown,
                    ops.iter().all(opens_whole),
                    "{} {scope}",
                    tool.name()
                );
            }
        }
        for tool in catalog() {
            assert!(
                Scope::CONSUMER
                    .into_iter()
                    .any(|s| tool.listed_for(&[s].into_iter().collect())),
                "{} is listed for no scope",
                tool.name()
            );
        }
    }

    #[test]
    fn results_carry_the_body_byte_for_byte() {
        let body = Body(
            r#"{"subject_id":"01S","kind":"company","identifiers":[],"refs":[],"aliases":[]}"#
                .into(),
        );
        let result = success_result(&body, crate::summary::subject).unwrap();
        assert_eq!(result["content"][1]["text"], body.0.as_str());
        assert_eq!(
            result["structuredContent"]["summary"],
            result["content"][0]["text"]
        );
        assert_eq!(result["isError"], false);

        let failure = Failure::new(
            domain::ErrorCode::Forbidden,
            "this route requires the scope `kyb:read`",
        );
        let error = error_result(&failure);
        assert_eq!(error["isError"], true);
        assert_eq!(
            error["content"][0]["text"],
            "forbidden: this route requires the scope `kyb:read`"
        );
        assert_eq!(
            error["content"][1]["text"],
            r#"{"error":"forbidden","message":"this route requires the scope `kyb:read`"}"#
        );
        assert!(error.get("structuredContent").is_none());
    }
}
