//! The tool table: every MCP tool in one place, each calling the very same body function as
//! its REST route (`api_core::bodies`, with typed arguments), through the same gate, so scopes,
//! countries and tenant isolation cannot differ between the surfaces.
//!
//! Adding a tool for a route that exists: an arguments struct (`Deserialize + JsonSchema`,
//! its doc comments become the input schema's descriptions), a handler of a few lines that
//! runs the route's body function through [`Ctx::route`], a summary function in
//! `summary.rs`, and one [`Tool::new`] entry in [`build`] (plus `.with_output::<Body>()` when
//! the spec declares an output schema).

use crate::{args, schema, summary};
use api_core::bodies::{self, Body};
use api_core::dto::screening::{
    OverrideVersionListDto, ScreeningCheckDto, ScreeningCheckListDto, WhitelistDto,
};
use api_core::dto::usage::QuotaDto;
use api_core::dto::webhooks::{
    WebhookDeliveryPageDto, WebhookEndpointDto, WebhookEndpointListDto,
    WebhookEndpointWithSecretDto,
};
use api_core::dto::{
    BeneficialOwnersDto, CompanyProfileDto, EngagementsDto, Envelope, EventPageDto, OfficersDto,
    PersonProfileDto, RefreshDto, SubjectResponse, SubscriptionDto, SubscriptionListDto,
};
use domain::access::audit::AuditTrail;
use domain::access::gate::Caller;
use domain::access::scope::ScopeSet;
use domain::monitoring::subscription::SubscribeRequest;
use domain::operation::Operation;
use domain::screening::check::CheckRequest;
use domain::services::Services;
use domain::subjects::identifier::Identifier;
use domain::subjects::subject::ResolveRequest;
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

// ---------------------------------------------------------------------------------------
// Arguments.

/// Arguments of the company tools.
#[derive(Deserialize, JsonSchema)]
pub struct OrgnrArgs {
    /// The company's code in identifier wire form `[<cc>:]<value>` (the description the tool
    /// lists is built from the installed schemes: `api_core::schema::company_code_argument`).
    pub orgnr: String,
}

/// Arguments of `get_person_engagements`.
#[derive(Deserialize, JsonSchema)]
pub struct PersonRefArgs {
    /// An `identifier_ref` of a person subject of this tenant (`idr_` + 26 characters): from a
    /// resolve, a `lookup_person`, or an officer's or owner's `personal_number_ref`. Never a
    /// personal number.
    #[serde(rename = "ref")]
    pub person_ref: String,
}

/// Arguments of `lookup_person`.
#[derive(Deserialize, JsonSchema)]
pub struct LookupPersonArgs {
    /// The person's personal identity number (personnummer) or coordination number
    /// (samordningsnummer), e.g. `19570413-3106` or `570413-3106`. It is never returned: the
    /// answer carries the tenant's `identifier_ref` for it.
    pub identifier: String,
    /// The identifier scheme: `personnummer` or `samordningsnummer` (`asmens-kodas` for
    /// Lithuania, whose person data is not served yet).
    #[serde(rename = "type")]
    pub id_type: String,
}

