//! Agents connecting as people do, over real HTTP: dynamic registration, the authorization
//! endpoint (and every refusal that must not redirect), the person's sign-in and consent in the
//! portal, the code and refresh grants at the token endpoint, the token's audience, revocation,
//! and the member's limit. The official SDKs driving a headless browser through the same flow
//! are in `mcp::official_sdks`.

use base64::Engine;
use blackbox::{answer, Answer, TestApp};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-and-some-more-chars";

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A client that follows no redirect (each `Location` is read).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn origin(app: &TestApp) -> String {
    app.base_url.trim_end_matches('/').to_owned()
}

async fn register(app: &TestApp, body: Value) -> Answer {
    app.post_json("/oauth/register", None, &body).await
}

/// A public client with one loopback redirect URI.
async fn public_client(app: &TestApp, name: &str) -> (String, String) {
    let redirect = "http://127.0.0.1/callback".to_owned();
    let r = register(
        app,
        json!({
            "client_name": name,
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        }),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    (r.body["client_id"].as_str().unwrap().to_owned(), redirect)
}

fn authorize_url(app: &TestApp, pairs: &[(&str, &str)]) -> String {
    let query: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", blackbox::urlencode(v)))
        .collect();
    format!("{}/oauth/authorize?{}", origin(app), query.join("&"))
}

fn good_params<'a>(
    client_id: &'a str,
    redirect: &'a str,
    challenge: &'a str,
    mcp: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", redirect),
        ("code_challenge", challenge),
        ("code_challenge_method", "S256"),
        ("state", "st-42"),
        ("scope", "kyb:read offline_access"),
        ("resource", mcp),
    ]
}

struct Get {
    status: u16,
    location: String,
    body: String,
}

async fn get(http: &reqwest::Client, url: &str) -> Get {
    let r = http.get(url).send().await.unwrap();
    Get {
        status: r.status().as_u16(),
        location: r
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned())
            .unwrap_or_default(),
        body: r.text().await.unwrap(),
    }
}

/// A person signed in to the portal in a cookie-keeping browser.
async fn person(app: &TestApp, tenant: &str, email: &str, role: &str) -> reqwest::Client {
    app.app
        .services
        .portal_admin
        .create_user(tenant, email, role, None)
        .await
        .expect("a portal user");
    let browser = blackbox::portal::browser();
    let asked = browser
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", email)])
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);
    let mail = app.sandbox().mailbox(email);
    let link = blackbox::portal::link_in(&mail.last().expect("a mail").text).to_owned();
    let done = browser
        .post(format!("{}/sign-in/complete", app.portal_url))
        .form(&[("link", link.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 303);
    browser
}

fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("{name} in {page}"))
        + marker.len();
    page[at..].split('"').next().unwrap().to_owned()
}

fn query_of(location: &str) -> std::collections::HashMap<String, String> {
    let query = location.split_once('?').map(|(_, q)| q).unwrap_or("");
    serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .unwrap()
        .into_iter()
        .collect()
}

/// The consent page of an authorization request, followed from the API's redirect: the
/// portal's address and the page.
async fn consent_page(app: &TestApp, browser: &reqwest::Client, url: &str) -> (String, String) {
    let started = get(&no_redirects(), url).await;
    assert_eq!(started.status, 303, "{}", started.body);
    assert!(
        started
            .location
            .starts_with(&format!("{}/connect/ar_", app.portal_url)),
        "{}",
        started.location
    );
    let page = get(browser, &started.location).await;
    assert_eq!(page.status, 200, "{}", page.body);
    (started.location, page.body)
}

/// Allows with `fields` (beside the CSRF token); the `Location` the browser is sent to.
async fn decide(
    browser: &reqwest::Client,
    at: &str,
    page: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    let csrf = hidden(page, "csrf");
    let mut form = vec![("csrf", csrf.as_str())];
    form.extend_from_slice(fields);
    let r = browser.post(at).form(&form).send().await.unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, location, r.text().await.unwrap())
}

async fn token(app: &TestApp, form: &[(&str, &str)]) -> Answer {
    app.post_form("/oauth/token", form).await
}

