//! Each rule of the classifier on small documents.

use super::*;
use serde_json::json;

/// A small OpenAPI document with one route answering `Thing`.
fn doc() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.0.0"},
        "paths": {
            "/v1/things/{id}": {"get": {
                "operationId": "get_thing",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "security": [{"oauth2": ["kyb:read"]}],
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                    "404": {"description": "absent", "content": {"application/json": {"schema": {
                        "allOf": [{"$ref": "#/components/schemas/ErrorBody"}, {"type": "object", "properties": {"error": {"type": "string", "enum": ["not_found"], "x-open-enum": true}}}]
                    }}}}
                }
            }},
            "/v1/things": {"post": {
                "operationId": "make_thing",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewThing"}}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}
            }}
        },
        "components": {
            "schemas": {
                "Thing": {"type": "object", "required": ["id", "kind"], "properties": {
                    "id": {"type": "string"},
                    "kind": {"type": "string", "enum": ["a", "b"]},
                    "country": {"type": "string", "enum": ["SE"], "x-open-enum": true},
                    "note": {"type": ["string", "null"]}
                }},
                "NewThing": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"},
                    "kind": {"type": "string", "enum": ["a", "b"]}
                }},
                "ErrorBody": {"type": "object", "required": ["error", "message"], "properties": {
                    "error": {"type": "string"}, "message": {"type": "string"}
                }}
            },
            "securitySchemes": {"oauth2": {"type": "oauth2", "flows": {"clientCredentials": {
                "tokenUrl": "/oauth/token", "scopes": {"kyb:read": "read", "kyc:read": "read persons"}
            }}}}
        }
    })
}

fn classify(edit: impl FnOnce(&mut Value)) -> (Option<Level>, Vec<Change>) {
    let old = doc();
    let mut new = doc();
    edit(&mut new);
    let changes = openapi(&old, &new);
    (required(&changes), changes)
}

fn thing(v: &mut Value) -> &mut Value {
    &mut v["components"]["schemas"]["Thing"]
}

#[test]
fn identical_documents_have_no_changes() {
    assert_eq!(classify(|_| {}).1, vec![]);
}

#[test]
fn the_version_alone_is_no_change() {
    assert_eq!(
        classify(|d| d["info"]["version"] = json!("2.0.0")).1,
        vec![]
    );
}

#[test]
fn a_response_field_added_is_minor() {
    let (level, changes) = classify(|d| {
        thing(d)["properties"]["size"] = json!({"type": "integer"});
    });
    assert_eq!(level, Some(Level::Minor), "{changes:?}");
}

#[test]
fn a_response_field_removed_is_major() {
    let (level, changes) = classify(|d| {
        thing(d)["properties"]
            .as_object_mut()
            .unwrap()
            .remove("note");
    });
    assert_eq!(level, Some(Level::Major), "{changes:?}");
    assert!(changes[0].what.contains("`note` removed"), "{changes:?}");
}

#[test]
fn a_response_field_becoming_optional_is_major_and_required_minor() {
    let (level, _) = classify(|d| thing(d)["required"] = json!(["id"]));
    assert_eq!(level, Some(Level::Major));
    let (level, _) = classify(|d| thing(d)["required"] = json!(["id", "kind", "note"]));
    assert_eq!(level, Some(Level::Minor));
}

