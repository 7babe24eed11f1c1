//! The tenant portal's users, as the operator makes a tenant's first one: an address checked
//! and kept in lower case, one user per address within a tenant (another tenant may have its
//! own), and the tenant's users listed.

use blackbox::portal::{browser, link_in};
use blackbox::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_makes_a_tenants_first_portal_user() {
    let app = TestApp::spawn().await;
    let a = app.provision("kyb:read", "SE", "SE").await;
    let b = app.provision("kyb:read", "SE", "SE").await;

    let made = app
        .admin(&[
            "portal-user",
            "create",
            "--tenant",
            &a.tenant_id,
            "--email",
            "Compliance.Lead@Example.SE",
        ])
        .await
        .expect("a portal user");
    assert_eq!(made["email"], "compliance.lead@example.se");
    assert_eq!(made["role"], "admin");
    assert_eq!(made["tenant_id"], a.tenant_id.as_str());
    assert!(made["portal_user_id"].as_str().unwrap().starts_with("pu_"));

    // The same address again at the tenant is refused; at another tenant it is that tenant's.
    let again = app
        .admin(&[
            "portal-user",
            "create",
            "--tenant",
            &a.tenant_id,
            "--email",
            "compliance.lead@example.se",
            "--role",
            "member",
        ])
        .await
        .unwrap_err();
    assert_eq!(again["error"], "bad_request", "{again}");
    app.admin(&[
        "portal-user",
        "create",
        "--tenant",
        &b.tenant_id,
        "--email",
        "compliance.lead@example.se",
        "--role",
        "member",
    ])
    .await
    .expect("another tenant's user");

    for (args, code) in [
        (
            vec!["--tenant", &a.tenant_id, "--email", "not-an-address"],
            "bad_request",
        ),
        (
            vec![
                "--tenant",
                &a.tenant_id,
                "--email",
                "x@example.se",
                "--role",
                "owner",
            ],
            "bad_request",
        ),
        (
            vec![
                "--tenant",
                "01J0000000000000000000000",
                "--email",
                "x@example.se",
            ],
            "not_found",
        ),
    ] {
        let mut argv = vec!["portal-user", "create"];
        argv.extend(args.iter().copied());
        let e = app.admin(&argv).await.unwrap_err();
        assert_eq!(e["error"], code, "{argv:?}: {e}");
    }

    let listed = app
        .admin(&["portal-user", "list", &a.tenant_id])
        .await
        .unwrap();
    let users = listed["portal_users"].as_array().unwrap();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0], made);
}

async fn ask_link(app: &TestApp, b: &reqwest::Client, email: &str) -> reqwest::Response {
    b.post(format!("{}/v1/portal/sign-in", app.portal_url))
        .json(&serde_json::json!({ "email": email }))
        .send()
        .await
        .unwrap()
}

async fn redeem(app: &TestApp, b: &reqwest::Client, link: &str) -> (u16, serde_json::Value) {
    let r = b
        .post(format!("{}/v1/portal/sign-in/complete", app.portal_url))
        .json(&serde_json::json!({ "link": link }))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or_default())
}

