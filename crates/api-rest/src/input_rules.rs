//! What the service validates in a request, declared in the OpenAPI document, so that a
//! client generated from it validates what the service validates and a request the document
//! allows is one the service accepts.
//!
//! Each rule is written here once, as the JSON Schema of the parameter or body member it
//! governs, from the domain's own lists where the domain has one (identifier types, event
//! types, scopes, legal bases, subscription states). `openapi::document` applies
//! [`apply`] to the generated document.
//!
//! A regular rule (a shape, an enum, a bound) is a `pattern`, an `enum` or a `minimum`/
//! `maximum`. A rule no regular expression states (a check digit, a calendar date, a name
//! with a letter in any script, free text that must not hold a personal number) is named by
//! a `format` of this interface, described in the document's `x-formats` (from [`FORMATS`]):
//! the pattern beside it gives the shape, the format the rest. Surrounding whitespace, which the
//! service trims from identifiers, is left out of the patterns (a client sends none).
//! Relations between members are `if`/`then` clauses and `anyOf` alternatives inside
//! `allOf` (a generator such as openapi-python-client then keeps one flat model).
//!
//! `tests` holds every pattern to the parser it stands for: what the pattern matches, the
//! parser accepts (up to the format's rule), and what the parser accepts, the pattern
//! matches.

use domain::monitoring::subscription::{LegalBasis, SubscriptionStatus};
use serde_json::{json, Map, Value};

// The patterns live beside the parsers they stand for (in the domain, and an identifier
// scheme's in its country's crate, read through the installed schemes); REST's document and
// MCP's tool schemas read the same ones, and here they are put where the document needs them.
pub use domain::access::scope::scope_list_pattern;
pub use domain::idempotency::key::IDEMPOTENCY_KEY_PATTERN as IDEMPOTENCY_KEY;
pub use domain::ids::ULID_PATTERN as ULID;
pub use domain::monitoring::event::{cursor_pattern, decimal_at_most, event_types_pattern};
pub use domain::subjects::identifier::company_code_pattern;
use domain::subjects::identifier::scheme;
pub use domain::text::{NOT_BLANK_PATTERN as NOT_BLANK, TEXT_PATTERN as TEXT};

/// The custom formats of this interface that are not an identifier scheme's: name and meaning.
const OTHER_FORMATS: [(&str, &str); 4] = [
    ("partial-date", "A birth date as people know it: `YYYY-MM-DD` (a real date not in the future), `YYYY-MM` or `YYYY`, the year from 1850 to this year."),
    ("screening-name", "A name to screen: at least one letter or digit (in any script), and no number shaped like a personal identity number (400 `name_is_identifier`)."),
    ("webhook-url", "A webhook endpoint's address: an absolute `https` URL without credentials or fragment whose host is a name or a publicly routable address (not private, loopback, link-local, shared, reserved, documentation or multicast); a deployment that allows loopback receivers also takes `http` to a loopback host."),
    ("reference", "Free text kept as sent: it must not hold a number shaped like a personal identity number (any script of digits, up to three separators between groups)."),
];

/// The custom formats of this interface: name and meaning. Each known identifier scheme is a
/// format (its country's crate says what it means), and `company-code` is every company
/// scheme's.
pub fn formats() -> Vec<(String, String)> {
    let mut formats = vec![(
        "company-code".to_owned(),
        scheme::company_code_description(),
    )];
    formats.extend(
        scheme::known()
            .iter()
            .map(|ty| (ty.as_str().to_owned(), ty.format_description().to_owned())),
    );
    formats.extend(
        OTHER_FORMATS
            .iter()
            .map(|(name, meaning)| (name.to_string(), meaning.to_string())),
    );
    formats
}

