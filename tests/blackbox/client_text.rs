//! Every string a client can send, on every route and tool, is stored faithfully or refused
//! with 400 naming the field (`bad_request`, or the specification's code for a malformed
//! identifier or cursor: `invalid_identifier`, `invalid_cursor`): never a 500. Proven over all string inputs at
//! once: the routes and their parameters are read from the served OpenAPI document and the
//! tools and their arguments from `tools/list`, so a field added later is covered without a
//! change here; each is sent generated strings (NUL anywhere, control characters, other
//! scripts, long strings) beside plausible values for the other fields.

use crate::mcp::{mcp, rpc};
use blackbox::{urlencode, Answer, TestApp};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{json, Map, Value};

const ALL_SCOPES: &str = "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe decisions:write events:read screening:read screening:run kyb:refresh";
/// Generated strings per field, beside the two fixed ones (a lone NUL, a NUL inside a
/// plausible value).
const CASES_PER_FIELD: usize = 6;

/// Strings of every kind a client might send, a NUL among them now and then.
fn client_strings() -> impl Strategy<Value = String> {
    proptest::prop_oneof![
        "\\PC{0,24}",
        ("\\PC{0,12}", "\\PC{0,12}").prop_map(|(a, b)| format!("{a}\0{b}")),
        "[\\x00-\\x1f\\x7f]{1,6}",
        "[0-9\\-+ \\x00\u{FF10}-\u{FF19}\u{0660}-\u{0669}]{6,14}",
        "\\PC{300,600}",
        proptest::strategy::Just(String::new()),
    ]
}

fn generated(runner: &mut TestRunner) -> Vec<String> {
    let strategy = client_strings();
    let mut values = vec!["\0".to_owned(), "5560021361\0".to_owned()];
    values.extend((0..CASES_PER_FIELD).map(|_| strategy.new_tree(runner).unwrap().current()));
    values
}

/// What every answer to a generated string must be: never a server error; a string holding
/// NUL refused naming its field, with its field's code.
fn judge(what: &str, field: &str, value: &str, status: u16, body: &Value, text: &str) {
    assert!(
        status < 500,
        "{what} `{field}` = {value:?}: {status} {text}"
    );
    if value.contains('\0') {
        assert_eq!(status, 400, "{what} `{field}` = {value:?}: {text}");
        // The specification's code for a malformed value of the field, where it has one,
        // which tells a client what to do; else `bad_request`.
        let code = if domain::text::IDENTIFIER_FIELDS.contains(&field) {
            "invalid_identifier"
        } else if field == "cursor" {
            "invalid_cursor"
        } else {
            "bad_request"
        };
        assert_eq!(body["error"], code, "{what} `{field}`: {text}");
        if code == "invalid_cursor" {
            assert!(body["recovery"].is_string(), "{what}: the recovery: {text}");
        }
        let message = body["message"].as_str().unwrap_or("");
        assert!(
            message.starts_with(&format!("`{field}")),
            "{what}: the refusal names `{field}`: {message}"
        );
    }
}

/// A plausible value for a field, by its name: enough for the request to reach the field
/// under test.
fn plausible(name: &str, subject_id: &str) -> Value {
    match name {
        "type" => json!("orgnr"),
        "value" | "orgnr" => json!("5560021361"),
        "subject_id" | "id" => json!(subject_id),
        "kind" => json!("company"),
        "legal_basis" => json!("aml_cdd"),
        "name" => json!("Anna Svensson"),
        "grant_type" => json!("client_credentials"),
        "nationalities" => json!(["SE"]),
        "country" => json!("SE"),
        "birth_date" => json!("1970-01-01"),
        _ => json!("x"),
    }
}

/// The string properties of a JSON schema (following `$ref` into `components`), with whether
/// each is a list of strings.
fn string_properties(schema: &Value, doc: &Value) -> Vec<(String, bool, bool)> {
    let schema = resolve(schema, doc);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(name, p)| {
            let p = resolve(p, doc);
            let types = types_of(&p);
            let list = types.iter().any(|t| t == "array")
                && types_of(&resolve(&p["items"], doc))
                    .iter()
                    .any(|t| t == "string");
            let string = types.iter().any(|t| t == "string") || p["enum"].is_array();
            (string || list).then(|| (name.clone(), list, required.contains(&name.as_str())))
        })
        .collect()
}

fn types_of(schema: &Value) -> Vec<String> {
    let mut types: Vec<String> = match &schema["type"] {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(alternatives) = schema[key].as_array() {
            types.extend(alternatives.iter().flat_map(types_of));
        }
    }
    types
}