/// Arguments of `list_events` and `list_changes`.
#[derive(Deserialize, JsonSchema)]
pub struct EventsArgs {
    /// `0` (the default) or the `next_cursor` of an earlier page, spelled exactly as it came
    /// back (as a string).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Events per page, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

impl EventsArgs {
    fn request(self) -> domain::monitoring::event_service::EventsRequest {
        domain::monitoring::event_service::EventsRequest {
            cursor: self.cursor,
            limit: self.limit.map(|l| l.to_string()),
            types: None,
        }
    }
}

/// Arguments of `get_subscription`.
#[derive(Deserialize, JsonSchema)]
pub struct SubscriptionIdArgs {
    /// The subscription id (`sub_` + 26 characters).
    pub id: String,
}

/// Arguments of `subscribe_monitoring`.
#[derive(Deserialize, JsonSchema)]
pub struct SubscribeArgs {
    /// The subject to watch (from a resolve or a lookup).
    pub subject_id: String,
    /// `company`, or `person` (tracks the tenant's permit).
    pub kind: String,
    /// `aml_cdd`, `contract`, `legal_obligation`, `consent` or `legitimate_interest`.
    pub legal_basis: String,
    /// Free text, never parsed.
    #[serde(default)]
    pub legal_basis_ref: Option<String>,
    /// Days between light checks, 1 to 365 (default 1).
    #[serde(default)]
    pub check_days: Option<i64>,
    /// Days between paid full refreshes, check_days to 365 (default 30).
    #[serde(default)]
    pub full_refresh_days: Option<i64>,
}

impl From<SubscribeArgs> for SubscribeRequest {
    fn from(a: SubscribeArgs) -> Self {
        SubscribeRequest {
            subject_id: a.subject_id,
            kind: a.kind,
            legal_basis: a.legal_basis,
            legal_basis_ref: a.legal_basis_ref,
            check_days: a.check_days,
            full_refresh_days: a.full_refresh_days,
        }
    }
}

/// Arguments of `end_subscription`.
#[derive(Deserialize, JsonSchema)]
pub struct EndSubscriptionArgs {
    /// The subscription id (`sub_` + 26 characters).
    pub subscription_id: String,
}

/// Arguments of `list_subscriptions`.
#[derive(Deserialize, JsonSchema)]
pub struct ListSubscriptionsArgs {
    /// At most this many, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
    /// `active`, `suspended` or `ended`.
    #[serde(default)]
    pub status: Option<String>,
}

/// Arguments of `get_subject`.
#[derive(Deserialize, JsonSchema)]
pub struct SubjectIdArgs {
    /// The subject id (an opaque ULID from a resolve or a lookup), or one of its aliases.
    pub id: String,
}

/// Arguments of `screen_subject`: either `subject_id` or an ad-hoc identity.
#[derive(Deserialize, JsonSchema)]
pub struct ScreenArgs {
    /// A subject of the tenant (from a resolve or a lookup), instead of the ad-hoc fields. A
    /// person subject's name and birth date are read from the population register (needs
    /// kyc:read and the tenant's permit in force); a company subject's from its profile.
    #[serde(default)]
    pub subject_id: Option<String>,
    /// Ad hoc: the name to screen (a person's or an organisation's), at most 300
    /// characters. Never put a personal identity number in it (refused with
    /// name_is_identifier): screen the person by subject_id instead.
    #[serde(default)]
    pub name: Option<String>,
    /// Ad hoc: the birth date, `YYYY-MM-DD`, or `YYYY-MM` or `YYYY` when only that much is
    /// known.
    #[serde(default)]
    pub birth_date: Option<String>,
    /// Ad hoc: nationalities as ISO 3166-1 alpha-2 codes (`SE`, `RU`), at most 20.
    #[serde(default)]
    pub nationalities: Option<Vec<String>>,
    /// Ad hoc: an organisation number in identifier wire form (`5560360793`,
    /// `se:5560360793`), compared with the lists' registration numbers.
    #[serde(default)]
    pub orgnr: Option<String>,
    /// Ad hoc: the screened party's country, ISO 3166-1 alpha-2.
    #[serde(default)]
    pub country: Option<String>,
}

impl From<ScreenArgs> for CheckRequest {
    fn from(a: ScreenArgs) -> Self {
        CheckRequest {
            subject_id: a.subject_id,
            name: a.name,
            birth_date: a.birth_date,
            nationalities: a.nationalities,
            orgnr: a.orgnr,
            country: a.country,
        }
    }
}

/// Arguments of `get_screening_check`.
#[derive(Deserialize, JsonSchema)]
pub struct ScreeningCheckIdArgs {
    /// The check id (`chk_` + 26 characters).
    pub id: String,
}

/// Arguments of `list_screening_checks`.
#[derive(Deserialize, JsonSchema)]
pub struct ListScreeningChecksArgs {
    /// At most this many, 1 to 200 (default 50).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Only the checks of this subject.
    #[serde(default)]
    pub subject_id: Option<String>,
}

/// Arguments of `create_webhook`.
#[derive(Deserialize, JsonSchema)]
pub struct CreateWebhookArgs {
    /// Where deliveries are posted: an absolute https URL without credentials or fragment,
    /// naming a publicly routable host.
    pub url: String,
    /// Only events of these types (event type names); absent for every type.
    #[serde(default)]
    pub types: Option<Vec<String>>,
    /// Free text for the consumer's own use, at most 200 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// Deliver the events after this seq first (an earlier next_cursor); absent: only events
    /// logged from now on.
    #[serde(default)]
    pub start_after: Option<i64>,
}

impl From<CreateWebhookArgs> for domain::webhooks::service::CreateEndpointRequest {
    fn from(a: CreateWebhookArgs) -> Self {
        domain::webhooks::service::CreateEndpointRequest {
            url: a.url,
            types: a.types,
            description: a.description,
            start_after: a.start_after,
        }
    }
}

/// Arguments of the tools of one webhook endpoint.
#[derive(Deserialize, JsonSchema)]
pub struct WebhookIdArgs {
    /// The endpoint id (`whk_` + 26 characters).
    pub id: String,
}

/// Arguments of `list_webhook_deliveries`.
#[derive(Deserialize, JsonSchema)]
pub struct WebhookDeliveriesArgs {
    /// The endpoint id (`whk_` + 26 characters).
    pub id: String,
    /// `0` (the default) or a next_cursor returned earlier.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Attempts per page, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Tools without arguments.
#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

// ---------------------------------------------------------------------------------------
// The table.

fn build() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "get_company_profile",
                title: "Company profile",
                description: "The company's registry profile (name, legal form, status, address, SNI codes, \
                    tax registrations, latest annual report), each value with evidence. The body of \
                    GET /v1/companies/{orgnr}: {stale, data}. Creates the company's subject on first sight.",
                operations: &[Operation::GetCompany],
                effect: Effect::Read,
                open_world: true,
                summary: summary::company_profile,
            },
            get_company_profile,
        )
        .with_output::<Envelope<CompanyProfileDto>>(),
        Tool::new(
            Spec {
                name: "get_officers",
                title: "Officers and signatory rule",
                description: "The company's officers (one entry per role, each person as the tenant's \
                    personal_number_ref, never a personal number) and its signatory rule as text. Paid \
                    tier: metered against the tenant's daily budget; served stale or refused with \
                    budget_exceeded when it is spent. The body of GET /v1/companies/{orgnr}/officers.",
                operations: &[Operation::GetOfficers],
                effect: Effect::Read,
                open_world: true,
                summary: summary::officers,
            },
            get_officers,
        )
        .with_output::<Envelope<OfficersDto>>(),
        Tool::new(
            Spec {
                name: "get_signatories",
                title: "Signatory rule",
                description: "Who may sign for the company: the same object as get_officers (officers \
                    and the signatory rule as text). Paid tier, metered. The body of \
                    GET /v1/companies/{orgnr}/signatories.",
                operations: &[Operation::GetSignatories],
                effect: Effect::Read,
                open_world: true,
                summary: summary::officers,
            },
            get_signatories,
        )
        .with_output::<Envelope<OfficersDto>>(),
        Tool::new(
            Spec {
                name: "get_beneficial_owners",
                title: "Beneficial owners",
                description: "The company's beneficial owners: each person as the tenant's \
                    personal_number_ref, how control is held and the share band (25-50, 50-75, 75-100, \
                    unknown); no_ubo_reported when none is reported. Paid tier, metered. The body of \
                    GET /v1/companies/{orgnr}/beneficial-owners.",
                operations: &[Operation::GetBeneficialOwners],
                effect: Effect::Read,
                open_world: true,
                summary: summary::beneficial_owners,
            },
            get_beneficial_owners,
        )
        .with_output::<Envelope<BeneficialOwnersDto>>(),
        Tool::new(
            Spec {
                name: "get_person_engagements",
                title: "Person engagements",
                description: "The companies in which a person holds a role, by the person's \
                    identifier_ref. Paid tier, metered. The body of GET /v1/persons/{ref}/engagements.",
                operations: &[Operation::GetPersonEngagements],
                effect: Effect::Read,
                open_world: true,
                summary: summary::engagements,
            },
            get_person_engagements,
        )
        .with_output::<Envelope<EngagementsDto>>(),
        Tool::new(
            Spec {
                name: "get_person_profile",
                title: "Person profile",
                description: "A person's profile from the population register (names, birth date, \
                    registration, address, protection, death and emigration markers), by the \
                    person's identifier_ref. Needs the tenant's person-register permit in force \
                    (else personreg_permit_required or personreg_permit_suspended, before anything \
                    is read). Metered against the daily person-lookup ceiling; never served stale \
                    (upstream_unavailable instead). Under a protection marker no address is given. \
                    The body of GET /v1/persons/{ref}.",
                operations: &[Operation::GetPerson],
                effect: Effect::Read,
                open_world: true,
                summary: summary::person_profile,
            },
            get_person_profile,
        )
        .with_output::<Envelope<PersonProfileDto>>(),
        Tool::new(
            Spec {
                name: "get_subscription",
                title: "Subscription",
                description: "A monitoring subscription by id: kind, legal basis, status, cadence, \
                    dates. The body of GET /v1/subscriptions/{id}.",
                operations: &[Operation::GetSubscription],
                effect: Effect::Read,
                open_world: false,
                summary: summary::subscription,
            },
            get_subscription,
        )
        .with_output::<SubscriptionDto>(),
        Tool::new(
            Spec {
                name: "end_subscription",
                title: "End a subscription",
                description: "Ends a monitoring subscription, one way: queued work is cancelled at \
                    once and its events are purged after the retention period. Ending it again is \
                    subscription_ended. The body of POST /v1/subscriptions/{id}/end.",
                operations: &[Operation::EndSubscription],
                effect: Effect::Write,
                open_world: false,
                summary: summary::subscription,
            },
            end_subscription,
        )
        .with_output::<SubscriptionDto>(),
        Tool::new(
            Spec {
                name: "list_subscriptions",
                title: "List subscriptions",
                description: "The tenant's monitoring subscriptions, newest first (kyb:read sees \
                    company ones, kyc:read person ones). The body of GET /v1/subscriptions.",
                operations: &[Operation::ListSubscriptions],
                effect: Effect::Read,
                open_world: false,
                summary: summary::subscriptions,
            },
            list_subscriptions,
        )
        .with_output::<SubscriptionListDto>(),
        Tool::new(
            Spec {
                name: "refresh_company",
                title: "Refresh a company",
                description: "Forces a re-fetch of the company's profile from the register (never \
                    from the cache), metered against the tenant's daily budget; under an active \
                    subscription, what moved becomes change events (trigger on_demand). The body \
                    of POST /v1/companies/{orgnr}/refresh: {stale, data, events_emitted}.",
                operations: &[Operation::RefreshCompany],
                effect: Effect::Write,
                open_world: true,
                summary: summary::refresh,
            },
            refresh_company,
        )
        .with_output::<RefreshDto>(),
        Tool::new(
            Spec {
                name: "subscribe_monitoring",
                title: "Monitor a subject",
                description: "Starts monitoring a subject (company, or person: the tenant's permit) \
                    under a legal basis; one subscription per subject and kind \
                    (subscription_exists). Changes then arrive in the event log (list_changes). \
                    The 201 body of POST /v1/subscriptions.",
                operations: &[Operation::CreateSubscription],
                effect: Effect::Write,
                open_world: false,
                summary: summary::subscription,
            },
            subscribe_monitoring,
        )
        .with_output::<SubscriptionDto>(),
        Tool::new(
            Spec {
                name: "get_subject",
                title: "Subject",
                description: "A subject by id: kind, identifier references (never the identifiers \
                    themselves), customer references, aliases and evidence. The body of \
                    GET /v1/subjects/{id}.",
                operations: &[Operation::GetSubject],
                effect: Effect::Read,
                open_world: false,
                summary: summary::subject,
            },
            get_subject,
        )
        .with_output::<SubjectResponse>(),
        Tool::new(
            Spec {
                name: "list_changes",
                title: "List changes",
                description: "A page of the tenant's event log with the change types preselected \
                    (company.changed, company.status.changed, signatory.changed, ubo.changed, \
                    person.changed), bounded by the credential's countries. Pass next_cursor back \
                    as cursor for the next page; an empty page with the same cursor means nothing \
                    new yet. The body of GET /v1/events?types=...",
                operations: &[Operation::ListEvents],
                effect: Effect::Read,
                open_world: false,
                summary: summary::events,
            },
            list_changes,
        )
        .with_output::<EventPageDto>(),
        Tool::new(
            Spec {
                name: "list_events",
                title: "List events",
                description: "A page of the tenant's event log (every type), bounded by the \
                    credential's countries. Pass next_cursor back as cursor for the next page; an \
                    empty page with the same cursor means nothing new yet. The body of \
                    GET /v1/events.",
                operations: &[Operation::ListEvents],
                effect: Effect::Read,
                open_world: false,
                summary: summary::events,
            },
            list_events,
        )
        .with_output::<EventPageDto>(),
        Tool::new(
            Spec {
                name: "screen_subject",
                title: "Screen against sanctions and PEP lists",
                description: "Screens a subject (subject_id) or an ad-hoc identity (name, birth_date, \
                    nationalities, orgnr, country; at least a name or an orgnr) against the loaded \
                    sanctions lists and, when the tenant's policy screens them, the lists of \
                    politically exposed persons, their family members and close associates \
                    (PEP), and appends the check. Each candidate list entry comes with its \
                    list_kind (sanctions or pep), score, band (clear, review, hit; a pep \
                    candidate is at most review, and its reasons say the office or tie), reasons (code, detail, contributes up, \
                    down or neutral), the listing and its evidence; the check names every version \
                    it ran under, so the same input gives the same result. Never from a cache. A \
                    name holding a personal identity number is refused (name_is_identifier): \
                    screen the person by subject_id. No policy or no list loaded is \
                    screening_unavailable. The 201 body of POST /v1/screening/checks.",
                operations: &[Operation::RunScreeningCheck],
                effect: Effect::Write,
                // A subject check reads the person or company register.
                open_world: true,
                summary: summary::screening_check,
            },
            screen_subject,
        )
        .with_output::<ScreeningCheckDto>(),
        Tool::new(
            Spec {
                name: "get_screening_check",
                title: "Screening check",
                description: "A screening check by id, as it was appended (candidates, scores, \
                    reasons, versions), its input masked for this token. The body of \
                    GET /v1/screening/checks/{id}.",
                operations: &[Operation::GetScreeningCheck],
                effect: Effect::Read,
                open_world: false,
                summary: summary::screening_check,
            },
            get_screening_check,
        )
        .with_output::<ScreeningCheckDto>(),
        Tool::new(
            Spec {
                name: "list_screening_checks",
                title: "List screening checks",
                description: "The tenant's screening checks, newest first, bounded by the \
                    credential's countries (a check on a name alone is visible to every grant); \
                    optionally those of one subject. The body of GET /v1/screening/checks.",
                operations: &[Operation::ListScreeningChecks],
                effect: Effect::Read,
                open_world: false,
                summary: summary::screening_checks,
            },
            list_screening_checks,
        )
        .with_output::<ScreeningCheckListDto>(),
        Tool::new(
            Spec {
                name: "list_screening_overrides",
                title: "List screening policy overrides",
                description: "The tenant's override versions of the service's screening policy \
                    (thresholds and weights it sets, status draft, approved, active or retired, \
                    who proposed and approved it), newest first. The body of \
                    GET /v1/screening/overrides.",
                operations: &[Operation::ListScreeningOverrides],
                effect: Effect::Read,
                open_world: false,
                summary: summary::screening_overrides,
            },
            list_screening_overrides,
        )
        .with_output::<OverrideVersionListDto>(),
        Tool::new(
            Spec {
                name: "list_screening_whitelist",
                title: "List the screening whitelist",
                description: "The tenant's screening whitelist entries (a list entry cleared for \
                    a subject or a check's input_hash, with reason, makers, expiry, and whether \
                    in effect now), newest first. The body of GET /v1/screening/whitelist.",
                operations: &[Operation::ListScreeningWhitelist],
                effect: Effect::Read,
                open_world: false,
                summary: summary::screening_whitelist,
            },
            list_screening_whitelist,
        )
        .with_output::<WhitelistDto>(),
        Tool::new(
            Spec {
                name: "lookup_company",
                title: "Look up a company",
                description: "Looks a company up by organisation number: its registry profile and the \
                    tenant's subject for it (created on first sight). GET /v1/companies/{orgnr} and \
                    POST /v1/subjects/resolve; content[1] is {\"subject\": <resolve body>, \
                    \"company\": <company profile body>}, each embedded byte for byte.",
                operations: &[Operation::GetCompany, Operation::ResolveSubject],
                // Reads: resolving creates the subject at most once; calling again changes nothing.
                effect: Effect::Read,
                open_world: true,
                summary: summary::lookup_company,
            },
            lookup_company,
        ),
        Tool::new(
            Spec {
                name: "lookup_person",
                title: "Look up a person",
                description: "Looks a person up by personal or coordination number: the tenant's \
                    subject for it (created on first sight) and the person's profile from the \
                    population register. The number is never returned, only its identifier_ref. \
                    Needs the tenant's person-register permit in force (checked before anything \
                    is resolved, read or asked). POST /v1/subjects/resolve and GET \
                    /v1/persons/{ref}; content[1] is {\"subject\": <resolve body>, \"person\": \
                    <person profile body>}, each embedded byte for byte.",
                operations: &[Operation::ResolveSubject, Operation::GetPerson],
                // Reads: resolving creates the subject at most once; calling again changes nothing.
                effect: Effect::Read,
                open_world: true,
                summary: summary::lookup_person,
            },
            lookup_person,
        ),
        Tool::new(
            Spec {
                name: "create_webhook",
                title: "Register a webhook endpoint",
                description: "Registers an HTTPS endpoint the event log is pushed to: each event \
                    the credential may read (of the endpoint's types) is posted in seq order, \
                    signed after the Standard Webhooks convention (webhook-id, webhook-timestamp, \
                    webhook-signature), retried with backoff, never skipped. The answer holds \
                    the signing secret, shown this once. The 201 body of POST /v1/webhooks.",
                operations: &[Operation::CreateWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
                summary: summary::webhook,
            },
            create_webhook,
        )
        .with_output::<WebhookEndpointWithSecretDto>(),
        Tool::new(
            Spec {
                name: "list_webhooks",
                title: "List webhook endpoints",
                description: "The credential's webhook endpoints, oldest first: status, cursor (the \
                    last seq delivered), failures. The body of GET /v1/webhooks.",
                operations: &[Operation::ListWebhookEndpoints],
                effect: Effect::Read,
                open_world: false,
                summary: summary::webhooks,
            },
            list_webhooks,
        )
        .with_output::<WebhookEndpointListDto>(),
        Tool::new(
            Spec {
                name: "get_webhook",
                title: "Webhook endpoint",
                description: "A webhook endpoint by id: status, cursor, failures, next attempt. The \
                    secret is never shown again. The body of GET /v1/webhooks/{id}.",
                operations: &[Operation::GetWebhookEndpoint],
                effect: Effect::Read,
                open_world: false,
                summary: summary::webhook,
            },
            get_webhook,
        )
        .with_output::<WebhookEndpointDto>(),
        Tool::new(
            Spec {
                name: "disable_webhook",
                title: "Disable a webhook endpoint",
                description: "Stops deliveries to a webhook endpoint until it is enabled again; \
                    its cursor stays. The body of POST /v1/webhooks/{id}/disable.",
                operations: &[Operation::DisableWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
                summary: summary::webhook,
            },
            disable_webhook,
        )
        .with_output::<WebhookEndpointDto>(),
        Tool::new(
            Spec {
                name: "enable_webhook",
                title: "Enable a webhook endpoint",
                description: "Enables a disabled webhook endpoint again: deliveries resume at its \
                    cursor, the first event it has not received. The body of \
                    POST /v1/webhooks/{id}/enable.",
                operations: &[Operation::EnableWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
                summary: summary::webhook,
            },
            enable_webhook,
        )
        .with_output::<WebhookEndpointDto>(),
        Tool::new(
            Spec {
                name: "rotate_webhook_secret",
                title: "Rotate a webhook secret",
                description: "Gives a webhook endpoint a new signing secret, shown this once; \
                    deliveries from now on are signed with it only. The body of \
                    POST /v1/webhooks/{id}/rotate-secret.",
                operations: &[Operation::RotateWebhookSecret],
                effect: Effect::Write,
                open_world: false,
                summary: summary::webhook,
            },
            rotate_webhook_secret,
        )
        .with_output::<WebhookEndpointWithSecretDto>(),
        Tool::new(
            Spec {
                name: "list_webhook_deliveries",
                title: "Webhook delivery log",
                description: "A webhook endpoint's delivery log, oldest first: each attempt's \
                    event, outcome, status, duration and next attempt. The body of \
                    GET /v1/webhooks/{id}/deliveries.",
                operations: &[Operation::ListWebhookDeliveries],
                effect: Effect::Read,
                open_world: false,
                summary: summary::webhook_deliveries,
            },
            list_webhook_deliveries,
        )
        .with_output::<WebhookDeliveryPageDto>(),
    ]
}

// ---------------------------------------------------------------------------------------
// Handlers.

fn get_company_profile(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::GetCompany, move |s, c| async move {
        bodies::company_profile(s, &c, &args.orgnr).await
    }))
}

