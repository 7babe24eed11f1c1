//! The tenant portal's pages over real HTTP, as a browser's form posts reach them: CSRF and
//! origin on every write (nothing changes when refused), roles, another tenant's objects as
//! 404, the operator's grant rules and codes, disabling a user ending their sessions, the
//! audit page's filters and paging, and bad input (NUL bytes, a malformed query) as 400.

use blackbox::{Consumer, TestApp};
use domain::access::audit::AuditFilter;
use domain::ids::TenantId;

/// A signed-in browser: cookies kept, redirects not followed, and the session's CSRF token.
struct Browser {
    http: reqwest::Client,
    csrf: String,
    portal: String,
}

/// A status and the page's body.
struct Page {
    status: u16,
    location: String,
    body: String,
}

impl Browser {
    async fn sign_in(app: &TestApp, tenant: &str, email: &str, role: &str) -> Browser {
        app.app
            .services
            .portal_admin
            .create_user(tenant, email, role, None)
            .await
            .expect("a portal user");
        Browser::sign_in_as(app, email).await
    }

    async fn sign_in_as(app: &TestApp, email: &str) -> Browser {
        let s = blackbox::portal::sign_in_as(app, email).await;
        Browser {
            http: s.http,
            csrf: s.csrf,
            portal: s.portal,
        }
    }

    async fn page(r: reqwest::RequestBuilder) -> Page {
        let r = r.send().await.unwrap();
        Page {
            status: r.status().as_u16(),
            location: r
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_owned())
                .unwrap_or_default(),
            body: r.text().await.unwrap(),
        }
    }

    async fn get(&self, path: &str) -> Page {
        Browser::page(self.http.get(format!("{}{path}", self.portal))).await
    }

    /// A form post carrying the session's CSRF token.
    async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut form: Vec<(&str, &str)> = vec![("csrf", &self.csrf)];
        form.extend_from_slice(fields);
        Browser::page(
            self.http
                .post(format!("{}{path}", self.portal))
                .header("origin", &self.portal)
                .form(&form),
        )
        .await
    }
}

/// The text of the element with `id` in a page (the first one).
fn by_id<'a>(page: &'a str, id: &str) -> &'a str {
    let at = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {page}"));
    let start = at + page[at..].find('>').unwrap() + 1;
    &page[start..start + page[start..].find('<').unwrap()]
}

async fn tenant_grants(app: &TestApp, tenant: &str) -> usize {
    let rows = app
        .app
        .store
        .ports()
        .grants
        .grants(&tenant.parse::<TenantId>().unwrap())
        .await
        .unwrap();
    rows.len()
}

async fn tenant(app: &TestApp) -> Consumer {
    app.provision("kyb:read", "SE", "SE").await
}

