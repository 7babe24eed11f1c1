//! Tools: listed by scope, answering the REST bodies byte for byte, relaying REST failures, invalid
//! params and bad arguments.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn tools_list_shows_only_what_the_scopes_permit() {
    let app = TestApp::spawn().await;
    let (_, kyb) = consumer(&app, "kyb:read").await;
    let kyb_tools = [
        "get_beneficial_owners",
        "get_company_profile",
        "get_officers",
        "get_person_engagements",
        "get_signatories",
        "get_subject",
        "lookup_company",
    ];
    assert_eq!(tool_names(&app, &kyb).await, kyb_tools);
    let (_, events) = consumer(&app, "events:read").await;
    // The log, and pushing it to webhook endpoints.
    assert_eq!(
        tool_names(&app, &events).await,
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
    let (_, refresh) = consumer(&app, "kyb:refresh").await;
    assert!(!tool_names(&app, &refresh)
        .await
        .contains(&"get_company_profile".to_owned()));

    // The grant governs: narrowing shows at once.
    let (c, both) = consumer(&app, "kyb:read kyc:read").await;
    let mut both_tools: Vec<&str> = kyb_tools
        .iter()
        .copied()
        .chain(["get_person_profile", "lookup_person"])
        .collect();
    both_tools.sort_unstable();
    assert_eq!(tool_names(&app, &both).await, both_tools);
    app.admin(&["grant", "update", &c.grant_id, "--scopes", "kyc:read"])
        .await
        .unwrap();
    // kyc:read alone: the person tools (lookup_person's resolve is open to kyc:read too).
    assert_eq!(
        tool_names(&app, &both).await,
        ["get_person_profile", "lookup_person"]
    );

    // The descriptors: schemas and annotations as the spec's table says; the catalog the
    // contract snapshot writes is what a token with every scope sees.
    let (_, all) = consumer(&app, ALL_SCOPES).await;
    let listed = mcp(&app, &all, &rpc(2, "tools/list", Value::Null)).await;
    let tools = listed.body["result"]["tools"].clone();
    let get_subject = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_subject")
        .unwrap();
    assert_eq!(get_subject["inputSchema"]["type"], "object");
    assert_eq!(get_subject["inputSchema"]["required"], json!(["id"]));
    assert_eq!(get_subject["outputSchema"]["type"], "object");
    assert_eq!(
        get_subject["annotations"],
        json!({"title": "Subject", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    let lookup = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "lookup_company")
        .unwrap();
    assert!(lookup.get("outputSchema").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn get_subject_answers_the_rest_body_byte_for_byte() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let subject_id = company_subject(&app, &token).await;
    let person = app
        .resolve(&token, "personnummer", TEST_PERSON, Some("cust-9"))
        .await;
    assert_eq!(person.status, 200, "{}", person.text);
    let person_id = person.body["subject_id"].as_str().unwrap().to_owned();

    for id in [subject_id, person_id] {
        let rest = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
        assert_eq!(rest.status, 200);
        let result = call_tool(&app, &token, "get_subject", json!({"id": id})).await;
        assert_eq!(result["isError"], false);
        assert_eq!(text(&result, 1), rest.text, "content[1] is the REST body");
        let summary = text(&result, 0);
        assert!(summary.starts_with(&format!("Subject {id}")), "{summary}");
        assert!(!summary.contains('\n'));
        let mut expected = rest.body.clone();
        expected["summary"] = json!(summary);
        assert_eq!(result["structuredContent"], expected);
        assert_eq!(result["content"][0]["type"], "text");
        assert_eq!(result["content"][1]["type"], "text");
        let raw = result.to_string();
        assert!(!raw.contains(TEST_PERSON) && !raw.contains(&TEST_PERSON[2..]));
    }

    // A failure is the REST error body, byte for byte.
    let missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    let rest = app
        .get(&format!("/v1/subjects/{missing}"), Some(&token))
        .await;
    assert_eq!(rest.status, 404);
    let result = call_tool(&app, &token, "get_subject", json!({"id": missing})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result, 1), rest.text);
    assert_eq!(
        text(&result, 0),
        format!("not_found: {}", rest.body["message"].as_str().unwrap())
    );
    assert!(result.get("structuredContent").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_the_scopes_do_not_list_answers_like_the_rest_route() {
    let app = TestApp::spawn().await;
    let (_, kyb) = consumer(&app, "kyb:read").await;
    let subject_id = company_subject(&app, &kyb).await;
    let (_, kyc) = consumer(&app, "kyc:read").await;
    let rest = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&kyc))
        .await;
    assert_eq!(rest.status, 403);
    let result = call_tool(&app, &kyc, "get_subject", json!({"id": subject_id})).await;
    assert_eq!(result["isError"], true);
    assert!(text(&result, 0).starts_with("forbidden: "), "{result}");
    assert_eq!(text(&result, 1), rest.text, "the REST 403 body");

    for tool in ["get_company_profile", "lookup_company"] {
        let result = call_tool(&app, &kyc, tool, json!({"orgnr": TEST_COMPANY})).await;
        assert_eq!(result["isError"], true);
        let body: Value = serde_json::from_str(text(&result, 1)).unwrap();
        assert_eq!(body["error"], "forbidden", "{tool}");
        assert!(body["message"].as_str().unwrap().contains("kyb:read"));
    }
    // lookup_company refused before resolving: the kyc:read tenant has no subject.
    assert_eq!(app.db.count("subjects", "true").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tools_are_invalid_params_and_bad_arguments_are_bad_request() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let unknown = mcp(
        &app,
        &token,
        &rpc(
            9,
            "tools/call",
            json!({"name": "delete_everything", "arguments": {}}),
        ),
    )
    .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.body["error"]["code"], -32602);
    assert_eq!(unknown.body["id"], 9);
    assert!(!unknown.text.contains("delete_everything"));

    for params in [
        json!({}),
        json!({"name": 5}),
        json!({"name": "get_subject", "arguments": "id"}),
    ] {
        let answer = mcp(&app, &token, &rpc(10, "tools/call", params.clone())).await;
        assert_eq!(answer.body["error"]["code"], -32602, "{params}");
    }

    for (arguments, message) in [
        (json!({}), "`id`: is required"),
        (Value::Null, "`id`: is required"),
        (json!({"id": null}), "`id`: is required"),
        (json!({"id": 42}), "`id`: must be a string"),
    ] {
        let result = call_tool(&app, &token, "get_subject", arguments.clone()).await;
        assert_eq!(result["isError"], true, "{arguments}");
        assert_eq!(
            text(&result, 0),
            format!("bad_request: {message}"),
            "{arguments}"
        );
        assert_eq!(
            text(&result, 1),
            json!({"error": "bad_request", "message": message}).to_string()
        );
    }
    let result = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": "not-a-number"}),
    )
    .await;
    assert_eq!(result["isError"], true);
    let rest = app.get("/v1/companies/not-a-number", Some(&token)).await;
    assert_eq!(rest.error_code(), "invalid_identifier");
    assert_eq!(text(&result, 1), rest.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn get_company_profile_answers_the_rest_body_and_relays_its_failures() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    let result = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    // The second read is served from the tenant's cache: the same body.
    let rest = app
        .get(&format!("/v1/companies/{TEST_COMPANY}"), Some(&token))
        .await;
    assert_eq!(rest.status, 200, "{}", rest.text);
    assert_eq!(text(&result, 1), rest.text);
    let mut expected = rest.body.clone();
    expected["summary"] = result["content"][0]["text"].clone();
    assert_eq!(result["structuredContent"], expected);
    assert!(text(&result, 0).contains(TEST_COMPANY));

    // Failures of the route, relayed with its code and body.
    for (orgnr, code) in [
        ("lt:999999999", "not_found"),
        ("5599000006", "not_found"),
        ("5561890039", "invalid_identifier"),
        ("SE:5561890038", "invalid_identifier"),
    ] {
        let result = call_tool(&app, &token, "get_company_profile", json!({"orgnr": orgnr})).await;
        let rest = app
            .get(&format!("/v1/companies/{orgnr}"), Some(&token))
            .await;
        assert_eq!(rest.error_code(), code, "{orgnr}");
        assert_eq!(result["isError"], true, "{orgnr}");
        assert_eq!(text(&result, 1), rest.text, "{orgnr}");
        assert_eq!(
            text(&result, 0),
            format!("{code}: {}", rest.body["message"].as_str().unwrap())
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn lookup_company_creates_the_subject_and_composes_both_bodies() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    let mine = format!("tenant_id = '{}'", c.tenant_id);
    let subjects = || app.db.count("subjects", &mine);
    assert_eq!(subjects().await, 0);
    let result = call_tool(
        &app,
        &token,
        "lookup_company",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(subjects().await, 1, "created on first sight");

    // The same two REST requests give the same two bodies.
    let resolved = app.resolve(&token, "orgnr", TEST_COMPANY, None).await;
    let rest = app
        .get(&format!("/v1/companies/{TEST_COMPANY}"), Some(&token))
        .await;
    assert_eq!((resolved.status, rest.status), (200, 200));
    let expected = format!(r#"{{"subject":{},"company":{}}}"#, resolved.text, rest.text);
    assert_eq!(text(&result, 1), expected);
    let structured = &result["structuredContent"];
    assert_eq!(structured["subject"], resolved.body);
    assert_eq!(structured["company"], rest.body);
    assert_eq!(structured["summary"], result["content"][0]["text"]);
    assert_eq!(
        structured["subject"]["subject_id"],
        structured["company"]["data"]["subject_id"]
    );
    let summary = text(&result, 0);
    assert!(
        summary.contains(resolved.body["subject_id"].as_str().unwrap()),
        "{summary}"
    );

    // What the company route refuses is the answer, and nothing is resolved for it.
    for (orgnr, code) in [
        (TEST_PERSON, "invalid_identifier"),
        ("5599000006", "not_found"),
        ("lt:999999999", "not_found"),
    ] {
        let refused = call_tool(&app, &token, "lookup_company", json!({"orgnr": orgnr})).await;
        assert_eq!(refused["isError"], true, "{orgnr}");
        assert!(
            text(&refused, 0).starts_with(&format!("{code}: ")),
            "{refused}"
        );
        assert!(!refused.to_string().contains(TEST_PERSON));
    }
    assert_eq!(subjects().await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_paid_tools_answer_their_routes_bodies_byte_for_byte() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    for (tool, path) in [
        (
            "get_officers",
            format!("/v1/companies/{TEST_COMPANY}/officers"),
        ),
        (
            "get_signatories",
            format!("/v1/companies/{TEST_COMPANY}/signatories"),
        ),
        (
            "get_beneficial_owners",
            format!("/v1/companies/{TEST_COMPANY}/beneficial-owners"),
        ),
    ] {
        let result = call_tool(&app, &token, tool, json!({"orgnr": TEST_COMPANY})).await;
        assert_ne!(result["isError"], true, "{tool}: {result}");
        // The route answers from the cache the tool filled: the same bytes.
        let rest = app.get(&path, Some(&token)).await;
        assert_eq!(text(&result, 1), rest.text, "{tool}");
        assert_eq!(result["structuredContent"]["data"], rest.body["data"]);
        assert!(result["structuredContent"]["summary"].is_string());
    }
    let officers = app
        .get(
            &format!("/v1/companies/{TEST_COMPANY}/officers"),
            Some(&token),
        )
        .await;
    let person_ref = officers.body["data"]["officers"][0]["personal_number_ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let result = call_tool(
        &app,
        &token,
        "get_person_engagements",
        json!({"ref": person_ref}),
    )
    .await;
    assert_ne!(result["isError"], true, "{result}");
    let rest = app
        .get(
            &format!("/v1/persons/{person_ref}/engagements"),
            Some(&token),
        )
        .await;
    assert_eq!(text(&result, 1), rest.text);
    // A refusal is relayed with the route's code.
    let bad = call_tool(
        &app,
        &token,
        "get_person_engagements",
        json!({"ref": "nope"}),
    )
    .await;
    assert_eq!(bad["isError"], true);
    assert!(text(&bad, 0).starts_with("invalid_identifier: "));
    // Each tool call wrote its mcp.tool_call row beside the route's row.
    assert!(
        app.db
            .count(
                "audit_log",
                "action = 'mcp.tool_call' AND tool = 'get_officers'"
            )
            .await
            >= 1
    );
    assert!(
        app.db
            .count(
                "audit_log",
                "route = '/v1/companies/{orgnr}/officers' AND surface = 'mcp'"
            )
            .await
            >= 1
    );
}
