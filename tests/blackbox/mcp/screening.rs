//! The screening tools: listed by the screening scopes, `screen_subject` the one that writes,
//! every result's `content[1]` the REST body of the same request byte for byte, and refusals
//! relayed as `isError` results carrying the API's code.

use super::*;
use crate::persons::tool_error;
use crate::screening::{check, ready, LISTED_BIRTH, LISTED_ENTRY, LISTED_NAME};

const READ_TOOLS: [&str; 4] = [
    "get_screening_check",
    "list_screening_checks",
    "list_screening_overrides",
    "list_screening_whitelist",
];

fn screening_tools(names: Vec<String>) -> Vec<String> {
    names.into_iter().filter(|n| n.contains("screen")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_screening_tools_follow_the_screening_scopes() {
    let app = TestApp::spawn().await;
    let (_, read) = consumer(&app, "screening:read").await;
    assert_eq!(tool_names(&app, &read).await, READ_TOOLS);
    let (_, run) = consumer(&app, "screening:run").await;
    let mut all = READ_TOOLS.to_vec();
    all.push("screen_subject");
    assert_eq!(tool_names(&app, &run).await, all);
    let (_, kyb) = consumer(&app, "kyb:read kyc:read").await;
    assert_eq!(
        screening_tools(tool_names(&app, &kyb).await),
        Vec::<String>::new()
    );

    let listed = mcp(&app, &run, &rpc(2, "tools/list", json!({}))).await;
    let tools = listed.body["result"]["tools"].as_array().unwrap().clone();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    let screen = tool("screen_subject");
    assert_eq!(
        screen["annotations"],
        json!({"title": "Screen against sanctions and PEP lists", "readOnlyHint": false,
               "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    let input = &screen["inputSchema"];
    assert!(
        input.get("required").is_none(),
        "every input is optional: {input}"
    );
    for field in [
        "birth_date",
        "country",
        "name",
        "nationalities",
        "orgnr",
        "subject_id",
    ] {
        assert!(input["properties"][field].is_object(), "{field}");
    }
    assert_eq!(
        input["properties"]["nationalities"]["items"]["type"],
        "string"
    );
    assert!(screen["outputSchema"]["properties"]["candidates"].is_object());
    for name in READ_TOOLS {
        let t = tool(name);
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{name}");
        assert_eq!(t["annotations"]["idempotentHint"], true, "{name}");
        assert_eq!(t["annotations"]["destructiveHint"], false, "{name}");
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        assert!(t["outputSchema"].is_object(), "{name}");
    }
    assert_eq!(
        tool("get_screening_check")["inputSchema"]["required"],
        json!(["id"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn screen_subject_answers_the_rest_body_and_its_check_is_fetched_alike() {
    let (app, list, _) = ready().await;
    let (_, token) = consumer(&app, "screening:run").await;

    let result = call_tool(
        &app,
        &token,
        "screen_subject",
        json!({"name": LISTED_NAME, "birth_date": LISTED_BIRTH, "nationalities": ["CD"]}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let body: Value = serde_json::from_str(text(&result, 1)).unwrap();
    let id = body["id"].as_str().unwrap().to_owned();
    assert_eq!(body["band"], "hit");
    assert_eq!(body["candidates"][0]["source_entry_id"], LISTED_ENTRY);
    assert_eq!(body["source_version_ids"], json!([list.id.to_string()]));
    // structuredContent is the body plus the summary of content[0] and (a check of a person
    // subject spends a person lookup) the caller's standing against the person ceiling.
    let mut structured = result["structuredContent"].clone();
    assert_eq!(structured["summary"], result["content"][0]["text"]);
    structured.as_object_mut().unwrap().remove("summary");
    let quota = structured.as_object_mut().unwrap().remove("quota").unwrap();
    assert_eq!(quota[0]["policy"], "person_lookups");
    assert_eq!(structured, body);
    let summary = text(&result, 0);
    assert!(
        summary.starts_with(&format!("Screening check {id} (adhoc): hit; 1 candidate")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("un_sc:{LISTED_ENTRY}")),
        "{summary}"
    );
    assert!(!summary.contains('\n'));

    // The check by id: the REST body, byte for byte, through both surfaces.
    let rest = app
        .get(&format!("/v1/screening/checks/{id}"), Some(&token))
        .await;
    assert_eq!(rest.status, 200, "{}", rest.text);
    assert_eq!(
        rest.text,
        text(&result, 1),
        "the tool's body is the REST body"
    );
    let got = call_tool(&app, &token, "get_screening_check", json!({"id": id})).await;
    assert_eq!(got["isError"], false, "{got}");
    assert_eq!(text(&got, 1), rest.text);

    // A REST check afterwards: the list tool answers the REST list.
    let second = check(&app, &token, json!({"name": LISTED_NAME})).await;
    assert_eq!(second.status, 201, "{}", second.text);
    for (arguments, query) in [(json!({}), ""), (json!({"limit": 1}), "?limit=1")] {
        let listed = call_tool(&app, &token, "list_screening_checks", arguments).await;
        assert_eq!(listed["isError"], false, "{listed}");
        let rest = app
            .get(&format!("/v1/screening/checks{query}"), Some(&token))
            .await;
        assert_eq!(text(&listed, 1), rest.text, "{query}");
    }
    let listed = call_tool(&app, &token, "list_screening_checks", json!({})).await;
    assert_eq!(
        text(&listed, 0),
        "2 screening checks (newest first): 2 hit, 0 review"
    );
    for (tool, path) in [
        ("list_screening_overrides", "/v1/screening/overrides"),
        ("list_screening_whitelist", "/v1/screening/whitelist"),
    ] {
        let result = call_tool(&app, &token, tool, json!({})).await;
        assert_eq!(result["isError"], false, "{result}");
        let rest = app.get(path, Some(&token)).await;
        assert_eq!(text(&result, 1), rest.text, "{tool}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_are_is_error_results_with_the_apis_code() {
    let (app, _, _) = ready().await;
    let (c, token) = consumer(&app, "screening:run").await;

    // A personal number in the name: refused, unechoed, nothing stored.
    let result = call_tool(
        &app,
        &token,
        "screen_subject",
        json!({"name": "Anna 19811130-9285"}),
    )
    .await;
    assert_eq!(tool_error(&result), "name_is_identifier");
    assert!(text(&result, 0).starts_with("name_is_identifier: "));
    let body: Value = serde_json::from_str(text(&result, 1)).unwrap();
    assert_eq!(body["error"], "name_is_identifier");
    let all = result.to_string();
    for spelling in ["19811130", "8111309285", "811130-9285"] {
        assert!(!all.contains(spelling), "the result echoes the number");
    }
    let listed = call_tool(&app, &token, "list_screening_checks", json!({})).await;
    assert_eq!(text(&listed, 1), r#"{"checks":[]}"#);

    // Arguments of the wrong type, and values the route refuses.
    let result = call_tool(
        &app,
        &token,
        "screen_subject",
        json!({"name": "Katanga", "nationalities": "CD"}),
    )
    .await;
    assert_eq!(tool_error(&result), "bad_request");
    assert!(text(&result, 0).contains("`nationalities`"), "{result}");
    let result = call_tool(
        &app,
        &token,
        "screen_subject",
        json!({"name": "Volvo", "orgnr": 5560360794u64}),
    )
    .await;
    assert_eq!(tool_error(&result), "invalid_identifier", "{result}");
    let result = call_tool(
        &app,
        &token,
        "get_screening_check",
        json!({"id": "chk_nope"}),
    )
    .await;
    assert_eq!(tool_error(&result), "not_found");

    // A read-only grant: the read tools answer, screen_subject is forbidden.
    let reader = app.grant(&c.tenant_id, "screening:read", "SE").await;
    let reader = app.token(&reader).await;
    let result = call_tool(
        &app,
        &reader,
        "screen_subject",
        json!({"name": LISTED_NAME}),
    )
    .await;
    assert_eq!(tool_error(&result), "forbidden");
    let listed = call_tool(&app, &reader, "list_screening_checks", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
}
