//! OAuth discovery: the metadata documents (RFC 9728, RFC 8414), the 401 challenges that
//! point at them, the authorization endpoint they must name, and the token endpoint's RFC 8707
//! `resource`.

use blackbox::{answer, TestApp};
use serde_json::{json, Value};

const CONSUMER_SCOPES: [&str; 10] = [
    "identity:read",
    "kyb:read",
    "kyc:read",
    "monitoring:read",
    "monitoring:subscribe",
    "decisions:write",
    "events:read",
    "screening:read",
    "screening:run",
    "kyb:refresh",
];

/// The parameters of a `Bearer` challenge.
fn challenge(header: &str) -> std::collections::BTreeMap<String, String> {
    let params = header
        .strip_prefix("Bearer ")
        .unwrap_or_else(|| panic!("a Bearer challenge: {header}"));
    params
        .split("\", ")
        .map(|pair| {
            let (name, value) = pair.split_once("=\"").expect("name=\"value\"");
            (name.to_owned(), value.trim_end_matches('"').to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metadata_documents_name_this_origin_and_its_token_endpoint() {
    let app = TestApp::spawn().await;
    let origin = app.base_url.trim_end_matches('/').to_owned();

    for (path, resource) in [
        ("/.well-known/oauth-protected-resource", origin.clone()),
        (
            "/.well-known/oauth-protected-resource/mcp",
            format!("{origin}/mcp"),
        ),
    ] {
        let prm = app.get(path, None).await;
        assert_eq!(prm.status, 200, "{path}: {}", prm.text);
        assert_eq!(prm.body["resource"], resource.as_str());
        assert_eq!(prm.body["authorization_servers"], json!([origin]));
        assert_eq!(prm.body["scopes_supported"], json!(CONSUMER_SCOPES));
        assert_eq!(prm.body["bearer_methods_supported"], json!(["header"]));
    }

    let asm = app
        .get("/.well-known/oauth-authorization-server", None)
        .await;
    assert_eq!(asm.status, 200, "{}", asm.text);
    assert_eq!(
        asm.body["issuer"],
        origin.as_str(),
        "exactly, no trailing slash"
    );
    assert_eq!(asm.body["token_endpoint"], format!("{origin}/oauth/token"));
    // A portal runs beside the API here: people connect agents by the authorization code.
    assert_eq!(
        asm.body["grant_types_supported"],
        json!(["client_credentials", "authorization_code", "refresh_token"])
    );
    assert_eq!(
        asm.body["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic", "client_secret_post", "none"])
    );
    assert_eq!(asm.body["response_types_supported"], json!(["code"]));
    assert_eq!(
        asm.body["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(
        asm.body["authorization_response_iss_parameter_supported"],
        true
    );
    assert_eq!(asm.body["scopes_supported"], json!(CONSUMER_SCOPES));

    // The authorization endpoint it names answers; an unknown client is refused there and
    // never redirected.
    let endpoint = asm.body["authorization_endpoint"].as_str().unwrap();
    assert_eq!(endpoint, format!("{origin}/oauth/authorize"));
    let refused = answer(
        app.http
            .get(format!(
                "{endpoint}?response_type=code&client_id=x&redirect_uri=https://evil.example/cb"
            ))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert_eq!(refused.body["error"], "invalid_client");
    assert!(refused.headers.get("location").is_none(), "never redirects");

    // Served in the contract too.
    let openapi = app.get("/openapi.json", None).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/oauth/authorize",
    ] {
        assert!(openapi.body["paths"].get(path).is_some(), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_401_points_at_the_metadata_and_names_the_scopes() {
    let app = TestApp::spawn().await;
    let origin = app.base_url.trim_end_matches('/').to_owned();

    // REST: the route's own scopes; the API's metadata.
    for (token, invalid) in [(None, false), (Some("not-a-token"), true)] {
        let refused = app.get("/v1/events", token).await;
        assert_eq!(refused.status, 401);
        let params = challenge(refused.headers["www-authenticate"].to_str().unwrap());
        assert_eq!(params["realm"], "idreg");
        assert_eq!(
            params["resource_metadata"],
            format!("{origin}/.well-known/oauth-protected-resource")
        );
        assert_eq!(params["scope"], "events:read");
        assert_eq!(
            params.get("error").map(String::as_str),
            invalid.then_some("invalid_token")
        );
    }
    let resolve = app
        .post_json(
            "/v1/subjects/resolve",
            None,
            &json!({"type": "orgnr", "value": "5560021361"}),
        )
        .await;
    let params = challenge(resolve.headers["www-authenticate"].to_str().unwrap());
    assert_eq!(params["scope"], "kyb:read kyc:read");

    // MCP: every consumer scope; the MCP endpoint's metadata, which names /mcp.
    let mcp = answer(
        app.http
            .post(app.url("/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(mcp.status, 401);
    let params = challenge(mcp.headers["www-authenticate"].to_str().unwrap());
    assert_eq!(params["scope"], CONSUMER_SCOPES.join(" "));
    let metadata = params["resource_metadata"].clone();
    assert_eq!(
        metadata,
        format!("{origin}/.well-known/oauth-protected-resource/mcp")
    );
    let prm: Value = app
        .http
        .get(&metadata)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(prm["resource"], format!("{origin}/mcp"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_request_may_name_this_service_as_its_resource() {
    let app = TestApp::spawn().await;
    let origin = app.base_url.trim_end_matches('/').to_owned();
    let c = app.provision("kyb:read events:read", "SE", "SE").await;
    let form = |extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("client_id", c.client_id.clone()),
            ("client_secret", c.client_secret.clone()),
        ];
        pairs.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", blackbox::urlencode(v)))
            .collect::<Vec<_>>()
            .join("&")
    };
    let post = |body: String| {
        let app = &app;
        async move {
            answer(
                app.http
                    .post(app.url("/oauth/token"))
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let mcp_resource = format!("{origin}/mcp");
    let root = format!("{origin}/");

    // This origin, with or without its root slash, or its MCP endpoint: a token for both.
    for resource in [origin.as_str(), root.as_str(), mcp_resource.as_str()] {
        let issued = post(form(&[("resource", resource)])).await;
        assert_eq!(issued.status, 200, "{resource}: {}", issued.text);
        assert_eq!(issued.body["scope"], "kyb:read events:read");
        let token = issued.body["access_token"].as_str().unwrap();
        assert_eq!(
            app.get("/v1/events?cursor=0", Some(token)).await.status,
            200
        );
    }
    let both = post(form(&[
        ("resource", origin.as_str()),
        ("resource", mcp_resource.as_str()),
    ]))
    .await;
    assert_eq!(both.status, 200, "{}", both.text);

    // Another audience: invalid_target, also beside one of ours.
    for others in [
        vec![("resource", "https://other.example")],
        vec![
            ("resource", mcp_resource.as_str()),
            ("resource", "https://other.example/mcp"),
        ],
    ] {
        let refused = post(form(&others)).await;
        assert_eq!(refused.status, 400, "{}", refused.text);
        assert_eq!(refused.body["error"], "invalid_target");
        assert!(refused.body["error_description"].is_string());
    }

    // With a resource, the scope list is what the metadata advertised: an upper bound.
    let every = CONSUMER_SCOPES.join(" ");
    let bounded = post(form(&[
        ("resource", mcp_resource.as_str()),
        ("scope", every.as_str()),
    ]))
    .await;
    assert_eq!(bounded.status, 200, "{}", bounded.text);
    assert_eq!(bounded.body["scope"], "kyb:read events:read");
    let none_held = post(form(&[
        ("resource", mcp_resource.as_str()),
        ("scope", "kyc:read"),
    ]))
    .await;
    assert_eq!(none_held.status, 400, "{}", none_held.text);
    assert_eq!(none_held.body["error"], "invalid_scope");
    // Without one, a scope the grant lacks is still refused by name (unchanged).
    let exact = post(form(&[("scope", every.as_str())])).await;
    assert_eq!(exact.status, 400);
    assert_eq!(exact.body["error"], "bad_request");

    // JSON bodies carry it too.
    let json_body = app
        .post_json(
            "/oauth/token",
            None,
            &json!({"grant_type": "client_credentials", "client_id": c.client_id,
                    "client_secret": c.client_secret, "resource": "https://other.example"}),
        )
        .await;
    assert_eq!(json_body.status, 400);
    assert_eq!(json_body.body["error"], "invalid_target");
}