fn get_officers(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::GetOfficers, move |s, c| async move {
        bodies::officers(s, &c, Operation::GetOfficers, &args.orgnr).await
    }))
}

fn get_signatories(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::GetSignatories, move |s, c| async move {
        bodies::officers(s, &c, Operation::GetSignatories, &args.orgnr).await
    }))
}

fn get_beneficial_owners(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::GetBeneficialOwners, move |s, c| async move {
            bodies::beneficial_owners(s, &c, &args.orgnr).await
        }),
    )
}

fn get_person_engagements(cx: Ctx<'_>, args: PersonRefArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::GetPersonEngagements, move |s, c| async move {
            bodies::person_engagements(s, &c, &args.person_ref).await
        }),
    )
}

fn get_person_profile(cx: Ctx<'_>, args: PersonRefArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::GetPerson, move |s, c| async move {
        bodies::person_profile(s, &c, &args.person_ref).await
    }))
}

/// The resolve, then the profile. The resolve invocation runs the person gate first (scope,
/// a person's well-formed number, its country, a served country, the permit), so a refused
/// lookup creates no subject and reads nothing; the profile then reads by the new ref.
fn lookup_person(cx: Ctx<'_>, args: LookupPersonArgs) -> Fut<'_> {
    Box::pin(async move {
        let LookupPersonArgs {
            identifier,
            id_type,
        } = args;
        let request = ResolveRequest {
            id_type,
            value: identifier,
            customer_ref: None,
        };
        let subject = cx
            .route(Operation::ResolveSubject, move |s, c| async move {
                bodies::resolve_person(s, &c, request).await
            })
            .await?;
        let person_ref = subject.identifier_ref;
        let person = cx
            .route(Operation::GetPerson, move |s, c| async move {
                bodies::person_profile(s, &c, &person_ref).await
            })
            .await?;
        Ok(Body(format!(
            "{{\"subject\":{},\"person\":{}}}",
            subject.body.0, person.0
        )))
    })
}

fn list_events(cx: Ctx<'_>, args: EventsArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::ListEvents, move |s, c| async move {
        bodies::events(s, &c, &args.request(), false).await
    }))
}

