//! The tool table: every MCP tool, each calling the very same body function as its REST route
//! (`api_core::bodies`, with typed arguments), through the same gate, so scopes, countries and
//! tenant isolation cannot differ between the surfaces. This file holds what every tool
//! shares (the [`Tool`] type, the catalog, the shape of results); each capability's tools are
//! in a file of their own (`companies`, `persons`, `subjects`, `monitoring`, `screening`,
//! `webhooks`), with their arguments, entries, handlers and tests.
//!
//! Adding a tool for a route that exists, in its capability's file: an arguments struct
//! (`Deserialize + JsonSchema`, its doc comments become the input schema's descriptions), a
//! handler of a few lines that runs the route's body function through [`Ctx::route`], and
//! one [`Tool::new`] entry in the file's `tools()` (plus `.with_output()` when the spec
//! declares an output schema). The handler's answer type is the route's wire type: it gives
//! the tool its summary ([`Summary`], in `summary.rs`, written once per wire type) and its
//! output schema, so neither is named again.

use crate::summary::Summary;
use crate::{args, schema};
use api_core::bodies::{self, Answer, Body};
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
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

/// What a tool handler returns: the REST answer (or a composition of answers) it produced.
pub type Fut<'a, T> = Pin<Box<dyn Future<Output = Result<Answer<T>, Failure>> + 'a>>;

/// A tool handler with its types erased: arguments in, the shaped `tools/call` result out.
type Handler = Box<dyn for<'a> Fn(Ctx<'a>, Value) -> Shaped<'a> + Send + Sync>;
type Shaped<'a> = Pin<Box<dyn Future<Output = Result<Value, Failure>> + 'a>>;

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
}

/// One registered tool.
pub struct Tool {
    pub spec: Spec,
    input_schema: Map<String, Value>,
    /// The schema of the handler's answer type, for [`Tool::with_output`].
    answer_schema: fn() -> Map<String, Value>,
    output_schema: Option<Map<String, Value>>,
    descriptor: Value,
    handler: Handler,
}

impl Tool {
    /// A tool whose arguments are `A` (its `inputSchema` is generated from `A`, and arguments
    /// are checked against that very schema before `handler` sees them) and whose answer is
    /// a `T` (the REST body type, or a composition of them): `T` summarises itself and, with
    /// [`Tool::with_output`], gives the `outputSchema`.
    pub fn new<A, T>(spec: Spec, handler: for<'a> fn(Ctx<'a>, A) -> Fut<'a, T>) -> Tool
    where
        A: DeserializeOwned + JsonSchema + 'static,
        T: Serialize + Summary + JsonSchema + 'static,
    {
        let input_schema = schema::input::<A>();
        let checked = input_schema.clone();
        let handler = erase(
            move |cx, arguments| match args::parse::<A>(&checked, arguments) {
                Ok(parsed) => {
                    let answer = handler(cx, parsed);
                    Box::pin(async move { success_result(answer.await?) })
                }
                Err(failure) => Box::pin(async move { Err(failure) }),
            },
        );
        let mut tool = Tool {
            spec,
            input_schema,
            answer_schema: schema::output::<T>,
            output_schema: None,
            descriptor: Value::Null,
            handler,
        };
        tool.describe();
        tool
    }

    /// Declares the `outputSchema`: the handler's answer type (the REST body) plus `summary`.
    pub fn with_output(mut self) -> Tool {
        let mut output = (self.answer_schema)();
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
        let mut result = (self.handler)(cx, arguments).await?;
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
    F: for<'a> Fn(Ctx<'a>, Value) -> Shaped<'a> + Send + Sync + 'static,
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

/// A successful result: the summary, the REST body byte for byte, and the answer's value
/// plus `summary` as `structuredContent` (the value the text was serialised from, so it is
/// the text's JSON without parsing it back).
fn success_result<T: Serialize + Summary>(answer: Answer<T>) -> Result<Value, Failure> {
    let line = answer.value.summary();
    let mut structured = match serde_json::to_value(&answer.value) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(Failure::internal("a tool's answer is not a JSON object")),
        Err(e) => return Err(Failure::internal(e)),
    };
    structured.insert("summary".into(), Value::String(line.clone()));
    Ok(json!({
        "content": [
            {"type": "text", "text": line},
            {"type": "text", "text": answer.body.0},
        ],
        "structuredContent": structured,
        "isError": false,
    }))
}

/// Two route bodies as one object, `{"<first>":<text>,"<second>":<text>}`, each text byte
/// for byte: a composite tool's `content[1]`. The keys are the tool's own.
fn pair(first: (&'static str, &Body), second: (&'static str, &Body)) -> Body {
    Body(format!(
        "{{\"{}\":{},\"{}\":{}}}",
        first.0,
        (first.1).0,
        second.0,
        (second.1).0
    ))
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

pub(crate) mod companies;
mod monitoring;
pub(crate) mod persons;
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
        use api_core::dto::webhooks::{WebhookEndpointDto, WebhookEndpointWithSecretDto};
        // A flattened member, optional members both ways, and a text with escapes.
        let made = WebhookEndpointWithSecretDto {
            endpoint: WebhookEndpointDto {
                id: "whk_01".into(),
                url: "https://hooks.example/\"in\"".into(),
                types: Some(vec!["company.changed".into()]),
                description: None,
                status: "active",
                disabled_reason: None,
                disabled_at: None,
                cursor: 7,
                failures: 0,
                failing_since: None,
                next_attempt_at: "2026-11-29T10:00:00Z".into(),
                attempts: 3,
                created_at: "2026-11-28T10:00:00Z".into(),
                secret_rotated_at: None,
            },
            secret: "whsec_c2VjcmV0".into(),
        };
        let answer = Answer::of(made).unwrap();
        let text = answer.body.0.clone();
        let result = success_result(answer).unwrap();
        assert_eq!(result["content"][1]["text"], text.as_str());
        // structuredContent is the text's JSON plus the summary, made without parsing it.
        let mut parsed: Value = serde_json::from_str(&text).unwrap();
        parsed["summary"] = result["content"][0]["text"].clone();
        assert_eq!(result["structuredContent"], parsed);
        assert_eq!(
            result["structuredContent"]["summary"],
            "Webhook endpoint whk_01 (active): delivered up to seq 7; its signing secret is in the body, shown this once"
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