/// The link of the newest mail to `email` in the sandbox's mailbox.
fn mailed_link(app: &TestApp, email: &str) -> String {
    let mail = app.sandbox().mailbox(email);
    link_in(&mail.last().expect("a mail").text).to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_by_one_time_link_answers_the_specifications_codes_and_keeps_the_credentials_apart()
{
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let made = app
        .admin(&[
            "portal-user",
            "create",
            "--tenant",
            &c.tenant_id,
            "--email",
            "lead@example.se",
        ])
        .await
        .unwrap();

    // Asking: the same 202 for a user's address and for an unknown one; a binding cookie.
    let asker = browser();
    let asked = ask_link(&app, &asker, "Lead@Example.SE").await;
    assert_eq!(asked.status(), 202);
    let set = asked.headers()[reqwest::header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(set.starts_with("idreg_portal_binding=pb_"), "{set}");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(flag), "{set}");
    }
    let unknown = ask_link(&app, &browser(), "nobody@example.se").await;
    assert_eq!(unknown.status(), 202);
    assert!(app.sandbox().mailbox("nobody@example.se").is_empty());
    let bad = ask_link(&app, &browser(), "not-an-address").await;
    assert_eq!(bad.status(), 400);
    let link = mailed_link(&app, "lead@example.se");
    let mail = app.sandbox().mailbox("lead@example.se");
    assert!(mail[0].text.contains(&app.portal_url), "{}", mail[0].text);

    // The codes: unparsable, another browser, then the asking browser signs in once.
    let (status, body) = redeem(&app, &asker, "pl_not-a-link").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("invalid_link"))
    );
    let (status, body) = redeem(&app, &browser(), &link).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("link_invalid"))
    );
    let (status, session) = redeem(&app, &asker, &link).await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["portal_user_id"], made["portal_user_id"]);
    assert_eq!(session["tenant_id"], c.tenant_id.as_str());
    assert_eq!(session["role"], "admin");
    assert_eq!(session["email"], made["email"]);
    let csrf = session["csrf_token"].as_str().unwrap().to_owned();
    let (status, body) = redeem(&app, &asker, &link).await;
    assert_eq!((status, body["error"].as_str()), (401, Some("link_used")));
    // A link past its 15 minutes.
    ask_link(&app, &asker, "lead@example.se").await;
    let late = mailed_link(&app, "lead@example.se");
    app.clock.advance(chrono::Duration::minutes(16));
    let (status, body) = redeem(&app, &asker, &late).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("link_expired"))
    );
    app.clock.advance(chrono::Duration::minutes(-16));

    // The session reads back; its cookie opens no consumer route, and a consumer token no
    // portal route.
    let me = asker
        .get(format!("{}/v1/portal/session", app.portal_url))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    let cookie_only = asker
        .get(format!("{}/v1/usage", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(cookie_only.status(), 401);
    let on_portal = asker
        .get(format!("{}/v1/usage", app.portal_url))
        .send()
        .await
        .unwrap();
    assert_eq!(on_portal.status(), 404, "no consumer route on the portal");
    let token = app.token(&c).await;
    let bearer = reqwest::Client::new()
        .get(format!("{}/v1/portal/session", app.portal_url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 401);
    let refusal: serde_json::Value = bearer.json().await.unwrap();
    assert_eq!(refusal["error"], "unauthorized");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("portal takes no bearer token"),
        "the refusal says what the portal takes: {refusal}"
    );

    // Sign-out is a write: without the CSRF token, or from another origin, it is refused.
    let out = |csrf: Option<&str>, origin: Option<&str>| {
        let mut r = asker.post(format!("{}/v1/portal/sign-out", app.portal_url));
        if let Some(c) = csrf {
            r = r.header("x-csrf-token", c);
        }
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        r.send()
    };
    assert_eq!(out(None, None).await.unwrap().status(), 403);
    assert_eq!(out(Some("forged"), None).await.unwrap().status(), 403);
    assert_eq!(
        out(Some(&csrf), Some("https://evil.example"))
            .await
            .unwrap()
            .status(),
        403
    );
    let done = out(Some(&csrf), Some(&app.portal_url)).await.unwrap();
    assert_eq!(done.status(), 204);
    let me = asker
        .get(format!("{}/v1/portal/session", app.portal_url))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 401);
}