#[test]
fn request_fields_follow_the_other_direction() {
    let (level, _) = classify(|d| {
        d["components"]["schemas"]["NewThing"]["properties"]["colour"] = json!({"type": "string"})
    });
    assert_eq!(level, Some(Level::Minor), "a new optional request field");
    let (level, _) = classify(|d| {
        let s = &mut d["components"]["schemas"]["NewThing"];
        s["properties"]["colour"] = json!({"type": "string"});
        s["required"] = json!(["name", "colour"]);
    });
    assert_eq!(level, Some(Level::Major), "a new required request field");
    let (level, _) =
        classify(|d| d["components"]["schemas"]["NewThing"]["required"] = json!(["name", "kind"]));
    assert_eq!(
        level,
        Some(Level::Major),
        "a request field becoming required"
    );
    let (level, _) = classify(|d| {
        d["components"]["schemas"]["NewThing"]["properties"]["kind"]["enum"] =
            json!(["a", "b", "c"])
    });
    assert_eq!(level, Some(Level::Minor), "a request enum value added");
    let (level, _) = classify(|d| {
        d["components"]["schemas"]["NewThing"]["properties"]["kind"]["enum"] = json!(["a"])
    });
    assert_eq!(level, Some(Level::Major), "a request enum value removed");
}

#[test]
fn response_enum_values_added_are_major_unless_the_enum_is_open() {
    let (level, _) = classify(|d| thing(d)["properties"]["kind"]["enum"] = json!(["a", "b", "c"]));
    assert_eq!(level, Some(Level::Major));
    let (level, _) = classify(|d| thing(d)["properties"]["country"]["enum"] = json!(["SE", "LT"]));
    assert_eq!(level, Some(Level::Minor));
    let (level, _) = classify(|d| thing(d)["properties"]["kind"]["enum"] = json!(["a"]));
    assert_eq!(level, Some(Level::Minor), "a response narrowed");
}

#[test]
fn a_changed_type_is_major() {
    let (level, _) = classify(|d| thing(d)["properties"]["id"]["type"] = json!("integer"));
    assert_eq!(level, Some(Level::Major));
    let (level, _) = classify(|d| thing(d)["properties"]["id"]["type"] = json!(["string", "null"]));
    assert_eq!(
        level,
        Some(Level::Major),
        "a response field becoming nullable"
    );
}

#[test]
fn a_route_renamed_is_major() {
    let (level, changes) = classify(|d| {
        let paths = d["paths"].as_object_mut().unwrap();
        let item = paths.remove("/v1/things/{id}").unwrap();
        paths.insert("/v1/objects/{id}".into(), item);
    });
    assert_eq!(level, Some(Level::Major));
    assert!(changes
        .iter()
        .any(|c| c.what == "path removed" && c.at == "/v1/things/{id}"));
    assert!(changes
        .iter()
        .any(|c| c.what == "path added" && c.level == Level::Minor));
}

#[test]
fn a_path_or_operation_added_is_minor_and_removed_major() {
    let (level, _) = classify(|d| d["paths"]["/v1/other"] = json!({"get": {"responses": {}}}));
    assert_eq!(level, Some(Level::Minor));
    let (level, _) = classify(|d| d["paths"]["/v1/things"]["get"] = json!({"responses": {}}));
    assert_eq!(level, Some(Level::Minor));
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things"]
            .as_object_mut()
            .unwrap()
            .remove("post");
    });
    assert_eq!(level, Some(Level::Major));
}

#[test]
fn a_new_error_code_on_a_route_is_minor() {
    let (level, changes) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["responses"]["404"]["content"]["application/json"]
            ["schema"]["allOf"][1]["properties"]["error"]["enum"] = json!(["not_found", "gone"]);
    });
    assert_eq!(level, Some(Level::Minor), "{changes:?}");
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["responses"]["429"] = json!({"description": "budget"});
    });
    assert_eq!(level, Some(Level::Minor), "a new error status");
}

#[test]
fn a_changed_success_status_is_major() {
    let (level, _) = classify(|d| {
        let responses = d["paths"]["/v1/things"]["post"]["responses"]
            .as_object_mut()
            .unwrap();
        let ok = responses.remove("200").unwrap();
        responses.insert("201".into(), ok);
    });
    assert_eq!(level, Some(Level::Major));
}