fn resolve(schema: &Value, doc: &Value) -> Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or("");
            resolve(&doc["components"]["schemas"][name], doc)
        }
        None => schema.clone(),
    }
}

async fn send(
    app: &TestApp,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Answer {
    let url = app.url(path);
    let request = match method {
        "post" => app.http.post(url),
        "delete" => app.http.delete(url),
        _ => app.http.get(url),
    };
    let mut request = request.bearer_auth(token);
    if let Some(body) = body {
        request = request.json(body);
    }
    blackbox::answer(request.send().await.expect("request")).await
}

#[tokio::test]
async fn every_string_of_every_route_is_stored_or_refused_naming_its_field() {
    // Screening ready, so a check's strings go all the way to the store.
    let (app, _, _) = crate::screening::ready().await;
    let consumer = app.provision(ALL_SCOPES, "SE,LT", "SE,LT").await;
    let token = app.token(&consumer).await;
    let resolved = app
        .resolve(&token, "orgnr", "5560021361", Some("c-1"))
        .await;
    assert_eq!(resolved.status, 200, "{}", resolved.text);
    let subject_id = resolved.body["subject_id"].as_str().unwrap().to_owned();

    let doc = app.get("/openapi.json", None).await.body;
    let paths = doc["paths"].as_object().expect("paths").clone();
    let mut runner = TestRunner::default();
    let mut fields_checked = 0;
    let mut requests = 0;
    for (template, operations) in &paths {
        if !template.starts_with("/v1/") {
            continue; // the token endpoint is below; the document takes no input
        }
        for (method, op) in operations.as_object().unwrap() {
            // Path and query parameters (a header, such as `Idempotency-Key`, cannot carry a
            // NUL at all; its grammar is held by the domain's property tests).
            let params: Vec<(String, String)> = op["parameters"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .filter(|p| p.get("$ref").is_none())
                        .filter(|p| matches!(p["in"].as_str(), Some("path" | "query")))
                        .map(|p| {
                            (
                                p["name"].as_str().unwrap().to_owned(),
                                p["in"].as_str().unwrap().to_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let body_schema = &op["requestBody"]["content"]["application/json"]["schema"];
            let body_fields = if body_schema.is_null() {
                Vec::new()
            } else {
                string_properties(body_schema, &doc)
            };
            // Plausible values everywhere; then one field at a time takes generated strings.
            let base_path = |over: Option<(&str, &str)>| {
                let mut path = template.clone();
                let mut query = Vec::new();
                for (name, place) in &params {
                    let value = match over {
                        Some((field, value)) if field == name => value.to_owned(),
                        _ => plausible(name, &subject_id)
                            .as_str()
                            .unwrap_or("x")
                            .to_owned(),
                    };
                    match place.as_str() {
                        "path" => path = path.replace(&format!("{{{name}}}"), &urlencode(&value)),
                        "query" if over.is_some_and(|(f, _)| f == name) => {
                            query.push(format!("{}={}", urlencode(name), urlencode(&value)))
                        }
                        _ => {}
                    }
                }
                if query.is_empty() {
                    path
                } else {
                    format!("{path}?{}", query.join("&"))
                }
            };
            let base_body = || {
                let mut body = Map::new();
                for (name, _, required) in &body_fields {
                    if *required {
                        body.insert(name.clone(), plausible(name, &subject_id));
                    }
                }
                body
            };
            for (name, _) in &params {
                fields_checked += 1;
                for value in generated(&mut runner) {
                    let path = base_path(Some((name, &value)));
                    let body = (!body_schema.is_null()).then(|| Value::Object(base_body()));
                    let a = send(&app, method, &path, &token, body.as_ref()).await;
                    requests += 1;
                    judge(
                        &format!("{} {template}", method.to_uppercase()),
                        name,
                        &value,
                        a.status,
                        &a.body,
                        &a.text,
                    );
                }
            }
            for (name, list, _) in &body_fields {
                fields_checked += 1;
                for value in generated(&mut runner) {
                    let mut body = base_body();
                    let field = if *list {
                        body.insert(name.clone(), json!(["SE", value]));
                        format!("{name}[1]")
                    } else {
                        body.insert(name.clone(), json!(value));
                        name.clone()
                    };
                    let a = send(
                        &app,
                        method,
                        &base_path(None),
                        &token,
                        Some(&Value::Object(body)),
                    )
                    .await;
                    requests += 1;
                    judge(
                        &format!("{} {template}", method.to_uppercase()),
                        &field,
                        &value,
                        a.status,
                        &a.body,
                        &a.text,
                    );
                }
            }
        }
    }
    // The document describes every route family: the walk above reached their inputs.
    assert!(fields_checked >= 25, "{fields_checked} fields checked");
    assert!(requests >= 25 * 8, "{requests} requests");

    // The token endpoint, in both body encodings.
    for field in ["grant_type", "client_id", "client_secret", "scope"] {
        for value in generated(&mut runner) {
            let mut form = vec![
                ("grant_type", "client_credentials".to_owned()),
                ("client_id", consumer.client_id.clone()),
                ("client_secret", consumer.client_secret.clone()),
            ];
            form.retain(|(k, _)| *k != field);
            form.push((field, value.clone()));
            let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let a = app.post_form("/oauth/token", &pairs).await;
            judge(
                "POST /oauth/token (form)",
                field,
                &value,
                a.status,
                &a.body,
                &a.text,
            );
            let json_body: Map<String, Value> = form
                .iter()
                .map(|(k, v)| (k.to_string(), json!(v)))
                .collect();
            let a = app
                .post_json("/oauth/token", None, &Value::Object(json_body))
                .await;
            judge(
                "POST /oauth/token (json)",
                field,
                &value,
                a.status,
                &a.body,
                &a.text,
            );
        }
    }
    // Nothing was lost: the subject resolved first is still there, with its reference.
    let subject = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&token))
        .await;
    assert_eq!(subject.status, 200, "{}", subject.text);
    assert_eq!(subject.body["refs"][0]["ref"], "c-1", "{}", subject.text);
}

#[tokio::test]
async fn every_string_argument_of_every_tool_is_stored_or_refused_naming_its_field() {
    let (app, _, _) = crate::screening::ready().await;
    let consumer = app.provision(ALL_SCOPES, "SE,LT", "SE,LT").await;
    let token = app.token(&consumer).await;
    let resolved = app.resolve(&token, "orgnr", "5560021361", None).await;
    let subject_id = resolved.body["subject_id"].as_str().unwrap().to_owned();

    let listed = mcp(&app, &token, &rpc(1, "tools/list", json!({}))).await;
    let tools = listed.body["result"]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    assert!(tools.len() >= 21, "{} tools listed", tools.len());
    let mut runner = TestRunner::default();
    let mut fields_checked = 0;
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        let fields = string_properties(schema, &json!({}));
        let base = || {
            let mut args = Map::new();
            for (field, _, required) in &fields {
                if *required {
                    args.insert(field.clone(), plausible(field, &subject_id));
                }
            }
            args
        };
        for (field, list, _) in &fields {
            fields_checked += 1;
            for value in generated(&mut runner) {
                let mut args = base();
                let named = if *list {
                    args.insert(field.clone(), json!(["SE", value]));
                    format!("{field}[1]")
                } else {
                    args.insert(field.clone(), json!(value));
                    field.clone()
                };
                let a = mcp(
                    &app,
                    &token,
                    &rpc(3, "tools/call", json!({"name": name, "arguments": args})),
                )
                .await;
                let what = format!("tool {name}");
                assert!(a.status < 500, "{what} `{named}` = {value:?}: {}", a.text);
                assert!(a.body.get("error").is_none(), "{what}: {}", a.text);
                let result = &a.body["result"];
                if value.contains('\0') {
                    assert_eq!(result["isError"], true, "{what} `{named}`: {}", a.text);
                    let relayed: Value = serde_json::from_str(
                        result["content"][1]["text"]
                            .as_str()
                            .or(result["content"][0]["text"].as_str())
                            .unwrap_or("null"),
                    )
                    .unwrap_or(Value::Null);
                    judge(&what, &named, &value, 400, &relayed, &a.text);
                } else if result["isError"] == true {
                    // A refusal is fine; a server error never.
                    assert!(
                        !a.text.contains("internal_error"),
                        "{what} `{named}` = {value:?}: {}",
                        a.text
                    );
                }
            }
        }
    }
    assert!(
        fields_checked >= 25,
        "{fields_checked} tool arguments checked"
    );

    // The tool name and the JSON-RPC envelope are client strings too.
    for value in generated(&mut runner) {
        let a = mcp(
            &app,
            &token,
            &rpc(4, "tools/call", json!({"name": value, "arguments": {}})),
        )
        .await;
        assert!(a.status < 500, "tool name {value:?}: {}", a.text);
        assert!(
            !a.text.contains("internal_error"),
            "tool name {value:?}: {}",
            a.text
        );
        let a = mcp(&app, &token, &rpc(5, &value, json!({}))).await;
        assert!(a.status < 500, "method {value:?}: {}", a.text);
        assert!(
            !a.text.contains("internal_error"),
            "method {value:?}: {}",
            a.text
        );
    }
}