/// The rule of each parameter, by route template (`None`: every route) and name.
fn parameter_rule(template: &str, name: &str) -> Option<Value> {
    let ulid = |prefix: &str| json!({"type": "string", "pattern": format!("^{prefix}{ULID}$")});
    Some(match (template, name) {
        (_, "orgnr") => {
            json!({"type": "string", "pattern": company_code_pattern(), "format": "company-code"})
        }
        ("/v1/persons/{ref}" | "/v1/persons/{ref}/engagements", "ref") => ulid("idr_"),
        ("/v1/subjects/{id}", "id") => ulid(""),
        ("/v1/subscriptions/{id}" | "/v1/subscriptions/{id}/end", "id") => ulid("sub_"),
        ("/v1/screening/checks/{id}", "id") => ulid("chk_"),
        (
            "/v1/webhooks/{id}"
            | "/v1/webhooks/{id}/disable"
            | "/v1/webhooks/{id}/enable"
            | "/v1/webhooks/{id}/rotate-secret"
            | "/v1/webhooks/{id}/deliveries",
            "id",
        ) => ulid("whk_"),
        ("/v1/webhooks/{id}/deliveries", "cursor") => {
            json!({"type": "string", "pattern": cursor_pattern()})
        }
        (_, "subject_id") => ulid(""),
        ("/v1/events", "cursor") => json!({"type": "string", "pattern": cursor_pattern()}),
        ("/v1/events", "types") => json!({"type": "string", "pattern": event_types_pattern()}),
        ("/v1/events" | "/v1/subscriptions" | "/v1/webhooks/{id}/deliveries", "limit") => {
            json!({"type": "integer", "minimum": 1, "maximum": 1000})
        }
        ("/v1/screening/checks", "limit") => {
            json!({"type": "integer", "minimum": 1, "maximum": 200})
        }
        ("/v1/subscriptions", "status") => json!({
            "type": "string",
            "enum": SubscriptionStatus::ALL.map(SubscriptionStatus::as_str),
        }),
        _ => return None,
    })
}

/// Applies every rule to `doc` (before the schemas are renamed).
pub fn apply(doc: &mut Value) {
    doc["x-formats"] = formats()
        .into_iter()
        .map(|(name, meaning)| (name, json!(meaning)))
        .collect::<Map<_, _>>()
        .into();
    doc["components"]["parameters"]["IdempotencyKey"]["schema"] =
        json!({"type": "string", "pattern": IDEMPOTENCY_KEY});
    if let Some(paths) = doc["paths"].as_object_mut() {
        for (template, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for operation in item.values_mut() {
                let Some(parameters) = operation
                    .get_mut("parameters")
                    .and_then(Value::as_array_mut)
                else {
                    continue;
                };
                for parameter in parameters {
                    let Some(name) = parameter["name"].as_str().map(str::to_owned) else {
                        continue;
                    };
                    let name = name.as_str();
                    if name == "orgnr" {
                        parameter["description"] = json!(api_core::schema::company_code_argument());
                    }
                    if let Some(rule) = parameter_rule(template, name) {
                        parameter["schema"] = rule;
                    }
                }
            }
        }
    }
    let schemas = &mut doc["components"]["schemas"];
    resolve_request(&mut schemas["ResolveRequest"]);
    subscribe_request(&mut schemas["SubscribeRequest"]);
    screening_check_request(&mut schemas["ScreeningCheckRequest"]);
    token_request(&mut schemas["TokenRequest"]);
    create_webhook_request(&mut schemas["CreateWebhookRequest"]);
}

fn property<'a>(schema: &'a mut Value, name: &str) -> &'a mut Map<String, Value> {
    if !schema["properties"][name].is_object() {
        schema["properties"][name] = json!({});
    }
    schema["properties"][name]
        .as_object_mut()
        .expect("an object was put there")
}

fn set(schema: &mut Value, name: &str, rules: Value) {
    let target = property(schema, name);
    // A nullable member (`type: [string, null]`) keeps its null.
    for (k, v) in rules.as_object().expect("rules are an object") {
        if k == "type" && target.get("type").is_some_and(Value::is_array) {
            continue;
        }
        target.insert(k.clone(), v.clone());
    }
}

fn resolve_request(schema: &mut Value) {
    set(
        schema,
        "ref",
        json!({"maxLength": 200, "pattern": NOT_BLANK, "format": "reference"}),
    );
    set(schema, "value", json!({"minLength": 1}));
    // The value's shape and check rules follow its type: one `if`/`then` per type (a
    // generated client keeps one flat model).
    schema["allOf"] = scheme::known()
        .iter()
        .map(|ty| {
            json!({
                "if": {"properties": {"type": {"const": ty.as_str()}}, "required": ["type"]},
                "then": {"properties": {"value": {
                    "pattern": ty.pattern(),
                    "format": ty.as_str(),
                }}},
            })
        })
        .collect();
}