#[test]
fn security_and_parameters() {
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["security"] = json!([{"oauth2": ["kyb:refresh"]}])
    });
    assert_eq!(level, Some(Level::Major), "a scope no longer accepted");
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["security"] =
            json!([{"oauth2": ["kyb:read"]}, {"oauth2": ["kyc:read"]}])
    });
    assert_eq!(level, Some(Level::Minor), "one more scope accepted");
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["parameters"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "limit", "in": "query", "schema": {"type": "integer"}}))
    });
    assert_eq!(level, Some(Level::Minor), "an optional query parameter");
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["parameters"][0]["schema"]["pattern"] =
            json!("^[0-9]+$")
    });
    assert_eq!(level, Some(Level::Major), "a parameter constrained");
    let (level, _) = classify(|d| {
        d["components"]["securitySchemes"]["oauth2"]["flows"]["clientCredentials"]["scopes"]
            .as_object_mut()
            .unwrap()
            .remove("kyc:read");
    });
    assert_eq!(level, Some(Level::Major), "a scope removed from the scheme");
}

#[test]
fn documentation_is_a_patch() {
    let (level, _) = classify(|d| {
        thing(d)["properties"]["id"]["description"] = json!("The id");
        d["paths"]["/v1/things"]["post"]["summary"] = json!("Makes a thing");
        d["info"]["description"] = json!("About");
    });
    assert_eq!(level, Some(Level::Patch));
}

#[test]
fn unknown_keys_removed_or_changed_are_major() {
    let (level, _) = classify(|d| d["paths"]["/v1/things"]["post"]["x-rate"] = json!(1));
    assert_eq!(level, Some(Level::Minor));
    let (level, _) = classify(|d| d["openapi"] = json!("3.2.0"));
    assert_eq!(level, Some(Level::Major));
}