fn list_changes(cx: Ctx<'_>, args: EventsArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::ListEvents, move |s, c| async move {
        bodies::events(s, &c, &args.request(), true).await
    }))
}

fn get_subscription(cx: Ctx<'_>, args: SubscriptionIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::GetSubscription, move |s, c| async move {
            bodies::get_subscription(s, &c, &args.id).await
        }),
    )
}

fn end_subscription(cx: Ctx<'_>, args: EndSubscriptionArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::EndSubscription, move |s, c| async move {
            bodies::end_subscription(s, &c, &args.subscription_id).await
        }),
    )
}

fn list_subscriptions(cx: Ctx<'_>, args: ListSubscriptionsArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListSubscriptions, move |s, c| async move {
            let request = domain::monitoring::subscription::SubscriptionsRequest {
                limit: args.limit.map(|l| l.to_string()),
                status: args.status,
            };
            bodies::list_subscriptions(s, &c, &request).await
        }),
    )
}

fn refresh_company(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::RefreshCompany, move |s, c| async move {
        bodies::refresh_company(s, &c, &args.orgnr).await
    }))
}

fn create_webhook(cx: Ctx<'_>, args: CreateWebhookArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::CreateWebhookEndpoint, move |s, c| async move {
            bodies::create_webhook(s, &c, args.into()).await
        }),
    )
}

