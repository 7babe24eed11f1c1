//! The tenant portal's users, as the operator makes a tenant's first one: an address checked
//! and kept in lower case, one user per address within a tenant (another tenant may have its
//! own), and the tenant's users listed.

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