fn tools() -> Value {
    json!([
        {"name": "get_subject", "description": "d", "inputSchema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
         "annotations": {"readOnlyHint": true}},
        {"name": "list_events", "description": "d", "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}}}
    ])
}

#[test]
fn a_tool_added_is_minor_and_removed_major() {
    let old = tools();
    let mut new = tools();
    new.as_array_mut()
        .unwrap()
        .push(json!({"name": "get_officers", "inputSchema": {}}));
    assert_eq!(required(&mcp_tools(&old, &new)), Some(Level::Minor));
    let mut new = tools();
    new.as_array_mut().unwrap().remove(1);
    let changes = mcp_tools(&old, &new);
    assert_eq!(required(&changes), Some(Level::Major));
    assert_eq!(changes[0].at, "tool `list_events`");
}

#[test]
fn tool_inputs_and_hints() {
    let old = tools();
    let mut new = tools();
    new[1]["inputSchema"]["properties"]["limit"] = json!({"type": "integer"});
    assert_eq!(
        required(&mcp_tools(&old, &new)),
        Some(Level::Minor),
        "an optional input"
    );
    let mut new = tools();
    new[1]["inputSchema"]["required"] = json!(["cursor"]);
    assert_eq!(
        required(&mcp_tools(&old, &new)),
        Some(Level::Major),
        "an input became required"
    );
    let mut new = tools();
    new[0]["annotations"]["readOnlyHint"] = json!(false);
    assert_eq!(
        required(&mcp_tools(&old, &new)),
        Some(Level::Major),
        "a hint changed"
    );
    let mut new = tools();
    new[0]["description"] = json!("better words");
    assert_eq!(required(&mcp_tools(&old, &new)), Some(Level::Patch));
    assert_eq!(
        required(&mcp_tools(&json!([]), &tools())),
        Some(Level::Minor)
    );
}

fn codes() -> Value {
    json!([
        {"code": "not_found", "status": 404, "condition": "absent"},
        {"code": "forbidden", "status": 403, "condition": "scope"}
    ])
}

#[test]
fn error_codes_added_removed_and_restatused() {
    let mut new = codes();
    new.as_array_mut()
        .unwrap()
        .push(json!({"code": "gone", "status": 410, "condition": "gone"}));
    assert_eq!(required(&error_codes(&codes(), &new)), Some(Level::Minor));
    let mut new = codes();
    new.as_array_mut().unwrap().remove(0);
    assert_eq!(required(&error_codes(&codes(), &new)), Some(Level::Major));
    let mut new = codes();
    new[1]["status"] = json!(401);
    let changes = error_codes(&codes(), &new);
    assert_eq!(required(&changes), Some(Level::Major));
    assert!(changes[0].what.contains("status changed from 403 to 401"));
    let mut new = codes();
    new[1]["condition"] = json!("the scope is missing");
    assert_eq!(required(&error_codes(&codes(), &new)), Some(Level::Patch));
}

#[test]
fn event_types_added_removed_and_emitted() {
    let old = json!([{"type": "a.changed", "emitted": false, "emitted_by": "x", "notes": ""}]);
    let mut new = old.clone();
    new[0]["emitted"] = json!(true);
    assert_eq!(
        required(&event_types(&old, &new, false)),
        Some(Level::Minor)
    );
    assert_eq!(
        required(&event_types(&new, &old, false)),
        Some(Level::Major)
    );
    // Within an unreleased version `emitted` follows the build both ways.
    assert_eq!(required(&event_types(&new, &old, true)), Some(Level::Minor));
    let mut more = old.clone();
    more.as_array_mut()
        .unwrap()
        .push(json!({"type": "b.changed", "emitted": true}));
    assert_eq!(
        required(&event_types(&old, &more, false)),
        Some(Level::Minor)
    );
    assert_eq!(
        required(&event_types(&more, &old, false)),
        Some(Level::Major)
    );
    assert_eq!(
        required(&event_types(&more, &old, true)),
        Some(Level::Major)
    );
}

#[test]
fn a_negotiated_response_media_type_beside_json_is_minor_and_anything_else_is_not() {
    let problem = json!({"schema": {"$ref": "#/components/schemas/ErrorBody"}});
    // Beside application/json: served only to a client whose Accept names it.
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things/{id}"]["get"]["responses"]["404"]["content"]
            ["application/problem+json"] = problem.clone();
    });
    assert_eq!(level, Some(Level::Minor));
    // Where the response had no JSON to begin with, a new media type may reach old clients.
    let (level, _) = classify(|d| {
        let content = &mut d["paths"]["/v1/things/{id}"]["get"]["responses"]["404"]["content"];
        let json = content["application/json"].clone();
        *content = json!({"text/plain": json});
    });
    assert_eq!(level, Some(Level::Major));
    // A request media type added is a widening of what is accepted: minor as before.
    let (level, _) = classify(|d| {
        d["paths"]["/v1/things"]["post"]["requestBody"]["content"]
            ["application/x-www-form-urlencoded"] = problem.clone();
    });
    assert_eq!(level, Some(Level::Minor));
}

#[test]
fn a_schema_renamed_with_its_references_is_minor_and_a_changed_one_is_not() {
    fn rename(d: &mut Value, from: &str, to: &str) {
        let text = serde_json::to_string(d).unwrap().replace(
            &format!("#/components/schemas/{from}\""),
            &format!("#/components/schemas/{to}\""),
        );
        *d = serde_json::from_str(&text).unwrap();
        let schema = d["components"]["schemas"]
            .as_object_mut()
            .unwrap()
            .remove(from)
            .unwrap();
        d["components"]["schemas"][to] = schema;
    }
    let (level, changes) = classify(|d| rename(d, "Thing", "ThingRenamed"));
    assert_eq!(level, Some(Level::Minor), "{changes:?}");
    assert!(changes
        .iter()
        .any(|c| c.what.starts_with("renamed to `ThingRenamed`")));
    // A rename that also changes the schema is a removal.
    let (level, _) = classify(|d| {
        rename(d, "Thing", "ThingRenamed");
        d["components"]["schemas"]["ThingRenamed"]["required"] = json!(["id"]);
    });
    assert_eq!(level, Some(Level::Major));
}