/// The `Secure` flag where the portal is served over TLS: behind a TLS-terminating proxy,
/// named by `IDREG_PORTAL_URL` (never by a request's `X-Forwarded-Proto`); never over plain HTTP,
/// where a browser would drop a `Secure` cookie. The configured origin is also the one the
/// mailed link names and the one a write's `Origin` must be.
#[tokio::test(flavor = "multi_thread")]
async fn cookies_are_secure_where_the_portal_is_served_over_tls() {
    let flags = |r: &reqwest::Response| {
        r.headers()[reqwest::header::SET_COOKIE]
            .to_str()
            .unwrap()
            .split("; ")
            .skip(1)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };

    let configured = TestApp::spawn_with(|c| {
        c.portal_url = Some("https://portal.example.com/".into());
    })
    .await;
    let c = configured.provision("kyb:read", "SE", "SE").await;
    configured
        .app
        .services
        .portal_admin
        .create_user(&c.tenant_id, "lead@example.se", "admin", None)
        .await
        .unwrap();
    let asker = browser();
    let asked = ask_link(&configured, &asker, "lead@example.se").await;
    assert_eq!(asked.status(), 202);
    assert_eq!(
        flags(&asked),
        [
            "HttpOnly",
            "SameSite=Strict",
            "Path=/",
            "Max-Age=900",
            "Secure"
        ]
    );
    let mail = configured.sandbox().mailbox("lead@example.se");
    assert!(
        mail[0]
            .text
            .contains("https://portal.example.com/sign-in/complete?link=pl_"),
        "the link names the configured origin"
    );
    // The binding cookie is Secure, so a client over plain HTTP (as this test is, in the
    // proxy's place) sends it by hand.
    let binding = asked.headers()[reqwest::header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let complete = |origin: &str| {
        reqwest::Client::new()
            .post(format!(
                "{}/v1/portal/sign-in/complete",
                configured.portal_url
            ))
            .header(reqwest::header::COOKIE, &binding)
            .header(reqwest::header::ORIGIN, origin)
            .json(&serde_json::json!({ "link": mailed_link(&configured, "lead@example.se") }))
            .send()
    };
    // A write from the listener's own plain address is another origin than the portal's.
    assert_eq!(
        complete(&configured.portal_url).await.unwrap().status(),
        403
    );
    let signed = complete("https://portal.example.com").await.unwrap();
    assert_eq!(signed.status(), 200);
    assert_eq!(
        flags(&signed),
        [
            "HttpOnly",
            "SameSite=Strict",
            "Path=/",
            "Max-Age=28800",
            "Secure"
        ]
    );

    // Unconfigured (a loopback listener, the demo's case): its own plain address, so no
    // Secure flag; and a request's X-Forwarded-Proto: https changes nothing, as no header a
    // client sends decides the portal's origin.
    let app = TestApp::spawn().await;
    let plain = ask_link(&app, &browser(), "nobody@example.se").await;
    assert!(
        !flags(&plain).contains(&"Secure".to_owned()),
        "{:?}",
        flags(&plain)
    );
    let proxied = browser()
        .post(format!("{}/v1/portal/sign-in", app.portal_url))
        .header("x-forwarded-proto", "https")
        .json(&serde_json::json!({ "email": "nobody@example.se" }))
        .send()
        .await
        .unwrap();
    assert_eq!(flags(&proxied), flags(&plain));
}

/// A sign-in asked with a poisoned `Host`, `X-Forwarded-Host` or `Forwarded: host=` (and a
/// forwarded scheme) mails the victim a link to the portal's own origin, never to the host the
/// asker named: the configured `IDREG_PORTAL_URL`, or the loopback listener's own address.
#[tokio::test(flavor = "multi_thread")]
async fn a_poisoned_host_header_never_becomes_the_mailed_links_origin() {
    let configured = TestApp::spawn_with(|c| {
        c.portal_url = Some("https://portal.example.com".into());
    })
    .await;
    let loopback = TestApp::spawn().await;
    for (app, origin) in [
        (&configured, "https://portal.example.com".to_owned()),
        (&loopback, loopback.portal_url.clone()),
    ] {
        let c = app.provision("kyb:read", "SE", "SE").await;
        app.app
            .services
            .portal_admin
            .create_user(&c.tenant_id, "victim@example.se", "admin", None)
            .await
            .unwrap();
        let poisons: [(&str, &str); 5] = [
            ("host", "evil.example"),
            ("x-forwarded-host", "evil.example"),
            ("forwarded", "host=evil.example;proto=https"),
            ("forwarded", "for=192.0.2.1;host=\"evil.example:443\""),
            ("x-forwarded-proto", "https"),
        ];
        for (name, value) in poisons {
            let before = app.sandbox().mailbox("victim@example.se").len();
            let mut asked = browser()
                .post(format!("{}/v1/portal/sign-in", app.portal_url))
                .header(name, value)
                .json(&serde_json::json!({ "email": "victim@example.se" }));
            if name != "host" {
                asked = asked.header("x-forwarded-host", "evil.example");
            }
            let asked = asked.send().await.unwrap();
            assert_eq!(asked.status(), 202, "{name}: {value}");
            let mail = app.sandbox().mailbox("victim@example.se");
            assert_eq!(mail.len(), before + 1, "{name}: {value}");
            let text = &mail.last().unwrap().text;
            assert!(!text.contains("evil.example"), "{name}: {value}: {text}");
            assert!(
                text.contains(&format!("{origin}/sign-in/complete?link=pl_")),
                "{name}: {value}: {text}"
            );
        }
        // The page form of the same request, too.
        let page = browser()
            .post(format!("{}/sign-in", app.portal_url))
            .header("x-forwarded-host", "evil.example")
            .header("forwarded", "host=evil.example")
            .form(&[("email", "victim@example.se")])
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        let text = app
            .sandbox()
            .mailbox("victim@example.se")
            .last()
            .unwrap()
            .text
            .clone();
        assert!(
            !text.contains("evil.example") && text.contains(&origin),
            "{text}"
        );
        // A write naming the poisoned host as its Origin is another origin's.
        let forged = browser()
            .post(format!("{}/v1/portal/sign-in", app.portal_url))
            .header("origin", "http://evil.example")
            .header("x-forwarded-host", "evil.example")
            .json(&serde_json::json!({ "email": "victim@example.se" }))
            .send()
            .await
            .unwrap();
        assert_eq!(forged.status(), 403);
    }
}