#[tokio::test(flavor = "multi_thread")]
async fn every_write_needs_the_sessions_csrf_token_and_the_portals_origin() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let b = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let grant = [("scopes", "kyb:read"), ("countries", "SE")];
    let url = format!("{}/grants", b.portal);

    let none = Browser::page(b.http.post(&url).form(&grant)).await;
    assert_eq!(none.status, 403, "{}", none.body);
    assert!(none.body.contains("CSRF"), "{}", none.body);
    let mut forged = vec![("csrf", "forged")];
    forged.extend_from_slice(&grant);
    assert_eq!(
        Browser::page(b.http.post(&url).form(&forged)).await.status,
        403
    );
    let mut right = vec![("csrf", b.csrf.as_str())];
    right.extend_from_slice(&grant);
    let elsewhere = Browser::page(
        b.http
            .post(&url)
            .header("origin", "https://evil.example")
            .form(&right),
    )
    .await;
    assert_eq!(elsewhere.status, 403);
    // `Origin: null` (a sandboxed frame, a no-referrer policy) is not the portal either.
    let null = Browser::page(b.http.post(&url).header("origin", "null").form(&right)).await;
    assert_eq!(null.status, 403);
    assert_eq!(tenant_grants(&app, &c.tenant_id).await, 1, "nothing made");

    // Another browser's CSRF token is not this session's.
    let other = Browser::sign_in_as(&app, "lead@example.se").await;
    let mut theirs = vec![("csrf", other.csrf.as_str())];
    theirs.extend_from_slice(&grant);
    assert_eq!(
        Browser::page(b.http.post(&url).form(&theirs)).await.status,
        403
    );

    let made = b.post("/grants", &grant).await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(by_id(&made.body, "client-secret").starts_with("cs_"));
    assert_eq!(tenant_grants(&app, &c.tenant_id).await, 2);

    // Without a session a page sends the browser to sign in, and a write changes nothing.
    let anonymous = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for path in [
        "/grants",
        "/usage",
        "/audit",
        "/screening",
        "/whitelist",
        "/users",
    ] {
        let p = Browser::page(anonymous.get(format!("{}{path}", b.portal))).await;
        assert_eq!((p.status, p.location.as_str()), (303, "/sign-in"), "{path}");
    }
    let p = Browser::page(anonymous.post(&url).form(&right)).await;
    assert_eq!((p.status, p.location.as_str()), (303, "/sign-in"));
    assert_eq!(tenant_grants(&app, &c.tenant_id).await, 2);

    // A consumer's bearer token opens no page; the session's cookie no API route.
    let token = app.token(&c).await;
    let bearer = Browser::page(
        anonymous
            .get(format!("{}/grants", b.portal))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!((bearer.status, bearer.location.as_str()), (303, "/sign-in"));
    let cookie = b
        .http
        .get(format!("{}/v1/usage", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(cookie.status(), 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_reads_and_takes_part_in_four_eyes_but_manages_no_grants_or_users() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let member = Browser::sign_in(&app, &c.tenant_id, "analyst@example.se", "member").await;
    let page = member.get("/grants").await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("Create grant"));
    for (path, fields) in [
        ("/grants", vec![("scopes", "kyb:read"), ("countries", "SE")]),
        (
            &*format!("/grants/{}/rotate", c.grant_id),
            Vec::<(&str, &str)>::new(),
        ),
        (&*format!("/grants/{}/revoke", c.grant_id), vec![]),
        ("/users", vec![("email", "x@example.se"), ("role", "admin")]),
    ] {
        let p = member.post(path, &fields).await;
        assert_eq!(p.status, 403, "{path}: {}", p.body);
        assert_eq!(by_id(&p.body, "error-code"), "forbidden");
    }
    assert_eq!(tenant_grants(&app, &c.tenant_id).await, 1);
    for path in ["/usage", "/audit", "/screening", "/whitelist", "/users"] {
        assert_eq!(member.get(path).await.status, 200, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn another_tenants_grants_entries_and_checks_are_not_found() {
    let app = TestApp::spawn().await;
    let (a, b) = (tenant(&app).await, tenant(&app).await);
    let admin = Browser::sign_in(&app, &a.tenant_id, "lead@example.se", "admin").await;
    for path in [
        format!("/grants/{}/rotate", b.grant_id),
        format!("/grants/{}/revoke", b.grant_id),
        format!("/grants/{}", b.grant_id),
        "/grants/not-a-grant/rotate".to_owned(),
        "/whitelist/wle_01J00000000000000000000000/approve".to_owned(),
        "/users/pu_01J00000000000000000000000/disable".to_owned(),
    ] {
        let p = admin
            .post(&path, &[("scopes", "kyb:read"), ("countries", "SE")])
            .await;
        assert_eq!(p.status, 404, "{path}: {}", p.body);
        assert_eq!(by_id(&p.body, "error-code"), "not_found");
    }
    let p = admin.get("/screening/chk_01J00000000000000000000000").await;
    assert_eq!(p.status, 404);
    // B's grant still works.
    let token = app.token(&b).await;
    assert!(!token.is_empty());
    // Its audit log holds the refusals, by the portal user, never naming B's grant.
    let rows = app
        .app
        .store
        .ports()
        .audit_log
        .audit_entries(&a.tenant_id.parse().unwrap(), &AuditFilter::default(), 100)
        .await
        .unwrap();
    let refused: Vec<_> = rows
        .iter()
        .filter(|r| r.action == "portal.grant.rotate")
        .collect();
    assert_eq!(refused.len(), 2, "{rows:?}");
    assert!(refused
        .iter()
        .all(|r| r.error_code.as_deref() == Some("not_found") && r.grant_id.is_none()));
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_made_in_the_portal_follow_the_operators_rules_and_codes() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    for (fields, code) in [
        (
            vec![("scopes", "kyb:read"), ("countries", "LT")],
            "grant_countries_invalid",
        ),
        (vec![("scopes", "kyb:read")], "grant_countries_invalid"),
        (
            vec![("scopes", "admin:everything"), ("countries", "SE")],
            "bad_request",
        ),
        (vec![("countries", "SE")], "bad_request"),
        (
            vec![
                ("scopes", "kyb:read"),
                ("countries", "SE"),
                ("expires", "2001-01-01"),
            ],
            "bad_request",
        ),
        (
            vec![
                ("scopes", "kyb:read"),
                ("countries", "SE"),
                ("expires", "tomorrow"),
            ],
            "bad_request",
        ),
        (
            vec![("scopes", "kyb:read\0"), ("countries", "SE")],
            "bad_request",
        ),
    ] {
        let p = admin.post("/grants", &fields).await;
        assert_eq!(by_id(&p.body, "error-code"), code, "{fields:?}");
        assert_eq!(p.status, 400, "{fields:?}");
    }
    assert_eq!(tenant_grants(&app, &c.tenant_id).await, 1);

    // An expiry date is in effect through that day, UTC.
    let made = admin
        .post(
            "/grants",
            &[
                ("scopes", "kyb:read"),
                ("scopes", "events:read"),
                ("countries", "SE"),
                ("expires", "2099-12-31"),
            ],
        )
        .await;
    let id = by_id(&made.body, "grant-id").to_owned();
    let grant = app
        .app
        .store
        .ports()
        .grants
        .grant(&c.tenant_id.parse().unwrap(), &id.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(
        grant.expires_at.unwrap().to_rfc3339(),
        "2099-12-31T23:59:59.999999+00:00"
    );
    assert_eq!(grant.scopes.names(), vec!["kyb:read", "events:read"]);

    // Narrowing, then revoking: the second revocation says so.
    let narrowed = admin
        .post(
            &format!("/grants/{id}"),
            &[("scopes", "kyb:read"), ("countries", "SE")],
        )
        .await;
    assert_eq!(
        (narrowed.status, narrowed.location.as_str()),
        (303, "/grants")
    );
    let revoked = admin.post(&format!("/grants/{id}/revoke"), &[]).await;
    assert_eq!(revoked.status, 303);
    let again = admin.post(&format!("/grants/{id}/revoke"), &[]).await;
    assert_eq!(again.status, 400);
    let page = admin.get("/grants").await.body;
    assert!(page.contains("state-revoked"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_admin_adds_and_disables_users_and_a_disabled_users_session_ends() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let added = admin
        .post(
            "/users",
            &[("email", "Analyst@Example.SE"), ("role", "member")],
        )
        .await;
    assert_eq!(
        (added.status, added.location.as_str()),
        (303, "/users"),
        "{}",
        added.body
    );
    for fields in [
        [("email", "analyst@example.se"), ("role", "member")],
        [("email", "x@example.se"), ("role", "owner")],
        [("email", "x\0@example.se"), ("role", "member")],
    ] {
        assert_eq!(
            admin.post("/users", &fields).await.status,
            400,
            "{fields:?}"
        );
    }
    let member = Browser::sign_in_as(&app, "analyst@example.se").await;
    assert_eq!(member.get("/whitelist").await.status, 200);

    let users = app
        .app
        .services
        .portal_admin
        .users(&c.tenant_id)
        .await
        .unwrap();
    let (me, them) = (&users[0], &users[1]);
    assert_eq!(them.email.as_str(), "analyst@example.se");
    assert_eq!(them.created_by, Some(me.id));
    let own = admin.post(&format!("/users/{}/disable", me.id), &[]).await;
    assert_eq!(own.status, 400, "{}", own.body);
    let off = admin
        .post(&format!("/users/{}/disable", them.id), &[])
        .await;
    assert_eq!(off.status, 303, "{}", off.body);
    let p = member.get("/whitelist").await;
    assert_eq!((p.status, p.location.as_str()), (303, "/sign-in"));
    // No new link either: a disabled user is no user.
    let before = app.sandbox().mailbox("analyst@example.se").len();
    reqwest::Client::new()
        .post(format!("{}/sign-in", app.portal_url))
        .form(&[("email", "analyst@example.se")])
        .send()
        .await
        .unwrap();
    assert_eq!(app.sandbox().mailbox("analyst@example.se").len(), before);
    let again = admin
        .post(&format!("/users/{}/disable", them.id), &[])
        .await;
    assert_eq!(again.status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_page_filters_by_grant_route_and_outcome_and_pages() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    // 60 token requests of the grant, 5 of them with a wrong secret.
    for _ in 0..55 {
        app.token(&c).await;
    }
    let mut wrong = c.clone();
    wrong.client_secret = "cs_wrong".into();
    for _ in 0..5 {
        let a = app
            .post_form(
                "/oauth/token",
                &[
                    ("grant_type", "client_credentials"),
                    ("client_id", &wrong.client_id),
                    ("client_secret", &wrong.client_secret),
                ],
            )
            .await;
        assert_eq!(a.status, 401);
    }
    let rows = |body: &str| body.matches("<tr class=\"outcome-").count();
    let refused = admin
        .get(&format!("/audit?grant={}&outcome=refused", c.grant_id))
        .await;
    assert_eq!(rows(&refused.body), 5, "{}", refused.body);
    assert!(!refused.body.contains("outcome-allowed"));

    let first = admin
        .get(&format!("/audit?grant={}&route=/oauth/token", c.grant_id))
        .await;
    assert_eq!(rows(&first.body), 50);
    let at = first.body.find("rel=\"next\"").expect("a next page");
    let href_at = first.body[..at].rfind("href=\"").unwrap() + "href=\"".len();
    let next = first.body[href_at..]
        .split('"')
        .next()
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    let second = admin.get(&next).await;
    assert_eq!(rows(&second.body), 10, "{next}");
    assert!(!second.body.contains("rel=\"next\""));

    // The portal's own reads are rows too, by the portal user.
    let portal_rows = admin.get("/audit?route=/audit").await;
    assert!(rows(&portal_rows.body) >= 3);
    // ... shown by the user's address, as the whitelist page shows its makers.
    assert!(
        portal_rows.body.contains(">lead@example.se</td>"),
        "{}",
        portal_rows.body
    );

    for bad in [
        "/audit?grant=nope",
        "/audit?outcome=maybe",
        "/audit?grant=%00",
        "/audit?route=%2Fv1%00",
    ] {
        assert_eq!(admin.get(bad).await.status, 400, "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn test_mode_grants_are_made_and_managed_in_the_portal() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let rows = |body: &str| body.matches("<tr class=\"outcome-").count();
    // No twin yet: the test log is empty, not an error.
    let empty = admin.get("/audit?mode=test").await;
    assert_eq!((empty.status, rows(&empty.body)), (200, 0));

    let made = admin
        .post(
            "/grants",
            &[("scopes", "kyb:read"), ("countries", "SE"), ("test", "on")],
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let id = by_id(&made.body, "grant-id").to_owned();
    let test = Consumer {
        tenant_id: String::new(),
        grant_id: id.clone(),
        client_id: by_id(&made.body, "client-id").to_owned(),
        client_secret: by_id(&made.body, "client-secret").to_owned(),
    };
    assert!(
        test.client_id.starts_with("cid_test_"),
        "{}",
        test.client_id
    );
    assert!(test.client_secret.starts_with("cs_test_"));
    let listed = admin.get("/grants").await.body;
    let card = &listed[listed.find(&format!("data-grant=\"{id}\"")).unwrap()..];
    assert_eq!(by_id_class(card, "mode"), "test");

    // Its requests are the test twin's: in the test log and under the grant, not the live log.
    app.token(&test).await;
    let by_grant = admin.get(&format!("/audit?grant={id}")).await;
    assert_eq!(rows(&by_grant.body), 1, "{}", by_grant.body);
    assert_eq!(rows(&admin.get("/audit?mode=test").await.body), 1);
    let live = admin.get("/audit?route=/oauth/token").await;
    assert_eq!(rows(&live.body), 0, "the live log holds no test request");
    assert_eq!(admin.get("/audit?mode=staging").await.status, 400);

    // Rotated (still a test secret) and revoked like any grant.
    let rotated = admin.post(&format!("/grants/{id}/rotate"), &[]).await;
    assert!(by_id(&rotated.body, "client-secret").starts_with("cs_test_"));
    let revoked = admin.post(&format!("/grants/{id}/revoke"), &[]).await;
    assert_eq!(revoked.status, 303);
}

/// The text of the first element with `class` in a fragment of a page.
fn by_id_class<'a>(page: &'a str, class: &str) -> &'a str {
    let at = page
        .find(&format!("class=\"{class}\""))
        .unwrap_or_else(|| panic!("no .{class}"));
    let start = at + page[at..].find('>').unwrap() + 1;
    &page[start..start + page[start..].find('<').unwrap()]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_revokes_and_narrows_its_paper_term_grants_and_the_tenant_its_own() {
    let app = TestApp::spawn().await;
    // `c`'s grant was provisioned by the operator (`idreg admin grant create`).
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let page = admin.get("/grants").await.body;
    let card = &page[page
        .find(&format!("data-grant=\"{}\"", c.grant_id))
        .unwrap()..];
    let card = &card[..card.find("</article>").unwrap()];
    assert!(by_id_class(card, "owner").starts_with("provisioned by the operator"));
    assert!(
        !card.contains("Revoke") && !card.contains("Change scopes"),
        "{card}"
    );
    assert!(card.contains("Rotate the secret"));

    for path in [
        format!("/grants/{}", c.grant_id),
        format!("/grants/{}/revoke", c.grant_id),
    ] {
        let p = admin
            .post(&path, &[("scopes", "kyb:read"), ("countries", "SE")])
            .await;
        assert_eq!(p.status, 403, "{path}");
        assert!(p.body.contains("paper terms"), "{}", p.body);
    }
    // The holder rotates its secret, whoever owns the terms; the grant still works.
    let rotated = admin
        .post(&format!("/grants/{}/rotate", c.grant_id), &[])
        .await;
    assert_eq!(rotated.status, 200);
    let mut renewed = c.clone();
    renewed.client_secret = by_id(&rotated.body, "client-secret").to_owned();
    assert!(!app.token(&renewed).await.is_empty());

    // The operator's command still revokes it.
    app.admin(&["grant", "revoke", &c.grant_id])
        .await
        .expect("the operator revokes");

    // A grant the tenant made is the tenant's to narrow and revoke.
    let made = admin
        .post("/grants", &[("scopes", "kyb:read"), ("countries", "SE")])
        .await;
    let id = by_id(&made.body, "grant-id").to_owned();
    let page = admin.get("/grants").await.body;
    let card = &page[page.find(&format!("data-grant=\"{id}\"")).unwrap()..];
    assert_eq!(by_id_class(card, "owner"), "made in the portal");
    assert_eq!(
        admin
            .post(&format!("/grants/{id}/revoke"), &[])
            .await
            .status,
        303
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nul_in_any_field_is_400_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let expires = (chrono::Utc::now() + chrono::Duration::days(30))
        .format("%Y-%m-%d")
        .to_string();
    let proposal = |field: &'static str, value: &'static str| {
        let mut fields = vec![
            ("clears", "hmac-sha256:".to_owned() + &"a".repeat(64)),
            ("source", "un_sc".to_owned()),
            ("entry", "CDi.006".to_owned()),
            ("reason", "not our customer".to_owned()),
            ("expires", expires.clone()),
        ];
        for f in fields.iter_mut().filter(|f| f.0 == field) {
            f.1 = value.to_owned();
        }
        fields
    };
    for field in ["clears", "source", "entry", "reason", "expires"] {
        let fields = proposal(field, "x\0y");
        let form: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let p = admin.post("/whitelist", &form).await;
        assert_eq!(p.status, 400, "{field}: {}", p.body);
        assert_eq!(by_id(&p.body, "error-code"), "bad_request");
        assert!(!p.body.contains("x\0y"), "the value is not echoed");
    }
    let nul_name = admin.post("/users", &[("email\0", "x@example.se")]).await;
    assert_eq!(nul_name.status, 400);
    let entries = app
        .app
        .services
        .screening_admin
        .whitelist(&c.tenant_id)
        .await
        .unwrap();
    assert!(entries.is_empty(), "nothing stored");
    // The same proposal without the NUL is made.
    let fields = proposal("reason", "not our customer");
    let form: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(admin.post("/whitelist", &form).await.status, 303);
}

/// The usage page states what was spent: today's paid calls against the on-demand share of
/// the budget, and the day's row of the last 30 days; the live tenant's by default, its test
/// twin's (test-mode grants spend the twin's budget) with `mode=test`.
#[tokio::test(flavor = "multi_thread")]
async fn the_usage_page_counts_the_paid_calls_of_live_and_test_mode_grants_apart() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "10",
        "--monitoring-share",
        "0.5",
    ])
    .await
    .unwrap();
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let officers = "/v1/companies/5560021361/officers";
    let token = app.token(&c).await;
    // Two companies' officers: two paid calls (a cached answer would be none).
    for orgnr in ["5560021361", "5561890038"] {
        let a = app
            .get(&format!("/v1/companies/{orgnr}/officers"), Some(&token))
            .await;
        assert_eq!(a.status, 200, "{}", a.text);
    }
    let today = app.get("/v1/usage", Some(&token)).await.body["day"]
        .as_str()
        .unwrap()
        .to_owned();

    let live = admin.get("/usage").await;
    assert_eq!(live.status, 200);
    assert!(
        live.body.contains(r#"id="on-demand">2 of 5<"#),
        "{}",
        live.body
    );
    assert!(
        live.body.contains(&format!(
            r#"<tr><th scope="row">{today}</th><td>2</td><td>0</td><td>2</td></tr>"#
        )),
        "{}",
        live.body
    );
    assert_eq!(
        live.body.matches("<tr><th scope=\"row\">").count(),
        30,
        "thirty days"
    );
    // The thirty days drawn: an SVG image named by its summary, a bar per day (today's the
    // last, two calls the tallest), no script and no inline style.
    let svg = &live.body[live.body.find("<svg").unwrap()..live.body.find("</svg>").unwrap()];
    assert!(
        svg.contains(r#"role="img""#) && svg.contains(r#"aria-labelledby="usage-chart-title""#)
    );
    assert!(
        svg.contains(&format!("2 in all, the most on {today} (2)")),
        "{svg}"
    );
    assert_eq!(svg.matches(r#"class="on-demand""#).count(), 30);
    assert!(svg.contains(&format!(
        "<title>{today}: 2 on demand, 0 by monitoring</title>"
    )));
    assert!(!live.body.contains("<script") && !live.body.contains("style="));

    // No test-mode grant yet: nothing was spent in test mode.
    let none = admin.get("/usage?mode=test").await;
    assert_eq!(none.status, 200);
    assert!(none.body.contains("No test-mode grant has been made"));

    // A test-mode grant's paid call is the twin's, not the live tenant's.
    let (test, _) = app.test_grant(&c.tenant_id, "kyb:read", "SE").await;
    let test_token = app.token(&test).await;
    let a = app.get(officers, Some(&test_token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let twin = admin.get("/usage?mode=test").await;
    assert!(
        twin.body.contains(r#"id="on-demand">1 of "#),
        "{}",
        twin.body
    );
    assert!(twin.body.contains("test mode"));
    assert!(admin
        .get("/usage")
        .await
        .body
        .contains(r#"id="on-demand">2 of 5<"#));

    assert_eq!(admin.get("/usage?mode=both").await.status, 400);
}

/// Four eyes that one person cannot satisfy alone: an admin adds a second account of their
/// own (`me+2@`) and a third through it, signs in as each, and neither approves the admin's
/// proposal (nor the admin theirs): all are of one line. A user of another line (one the
/// operator made) approves it. Each refusal is audited with its reason.
#[tokio::test(flavor = "multi_thread")]
async fn an_admins_own_second_account_cannot_approve_their_proposal() {
    let app = TestApp::spawn().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "me@example.se", "admin").await;
    assert_eq!(
        admin
            .post("/users", &[("email", "me+2@example.se"), ("role", "admin")])
            .await
            .status,
        303
    );
    let second = Browser::sign_in_as(&app, "me+2@example.se").await;
    assert_eq!(
        second
            .post(
                "/users",
                &[("email", "me+3@example.se"), ("role", "member")]
            )
            .await
            .status,
        303
    );
    let third = Browser::sign_in_as(&app, "me+3@example.se").await;

    let expires = (chrono::Utc::now() + chrono::Duration::days(30))
        .format("%Y-%m-%d")
        .to_string();
    let hash = "hmac-sha256:".to_owned() + &"b".repeat(64);
    let proposed = admin
        .post(
            "/whitelist",
            &[
                ("clears", hash.as_str()),
                ("source", "un_sc"),
                ("entry", "CDi.006"),
                ("reason", "not our customer"),
                ("expires", expires.as_str()),
            ],
        )
        .await;
    assert_eq!(proposed.status, 303, "{}", proposed.body);
    let entry = app
        .app
        .services
        .screening_admin
        .whitelist(&c.tenant_id)
        .await
        .unwrap()
        .remove(0);
    let approve = format!("/whitelist/{}/approve", entry.id);
    for (who, browser) in [("me", &admin), ("me+2", &second), ("me+3", &third)] {
        let p = browser.post(&approve, &[]).await;
        assert_eq!(p.status, 400, "{who}: {}", p.body);
        assert!(p.body.contains("four eyes"), "{who}: {}", p.body);
    }
    let still = app
        .app
        .services
        .screening_admin
        .whitelist(&c.tenant_id)
        .await
        .unwrap()
        .remove(0);
    assert_eq!(still.approved_by, None, "not approved");

    // Another line: a colleague the operator made.
    let colleague = Browser::sign_in(&app, &c.tenant_id, "colleague@example.se", "member").await;
    let p = colleague.post(&approve, &[]).await;
    assert_eq!(
        (p.status, p.location.as_str()),
        (303, "/whitelist"),
        "{}",
        p.body
    );

    let rows = app
        .app
        .store
        .ports()
        .audit_log
        .audit_entries(&c.tenant_id.parse().unwrap(), &AuditFilter::default(), 100)
        .await
        .unwrap();
    let approvals: Vec<(&str, Option<&str>)> = rows
        .iter()
        .filter(|r| r.action == "portal.whitelist.approve")
        .map(|r| (r.outcome.as_str(), r.detail.as_deref()))
        .collect();
    assert_eq!(
        approvals,
        vec![
            ("allowed", None),
            ("failed", Some("four_eyes_same_line")),
            ("failed", Some("four_eyes_same_line")),
            ("failed", Some("four_eyes_own_proposal")),
        ]
    );
}

/// A newcomer following the demo holds test-mode credentials: their checks are the test
/// twin's, which the screening page offers beside the live ones (the live page says where
/// they are), and a twin's check opens from the list.
#[tokio::test(flavor = "multi_thread")]
async fn the_screening_page_offers_the_checks_of_test_mode_credentials() {
    let (app, _, _) = crate::screening::ready().await;
    let c = tenant(&app).await;
    let admin = Browser::sign_in(&app, &c.tenant_id, "lead@example.se", "admin").await;
    let live = admin.get("/screening").await;
    assert_eq!(live.status, 200);
    assert!(live.body.contains("No checks yet."), "{}", live.body);
    assert!(live.body.contains(r#"href="/screening?mode=test""#));
    // Before any test-mode grant there is no twin, and nothing to list.
    let none = admin.get("/screening?mode=test").await;
    assert_eq!(none.status, 200);
    assert!(none.body.contains("No checks yet."));

    let (test, _) = app
        .test_grant(&c.tenant_id, "screening:run screening:read", "SE")
        .await;
    let token = app.token(&test).await;
    let made = app
        .post_json(
            "/v1/screening/checks",
            Some(&token),
            &serde_json::json!({
                "name": crate::screening::LISTED_NAME,
                "birth_date": crate::screening::LISTED_BIRTH
            }),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let id = made.body["id"].as_str().unwrap();

    let twin = admin.get("/screening?mode=test").await;
    assert_eq!(twin.status, 200);
    assert!(twin.body.contains(id), "{}", twin.body);
    assert!(!admin.get("/screening").await.body.contains(id));
    let opened = admin.get(&format!("/screening/{id}")).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(
        opened.body.contains(crate::screening::LISTED_ENTRY),
        "{}",
        opened.body
    );
    assert_eq!(admin.get("/screening?mode=both").await.status, 400);
}