fn list_webhooks(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListWebhookEndpoints, move |s, c| async move {
            bodies::list_webhooks(s, &c).await
        }),
    )
}

fn get_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::GetWebhookEndpoint, move |s, c| async move {
            bodies::get_webhook(s, &c, &args.id).await
        }),
    )
}

fn disable_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::DisableWebhookEndpoint, move |s, c| async move {
            bodies::disable_webhook(s, &c, &args.id).await
        }),
    )
}

fn enable_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::EnableWebhookEndpoint, move |s, c| async move {
            bodies::enable_webhook(s, &c, &args.id).await
        }),
    )
}

fn rotate_webhook_secret(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::RotateWebhookSecret, move |s, c| async move {
            bodies::rotate_webhook_secret(s, &c, &args.id).await
        }),
    )
}

fn list_webhook_deliveries(cx: Ctx<'_>, args: WebhookDeliveriesArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListWebhookDeliveries, move |s, c| async move {
            let limit = args.limit.map(|l| l.to_string());
            bodies::webhook_deliveries(s, &c, &args.id, args.cursor.as_deref(), limit.as_deref())
                .await
        }),
    )
}

fn subscribe_monitoring(cx: Ctx<'_>, args: SubscribeArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::CreateSubscription, move |s, c| async move {
            bodies::create_subscription(s, &c, args.into()).await
        }),
    )
}