fn subscribe_request(schema: &mut Value) {
    set(
        schema,
        "subject_id",
        json!({"pattern": format!("^{ULID}$")}),
    );
    set(schema, "kind", json!({"enum": ["person", "company"]}));
    set(
        schema,
        "legal_basis",
        json!({"enum": LegalBasis::ALL.map(LegalBasis::as_str)}),
    );
    set(
        schema,
        "legal_basis_ref",
        json!({"maxLength": 500, "pattern": TEXT, "format": "reference"}),
    );
    set(schema, "check_days", json!({"minimum": 1, "maximum": 365}));
    set(
        schema,
        "full_refresh_days",
        json!({"minimum": 1, "maximum": 365}),
    );
    // `full_refresh_days` is not shorter than `check_days` (absent, `check_days` is 1 and
    // `full_refresh_days` 30 or `check_days` if longer): some day count d lies between them.
    // JSON Schema compares no two members, so one alternative per d (exact, and generators
    // that read `anyOf` draw only pairs the service accepts).
    // (Inside `allOf`, so that a generated client keeps one flat model.)
    let between: Vec<Value> = (1..=365)
        .map(|d| {
            json!({"properties": {
                "check_days": {"maximum": d},
                "full_refresh_days": {"minimum": d},
            }})
        })
        .collect();
    schema["allOf"] = json!([{"anyOf": between}]);
}

fn screening_check_request(schema: &mut Value) {
    set(
        schema,
        "subject_id",
        json!({"pattern": format!("^{ULID}$")}),
    );
    // A blank `name` or an empty `orgnr` counts as absent.
    set(
        schema,
        "name",
        json!({"maxLength": 300, "pattern": TEXT, "format": "screening-name"}),
    );
    set(
        schema,
        "birth_date",
        json!({"pattern": "^[0-9]{4}(?:-[0-9]{2}(?:-[0-9]{2})?)?$", "format": "partial-date"}),
    );
    set(
        schema,
        "orgnr",
        json!({"pattern": format!("^$|{}", company_code_pattern()), "format": "company-code"}),
    );
    set(schema, "country", json!({"pattern": "^[A-Za-z]{2}$"}));
    let nationalities = property(schema, "nationalities");
    nationalities.insert(
        "items".into(),
        json!({"type": "string", "pattern": "^[A-Za-z]{2}$"}),
    );
    nationalities.insert(
        "maxItems".into(),
        json!(domain::screening::service::MAX_NATIONALITIES),
    );
    // Either a subject, or an ad-hoc identity with a name or an organisation number (as
    // `if`/`then`, so that a generated client keeps one flat model).
    let adhoc = ["name", "birth_date", "nationalities", "orgnr", "country"];
    let absent = json!({"not": {}});
    let mut subject: Map<String, Value> = adhoc
        .iter()
        .map(|n| (n.to_string(), absent.clone()))
        .collect();
    subject.insert(
        "subject_id".into(),
        json!({"type": "string", "pattern": format!("^{ULID}$")}),
    );
    schema["allOf"] = json!([
        {"if": {"required": ["subject_id"]}, "then": {"properties": subject}},
        {"if": {"not": {"required": ["subject_id"]}}, "then": {"anyOf": [
            {"required": ["name"], "properties": {"name": {"type": "string", "pattern": NOT_BLANK}}},
            {"required": ["orgnr"], "properties": {"orgnr": {"type": "string", "pattern": company_code_pattern()}}},
        ]}},
    ]);
}

fn create_webhook_request(schema: &mut Value) {
    use domain::webhooks::endpoint::{MAX_DESCRIPTION_CHARS, MAX_URL_BYTES};
    set(
        schema,
        "url",
        json!({
            "maxLength": MAX_URL_BYTES,
            "pattern": domain::webhooks::endpoint::URL_SHAPE_PATTERN,
            "format": "webhook-url",
        }),
    );
    let types = property(schema, "types");
    types.insert(
        "items".into(),
        json!({
            "type": "string",
            "enum": domain::monitoring::event::EventType::ALL.map(|t| t.name()),
        }),
    );
    types.insert("minItems".into(), json!(1));
    set(
        schema,
        "description",
        json!({"maxLength": MAX_DESCRIPTION_CHARS, "pattern": domain::webhooks::endpoint::DESCRIPTION_PATTERN}),
    );
    set(
        schema,
        "start_after",
        json!({"minimum": 0, "maximum": i64::MAX}),
    );
}

fn token_request(schema: &mut Value) {
    set(schema, "scope", json!({"pattern": scope_list_pattern()}));
    for field in ["client_id", "client_secret", "resource"] {
        set(schema, field, json!({"pattern": TEXT}));
    }
}

#[cfg(test)]
mod tests;