async fn mcp_tools(app: &TestApp, bearer: &str) -> Answer {
    let r = app
        .http
        .post(app.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(bearer)
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    answer(r).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_connects_an_agent_and_its_tokens_rotate() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let browser = person(&app, &c.tenant_id, "anna@example.se", "admin").await;
    let (client_id, redirect) = public_client(&app, "Test agent").await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);

    // The metadata says all of it.
    let asm = app
        .get("/.well-known/oauth-authorization-server", None)
        .await;
    assert_eq!(
        asm.body["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(asm.body["client_id_metadata_document_supported"], true);
    assert_eq!(
        asm.body["registration_endpoint"],
        format!("{}/oauth/register", origin(&app))
    );

    // The app's request, at another loopback port; the person's consent page.
    let at_port = redirect.replace("127.0.0.1", "127.0.0.1:48123");
    let url = authorize_url(&app, &good_params(&client_id, &at_port, &ch, &mcp));
    let (page_url, page) = consent_page(&app, &browser, &url).await;
    assert!(page.contains("Test agent"), "{page}");
    assert!(page.contains("127.0.0.1"), "the redirect's host is shown");
    let (status, location, _) = decide(
        &browser,
        &page_url,
        &page,
        &[
            ("scopes", "kyb:read"),
            ("countries", "SE"),
            ("mode", "live"),
        ],
    )
    .await;
    assert_eq!(status, 303);
    assert!(
        location.starts_with("http://127.0.0.1:48123/callback?"),
        "{location}"
    );
    let answered = query_of(&location);
    assert_eq!(answered["state"], "st-42");
    assert_eq!(answered["iss"], origin(&app));
    let code = answered["code"].clone();

    // A second decision of the same request is refused.
    let (again, _, _) = decide(
        &browser,
        &page_url,
        &page,
        &[("scopes", "kyb:read"), ("countries", "SE")],
    )
    .await;
    assert_eq!(again, 404);

    // A wrong verifier does not use the code up; the right one redeems it once.
    let wrong = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", &"x".repeat(50)),
            ("redirect_uri", &at_port),
            ("resource", &mcp),
        ],
    )
    .await;
    assert_eq!(wrong.status, 400, "{}", wrong.text);
    assert_eq!(wrong.error_code(), "invalid_grant");
    let issued = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", &at_port),
            ("resource", &mcp),
        ],
    )
    .await;
    assert_eq!(issued.status, 200, "{}", issued.text);
    assert_eq!(issued.body["scope"], "kyb:read");
    let access = issued.body["access_token"].as_str().unwrap().to_owned();
    let refresh1 = issued.body["refresh_token"].as_str().unwrap().to_owned();

    // Its audience is the MCP endpoint: accepted there, refused by the REST API.
    assert_eq!(mcp_tools(&app, &access).await.status, 200);
    let rest = app.get("/v1/companies/5560021361", Some(&access)).await;
    assert_eq!(rest.status, 401, "{}", rest.text);

    // Rotation: the next token; the retired one within the grace answers the same successor.
    let refresh = |rt: String| {
        let app = &app;
        let client_id = client_id.clone();
        async move {
            token(
                app,
                &[
                    ("grant_type", "refresh_token"),
                    ("client_id", &client_id),
                    ("refresh_token", &rt),
                ],
            )
            .await
        }
    };
    let r2 = refresh(refresh1.clone()).await;
    assert_eq!(r2.status, 200, "{}", r2.text);
    let refresh2 = r2.body["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(refresh2, refresh1);
    let raced = refresh(refresh1.clone()).await;
    assert_eq!(raced.status, 200, "{}", raced.text);
    assert_eq!(raced.body["refresh_token"], refresh2.as_str());

    // Past the grace, the retired token revokes the connection: every token stops.
    app.clock.advance(chrono::Duration::seconds(60));
    let reused = refresh(refresh1.clone()).await;
    assert_eq!(reused.status, 400, "{}", reused.text);
    assert_eq!(reused.error_code(), "invalid_grant");
    assert_eq!(
        refresh(refresh2.clone()).await.error_code(),
        "invalid_grant"
    );
    assert_eq!(mcp_tools(&app, &access).await.status, 401);

    // A reused code: invalid_grant.
    let reused_code = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", &at_port),
        ],
    )
    .await;
    assert_eq!(reused_code.error_code(), "invalid_grant");

    // The portal lists the connection beside the grants, revoked.
    let grants = get(&browser, &format!("{}/grants", app.portal_url)).await;
    assert!(grants.body.contains("Connected apps"));
    assert!(grants.body.contains("Test agent"));
    assert!(grants.body.contains("state-revoked"));
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_that_must_not_redirect_never_do() {
    let app = TestApp::spawn().await;
    let (client_id, redirect) = public_client(&app, "Refused agent").await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let http = no_redirects();
    let base = good_params(&client_id, &redirect, &ch, &mcp);
    let with = |name: &str, value: Option<&str>| {
        let mut p: Vec<(String, String)> = base
            .iter()
            .filter(|(k, _)| *k != name)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(v) = value {
            p.push((name.to_owned(), v.to_owned()));
        }
        p
    };
    for (why, params) in [
        ("unknown client", with("client_id", Some("mcp_nobody"))),
        ("no client", with("client_id", None)),
        (
            "unregistered redirect",
            with("redirect_uri", Some("https://evil.example/callback")),
        ),
        (
            "another loopback name",
            with("redirect_uri", Some("http://localhost:9/callback")),
        ),
        ("no challenge", with("code_challenge", None)),
        ("plain", with("code_challenge_method", Some("plain"))),
        ("no method", with("code_challenge_method", None)),
        (
            "other resource",
            with("resource", Some("https://other.example/mcp")),
        ),
    ] {
        let pairs: Vec<(&str, &str)> = params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let r = http
            .get(authorize_url(&app, &pairs))
            .header("accept", "application/json")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{why}");
        assert!(r.headers().get("location").is_none(), "{why} redirected");
        let body: Value = r.json().await.unwrap();
        assert!(
            body["error"].is_string() && body["error_description"].is_string(),
            "{why}"
        );
    }
    // A person's browser gets a page.
    let page = http
        .get(authorize_url(
            &app,
            &with("client_id", Some("mcp_nobody"))
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
        ))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 400);
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("<code>invalid_client</code>"));

    // Other faults go back to the client, with state and iss.
    let token_flow = with("response_type", Some("token"));
    let pairs: Vec<(&str, &str)> = token_flow
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let back = get(&http, &authorize_url(&app, &pairs)).await;
    assert_eq!(back.status, 303);
    let q = query_of(&back.location);
    assert!(back.location.starts_with(&redirect), "{}", back.location);
    assert_eq!(q["error"], "unsupported_response_type");
    assert_eq!(q["state"], "st-42");
    assert_eq!(q["iss"], origin(&app));

    // Registration refusals.
    for (body, code) in [
        (
            json!({"redirect_uris": ["http://evil.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (
            json!({"redirect_uris": ["https://a.example/cb"], "grant_types": ["client_credentials"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": "https://a.example/cb"}),
            "invalid_client_metadata",
        ),
    ] {
        let r = register(&app, body.clone()).await;
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.error_code(), code, "{body}");
    }
    // The same public metadata again: the same client.
    let (again, _) = public_client(&app, "Refused agent").await;
    assert_eq!(again, client_id);
    // A confidential client gets a secret, once.
    let confidential = register(
        &app,
        json!({"redirect_uris": ["https://agent.example/cb"], "client_name": "Server agent"}),
    )
    .await;
    assert_eq!(confidential.status, 201, "{}", confidential.text);
    assert_eq!(
        confidential.body["token_endpoint_auth_method"],
        "client_secret_basic"
    );
    assert!(confidential.body["client_secret"]
        .as_str()
        .unwrap()
        .starts_with("cs_"));

    // CORS on the metadata, token and registration endpoints, and /mcp's preflight.
    for path in [
        "/oauth/token",
        "/oauth/register",
        "/.well-known/oauth-authorization-server",
        "/mcp",
    ] {
        let r = app
            .http
            .request(reqwest::Method::OPTIONS, app.url(path))
            .header("origin", "https://inspector.example")
            .header("access-control-request-method", "POST")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204, "{path}");
        assert_eq!(r.headers()["access-control-allow-origin"], "*", "{path}");
    }
    let asm = app
        .get("/.well-known/oauth-authorization-server", None)
        .await;
    assert_eq!(asm.headers["access-control-allow-origin"], "*");
    // Nothing else opens: a data route answers no CORS header.
    let other = app.get("/v1/usage", None).await;
    assert!(other.headers.get("access-control-allow-origin").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_connects_to_read_only_and_an_admin_revokes() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let member = person(&app, &c.tenant_id, "max@example.se", "member").await;
    let admin = person(&app, &c.tenant_id, "ada@example.se", "admin").await;
    let (client_id, redirect) = public_client(&app, "Member agent").await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let url = authorize_url(&app, &good_params(&client_id, &redirect, &ch, &mcp));

    // Over the role: refused, nothing made, and the request stays open.
    let (page_url, page) = consent_page(&app, &member, &url).await;
    assert!(
        !page.contains("value=\"kyc:read\""),
        "a member is not offered kyc:read"
    );
    let (status, _, body) = decide(
        &member,
        &page_url,
        &page,
        &[("scopes", "kyc:read"), ("countries", "SE")],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    // Within it: a connection.
    let (status, location, _) = decide(
        &member,
        &page_url,
        &page,
        &[("scopes", "kyb:read"), ("countries", "SE")],
    )
    .await;
    assert_eq!(status, 303);
    let code = query_of(&location)["code"].clone();
    let issued = token(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", &redirect),
        ],
    )
    .await;
    assert_eq!(issued.status, 200, "{}", issued.text);
    let access = issued.body["access_token"].as_str().unwrap().to_owned();
    let refresh = issued.body["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(mcp_tools(&app, &access).await.status, 200);

    // The admin revokes it: the access token and the refresh token stop at once.
    let grants = get(&admin, &format!("{}/grants", app.portal_url)).await;
    let grant_at = grants
        .body
        .find("class=\"card connection\" data-grant=\"")
        .unwrap();
    let grant_id = grants.body[grant_at..]
        .split('"')
        .nth(3)
        .unwrap()
        .to_owned();
    let csrf = hidden(&grants.body, "csrf");
    let revoked = admin
        .post(format!("{}/connections/{grant_id}/revoke", app.portal_url))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 303);
    assert_eq!(mcp_tools(&app, &access).await.status, 401);
    let refused = token(
        &app,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(refused.error_code(), "invalid_grant");

    // Denying: the app is told access_denied with its state.
    let (page_url, page) = consent_page(&app, &member, &url).await;
    let csrf = hidden(&page, "csrf");
    let denied = member
        .post(format!("{page_url}/refuse"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 303);
    let q = query_of(denied.headers()["location"].to_str().unwrap());
    assert_eq!(q["error"], "access_denied");
    assert_eq!(q["state"], "st-42");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_without_a_session_signs_in_and_comes_back() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    app.app
        .services
        .portal_admin
        .create_user(&c.tenant_id, "eva@example.se", "admin", None)
        .await
        .unwrap();
    let (client_id, redirect) = public_client(&app, "Fresh agent").await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let url = authorize_url(&app, &good_params(&client_id, &redirect, &ch, &mcp));
    let started = get(&no_redirects(), &url).await;
    let browser = blackbox::portal::browser();
    // From another site no cookie comes: the portal's page moves the browser on.
    let landing = get(&browser, &started.location).await;
    assert_eq!(landing.status, 200);
    assert!(landing.body.contains("continue=1"));
    let moved = get(&browser, &format!("{}?continue=1", started.location)).await;
    assert_eq!(moved.status, 303);
    assert_eq!(moved.location, "/sign-in");
    browser
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", "eva@example.se")])
        .send()
        .await
        .unwrap();
    let mail = app.sandbox().mailbox("eva@example.se");
    let link = blackbox::portal::link_in(&mail.last().unwrap().text).to_owned();
    let done = browser
        .post(format!("{}/sign-in/complete", app.portal_url))
        .form(&[("link", link.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 303);
    let back = done.headers()["location"].to_str().unwrap().to_owned();
    assert!(back.starts_with("/connect/ar_"), "{back}");
    let page = get(&browser, &format!("{}{back}", app.portal_url)).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Fresh agent"));
}

/// A connection through to its token: the client, its redirect URI, and the token answer.
async fn connected(app: &TestApp, scopes: &str) -> (String, String, Answer) {
    let c = app.provision("kyb:read screening:run", "SE", "SE").await;
    let email = format!(
        "p{}@example.se",
        ulid::Ulid::generate().to_string().to_lowercase()
    );
    let browser = person(app, &c.tenant_id, &email, "admin").await;
    let (client_id, redirect) = public_client(app, "Scoped agent").await;
    let mcp = format!("{}/mcp", origin(app));
    let ch = challenge(VERIFIER);
    let url = authorize_url(app, &good_params(&client_id, &redirect, &ch, &mcp));
    let (page_url, page) = consent_page(app, &browser, &url).await;
    let mut fields = vec![("countries", "SE")];
    fields.extend(scopes.split(' ').map(|s| ("scopes", s)));
    let (status, location, body) = decide(&browser, &page_url, &page, &fields).await;
    assert_eq!(status, 303, "{body}");
    let code = query_of(&location)["code"].clone();
    let issued = token(
        app,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", &redirect),
            ("resource", &mcp),
        ],
    )
    .await;
    (client_id, redirect, issued)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_lacking_a_tools_scope_is_asked_to_step_up() {
    let app = TestApp::spawn().await;
    let (_, _, issued) = connected(&app, "kyb:read").await;
    assert_eq!(issued.status, 200, "{}", issued.text);
    let access = issued.body["access_token"].as_str().unwrap();
    let call = app
        .http
        .post(app.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(access)
        .body(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "screen_subject", "arguments": {"name": "Anna Test"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let answered = answer(call).await;
    assert_eq!(answered.status, 403, "{}", answered.text);
    let challenge = answered.headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"kyb:read screening:run\""),
        "{challenge}"
    );
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    // A client-credentials token keeps the isError result: only the operator widens it.
    let c = app.provision("kyb:read", "SE", "SE").await;
    let machine = app.token(&c).await;
    let r = app
        .http
        .post(app.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(&machine)
        .body(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "screen_subject", "arguments": {"name": "Anna Test"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn codes_expire_name_their_resource_and_bind_their_client() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let browser = person(&app, &c.tenant_id, "olle@example.se", "admin").await;
    let (client_id, redirect) = public_client(&app, "Bound agent").await;
    let (other_client, _) = public_client(&app, "Other agent").await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let code_of = |location: &str| query_of(location)["code"].clone();
    let mut codes = Vec::new();
    for _ in 0..2 {
        let url = authorize_url(&app, &good_params(&client_id, &redirect, &ch, &mcp));
        let (page_url, page) = consent_page(&app, &browser, &url).await;
        let (_, location, _) = decide(
            &browser,
            &page_url,
            &page,
            &[("scopes", "kyb:read"), ("countries", "SE")],
        )
        .await;
        codes.push(code_of(&location));
    }
    let redeem = |code: String, client: String, extra: Vec<(&'static str, String)>| {
        let app = &app;
        let redirect = redirect.clone();
        async move {
            let mut form = vec![
                ("grant_type", "authorization_code".to_owned()),
                ("client_id", client),
                ("code", code),
                ("code_verifier", VERIFIER.to_owned()),
                ("redirect_uri", redirect),
            ];
            form.extend(extra);
            let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            token(app, &pairs).await
        }
    };
    // Another client, another redirect URI, another resource, no verifier: refused, and the
    // code is not used up by them.
    let other = redeem(codes[1].clone(), other_client, vec![]).await;
    assert_eq!(other.error_code(), "invalid_grant", "{}", other.text);
    let wrong_resource = redeem(
        codes[1].clone(),
        client_id.clone(),
        vec![("resource", origin(&app))],
    )
    .await;
    assert_eq!(
        wrong_resource.error_code(),
        "invalid_target",
        "{}",
        wrong_resource.text
    );
    let mut no_verifier = vec![
        ("grant_type", "authorization_code"),
        ("client_id", client_id.as_str()),
        ("code", codes[1].as_str()),
        ("redirect_uri", redirect.as_str()),
    ];
    assert_eq!(
        token(&app, &no_verifier).await.error_code(),
        "invalid_grant"
    );
    no_verifier[3] = ("redirect_uri", "http://127.0.0.1:1/callback");
    no_verifier.push(("code_verifier", VERIFIER));
    assert_eq!(
        token(&app, &no_verifier).await.error_code(),
        "invalid_grant"
    );
    let api_token = redeem(codes[1].clone(), client_id.clone(), vec![]).await;
    assert_eq!(api_token.status, 200, "{}", api_token.text);
    // A forged code names nothing.
    let forged = redeem("ac_bm90LWEtY29kZQ".into(), client_id.clone(), vec![]).await;
    assert_eq!(forged.error_code(), "invalid_grant");
    // Five minutes on, the first code has lapsed.
    app.clock.advance(chrono::Duration::minutes(6));
    let late = redeem(codes[0].clone(), client_id.clone(), vec![]).await;
    assert_eq!(late.error_code(), "invalid_grant", "{}", late.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_metadata_document_on_a_private_address_is_never_read() {
    // The default: documents on loopback (and private) addresses are refused.
    let app = TestApp::spawn().await;
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let port = blackbox::free_port().to_string();
    for client_id in [
        format!("https://127.0.0.1:{port}/client.json"),
        format!("https://localhost:{port}/client.json"),
        "https://10.1.2.3/client.json".to_owned(),
    ] {
        let url = authorize_url(
            &app,
            &good_params(&client_id, "http://127.0.0.1/callback", &ch, &mcp),
        );
        let r = no_redirects()
            .get(&url)
            .header("accept", "application/json")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{client_id}");
        assert!(r.headers().get("location").is_none());
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"], "invalid_client", "{body}");
        assert!(
            body["error_description"]
                .as_str()
                .unwrap()
                .contains("metadata document"),
            "{body}"
        );
    }
    // A consent posted without the session's CSRF token, or from another origin, changes
    // nothing.
    let c = app.provision("kyb:read", "SE", "SE").await;
    let browser = person(&app, &c.tenant_id, "stina@example.se", "admin").await;
    let (client_id, redirect) = public_client(&app, "Careful agent").await;
    let url = authorize_url(&app, &good_params(&client_id, &redirect, &ch, &mcp));
    let (page_url, page) = consent_page(&app, &browser, &url).await;
    let no_csrf = browser
        .post(&page_url)
        .form(&[("scopes", "kyb:read"), ("countries", "SE")])
        .send()
        .await
        .unwrap();
    assert_eq!(no_csrf.status(), 403);
    let csrf = hidden(&page, "csrf");
    let foreign = browser
        .post(&page_url)
        .header("origin", "https://evil.example")
        .form(&[
            ("csrf", csrf.as_str()),
            ("scopes", "kyb:read"),
            ("countries", "SE"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    // The request is still open: the person decides it.
    let (status, location, _) = decide(
        &browser,
        &page_url,
        &page,
        &[("scopes", "kyb:read"), ("countries", "SE")],
    )
    .await;
    assert_eq!(status, 303);
    assert!(location.starts_with(&redirect));
    // Ten minutes on, a request no one decided has lapsed.
    let url = authorize_url(&app, &good_params(&client_id, &redirect, &ch, &mcp));
    let started = get(&no_redirects(), &url).await;
    app.clock.advance(chrono::Duration::minutes(11));
    let lapsed = get(&browser, &started.location).await;
    assert_eq!(lapsed.status, 404, "{}", lapsed.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confidential_client_redeems_and_refreshes_with_its_secret() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let browser = person(&app, &c.tenant_id, "conf@example.se", "admin").await;
    let redirect = "https://agent.example/oauth/callback";
    let registered = register(
        &app,
        json!({"client_name": "Server agent", "redirect_uris": [redirect],
               "grant_types": ["authorization_code", "refresh_token"]}),
    )
    .await;
    assert_eq!(registered.status, 201, "{}", registered.text);
    let client_id = registered.body["client_id"].as_str().unwrap().to_owned();
    let secret = registered.body["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let mcp = format!("{}/mcp", origin(&app));
    let ch = challenge(VERIFIER);
    let url = authorize_url(&app, &good_params(&client_id, redirect, &ch, &mcp));
    let (page_url, page) = consent_page(&app, &browser, &url).await;
    let (status, location, _) = decide(
        &browser,
        &page_url,
        &page,
        &[("scopes", "kyb:read"), ("countries", "SE")],
    )
    .await;
    assert_eq!(status, 303);
    assert!(location.starts_with(redirect), "{location}");
    let code = query_of(&location)["code"].clone();
    let form = |secret: &str| {
        vec![
            ("grant_type", "authorization_code".to_owned()),
            ("client_id", client_id.clone()),
            ("client_secret", secret.to_owned()),
            ("code", code.clone()),
            ("code_verifier", VERIFIER.to_owned()),
            ("redirect_uri", redirect.to_owned()),
        ]
    };
    // Without its secret, or with another: invalid_client, and the code is not used up.
    for wrong in ["", "cs_not_the_secret"] {
        let f = form(wrong);
        let p: Vec<(&str, &str)> = f
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        let refused = token(&app, &p).await;
        assert_eq!(refused.status, 401, "{}", refused.text);
        assert_eq!(refused.error_code(), "invalid_client");
    }
    let f = form(&secret);
    let p: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let issued = token(&app, &p).await;
    assert_eq!(issued.status, 200, "{}", issued.text);
    let refresh = issued.body["refresh_token"].as_str().unwrap().to_owned();
    // HTTP Basic on the refresh, as client_secret_basic says.
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{client_id}:{secret}"));
    let refreshed = answer(
        app.http
            .post(app.url("/oauth/token"))
            .header("authorization", format!("Basic {basic}"))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh.as_str()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    assert_ne!(refreshed.body["refresh_token"], refresh.as_str());
}