fn get_subject(cx: Ctx<'_>, args: SubjectIdArgs) -> Fut<'_> {
    Box::pin(cx.route(Operation::GetSubject, move |s, c| async move {
        bodies::get_subject(s, &c, &args.id).await
    }))
}

fn screen_subject(cx: Ctx<'_>, args: ScreenArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::RunScreeningCheck, move |s, c| async move {
            bodies::run_screening_check(s, &c, args.into()).await
        }),
    )
}

fn get_screening_check(cx: Ctx<'_>, args: ScreeningCheckIdArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::GetScreeningCheck, move |s, c| async move {
            bodies::get_screening_check(s, &c, &args.id).await
        }),
    )
}

fn list_screening_checks(cx: Ctx<'_>, args: ListScreeningChecksArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListScreeningChecks, move |s, c| async move {
            let request = domain::screening::check::ChecksRequest {
                limit: args.limit.map(|l| l.to_string()),
                subject_id: args.subject_id,
            };
            bodies::list_screening_checks(s, &c, &request).await
        }),
    )
}

fn list_screening_overrides(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListScreeningOverrides, move |s, c| async move {
            bodies::list_screening_overrides(s, &c).await
        }),
    )
}

fn list_screening_whitelist(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_> {
    Box::pin(
        cx.route(Operation::ListScreeningWhitelist, move |s, c| async move {
            bodies::list_screening_whitelist(s, &c).await
        }),
    )
}

/// The company profile, then the resolve. The profile route goes first so that whatever it
/// refuses (no `kyb:read`, a malformed or foreign number, a company the register does not
/// know, a country not served) is the tool's answer and no subject is created for it; on
/// success the profile has created the subject and the resolve finds it.
fn lookup_company(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_> {
    Box::pin(async move {
        let orgnr = args.orgnr;
        let wire = orgnr.clone();
        let company = cx
            .route(Operation::GetCompany, move |s, c| async move {
                bodies::company_profile(s, &c, &wire).await
            })
            .await?;
        // The company route accepted the number, so it parses; its scheme is the resolve type.
        let scheme = Identifier::parse_company(&orgnr)
            .map_err(|_| Failure::internal("a number the company route served does not parse"))?
            .id_type()
            .as_str();
        let request = ResolveRequest {
            id_type: scheme.to_owned(),
            value: orgnr,
            customer_ref: None,
        };
        let subject = cx
            .route(Operation::ResolveSubject, move |s, c| async move {
                bodies::resolve_subject(s, &c, request).await
            })
            .await?;
        Ok(Body(format!(
            "{{\"subject\":{},\"company\":{}}}",
            subject.0, company.0
        )))
    })
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
    fn a_company_tools_orgnr_is_described_by_every_installed_company_scheme() {
        crate::install_schemes();
        let rule = domain::subjects::identifier::scheme::company_code_description();
        assert!(rule.contains("`lt:`"), "{rule}");
        for name in ["get_company_profile", "get_officers", "refresh_company"] {
            let d = find(name).unwrap().descriptor();
            let text = d["inputSchema"]["properties"]["orgnr"]["description"]
                .as_str()
                .unwrap();
            assert!(text.contains(&rule), "{name}: {text}");
        }
        // Screening's optional ad-hoc code keeps its own words.
        let screen = find("screen_subject").unwrap().descriptor();
        let text = screen["inputSchema"]["properties"]["orgnr"]["description"]
            .as_str()
            .unwrap();
        assert!(text.starts_with("Ad hoc"), "{text}");
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
    fn screen_subject_takes_optional_fields_and_a_list_of_nationalities() {
        let d = find("screen_subject").unwrap().descriptor();
        let input = &d["inputSchema"];
        assert!(
            input.get("required").is_none_or(|r| r == &json!([])),
            "{input}"
        );
        assert_eq!(
            input["properties"]["nationalities"]["items"]["type"],
            "string"
        );
        for field in ["birth_date", "country", "name", "orgnr", "subject_id"] {
            assert!(input["properties"][field].is_object(), "{field}");
        }
        assert_eq!(d["annotations"]["openWorldHint"], true);
        let get = find("get_screening_check").unwrap().descriptor();
        assert_eq!(get["inputSchema"]["required"], json!(["id"]));
        let none = find("list_screening_whitelist").unwrap().descriptor();
        assert_eq!(none["inputSchema"]["type"], "object");
    }

    #[test]
    fn results_carry_the_body_byte_for_byte() {
        let body = Body(
            r#"{"subject_id":"01S","kind":"company","identifiers":[],"refs":[],"aliases":[]}"#
                .into(),
        );
        let result = success_result(&body, summary::subject).unwrap();
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