/// `NewThing.name` and `Thing.id` with patterns, for the pattern rules.
fn with_patterns(d: &mut Value, request: &str, response: &str) {
    d["components"]["schemas"]["NewThing"]["properties"]["name"]["pattern"] = json!(request);
    thing(d)["properties"]["id"]["pattern"] = json!(response);
}

#[test]
fn a_pattern_gaining_an_alternative_widens_and_losing_one_narrows() {
    let old_request = "^(?:(?:se:)?[0-9]{10}|lt:[0-9]{9})$";
    let classify_patterns = |request: &str, response: &str| {
        let mut old = doc();
        with_patterns(&mut old, old_request, "^$|^(?:a|b)$");
        let mut new = doc();
        with_patterns(&mut new, request, response);
        required(&openapi(&old, &new))
    };
    let wider = "^(?:(?:se:)?[0-9]{10}|lt:[0-9]{9}|no:[0-9]{9})$";
    assert_eq!(
        classify_patterns(wider, "^$|^(?:a|b)$"),
        Some(Level::Minor),
        "a request accepts more"
    );
    assert_eq!(
        classify_patterns(old_request, "^$|^(?:a|b|c)$"),
        Some(Level::Major),
        "a response may hold what a consumer did not expect"
    );
    assert_eq!(
        classify_patterns("^(?:lt:[0-9]{9})$", "^$|^(?:a|b)$"),
        Some(Level::Major),
        "a request accepts less"
    );
    assert_eq!(
        classify_patterns(old_request, "^$|^(?:a)$"),
        Some(Level::Minor),
        "a response promises more"
    );
    assert_eq!(
        classify_patterns("^(?:(?:se:)?[0-9]{12}|lt:[0-9]{9})$", "^$|^(?:a|b)$"),
        Some(Level::Major),
        "an alternative changed is not compared: major"
    );
    // A group that is not one list of alternatives is not split.
    assert_eq!(pattern_alternatives("^(?:a)|(?:b)$").len(), 2);
    assert_eq!(
        pattern_alternatives("^$|^(?:a|[|]|\\|)$"),
        ["^$", "^a$", "^[|]$", "^\\|$"]
            .map(str::to_owned)
            .into_iter()
            .collect()
    );
}

#[test]
fn a_conditional_for_a_new_enum_value_is_minor_and_any_other_member_major() {
    let branch = |value: &str| {
        json!({"if": {"properties": {"kind": {"const": value}}, "required": ["kind"]},
               "then": {"properties": {"name": {"pattern": "^x$"}}}})
    };
    let mut old = doc();
    old["components"]["schemas"]["NewThing"]["allOf"] = json!([branch("a")]);
    let mut new = old.clone();
    let s = &mut new["components"]["schemas"]["NewThing"];
    s["properties"]["kind"]["enum"] = json!(["a", "b", "c"]);
    s["allOf"] = json!([branch("a"), branch("c")]);
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Minor));
    // A branch for a value accepted before constrains old requests.
    new["components"]["schemas"]["NewThing"]["allOf"] = json!([branch("a"), branch("b")]);
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Major));
    // Any other member added changes the composition.
    new["components"]["schemas"]["NewThing"]["allOf"] =
        json!([branch("a"), {"required": ["kind"]}]);
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Major));
}

#[test]
fn formats_added_are_minor_removed_major_and_reworded_a_patch() {
    let mut old = doc();
    old["x-formats"] = json!({"orgnr": "Ten digits."});
    let mut new = old.clone();
    new["x-formats"]["organisasjonsnummer"] = json!("Nine digits.");
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Minor));
    new["x-formats"]["orgnr"] = json!("Ten digits, Luhn.");
    new["x-formats"]
        .as_object_mut()
        .unwrap()
        .remove("organisasjonsnummer");
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Patch));
    new["x-formats"] = json!({});
    assert_eq!(required(&openapi(&old, &new)), Some(Level::Major));
}
