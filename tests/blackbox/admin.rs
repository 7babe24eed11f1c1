//! The operator command line: one JSON object per command, `{error, message}` on failure.

use blackbox::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn tenant_lifecycle_and_country_rules() {
    let app = TestApp::spawn().await;
    let t = app
        .admin(&[
            "tenant",
            "create",
            "--name",
            "Acme AB",
            "--country",
            "SE",
            "--provision",
            "SE,LT",
        ])
        .await
        .unwrap();
    let id = t["tenant_id"].as_str().unwrap();
    assert_eq!(t["status"], "pending");
    assert_eq!(t["provisioned_countries"], serde_json::json!(["SE", "LT"]));
    assert_eq!(t["budget"]["monitoring_share"], 0.5);

    let active = app.admin(&["tenant", "activate", id]).await.unwrap();
    assert_eq!(active["status"], "active");

    let refused = app
        .admin(&["tenant", "countries", id, "--provision", "LT"])
        .await
        .unwrap_err();
    assert_eq!(refused["error"], "provisioned_countries_invalid");

    // A grant carrying LT blocks withdrawing LT from the tenant, whole.
    let g = app.grant(id, "kyb:read", "SE,LT").await;
    let blocked = app
        .admin(&["tenant", "countries", id, "--provision", "SE"])
        .await
        .unwrap_err();
    assert_eq!(blocked["error"], "grant_countries_invalid");
    assert!(blocked["message"].as_str().unwrap().contains(&g.grant_id));
    app.admin(&["grant", "update", &g.grant_id, "--countries", "SE"])
        .await
        .unwrap();
    let narrowed = app
        .admin(&["tenant", "countries", id, "--provision", "SE"])
        .await
        .unwrap();
    assert_eq!(narrowed["provisioned_countries"], serde_json::json!(["SE"]));

    let permit = app
        .admin(&[
            "permit",
            "set",
            id,
            "--valid-from",
            "2026-01-01",
            "--valid-to",
            "2027-12-31",
            "--status",
            "active",
        ])
        .await
        .unwrap();
    assert_eq!(permit["permit"]["status"], "active");
    let suspended = app
        .admin(&[
            "permit",
            "set",
            id,
            "--valid-from",
            "2026-01-01",
            "--valid-to",
            "2027-12-31",
            "--status",
            "suspended",
        ])
        .await
        .unwrap();
    assert_eq!(suspended["permit"]["status"], "suspended");
    assert_eq!(
        app.db
            .count("permits", &format!("tenant_id = '{id}'"))
            .await,
        2,
        "a new permit each time"
    );
    let bad_dates = app
        .admin(&[
            "permit",
            "set",
            id,
            "--valid-from",
            "2027-01-01",
            "--valid-to",
            "2026-01-01",
            "--status",
            "active",
        ])
        .await
        .unwrap_err();
    assert_eq!(bad_dates["error"], "bad_request");

    let budget = app
        .admin(&[
            "budget",
            "set",
            id,
            "--daily-paid",
            "250",
            "--monitoring-share",
            "0.25",
            "--person-ceiling",
            "40",
        ])
        .await
        .unwrap();
    assert_eq!(budget["budget"]["daily_paid_calls"], 250);
    assert_eq!(budget["budget"]["monitoring_share"], 0.25);
    assert_eq!(budget["budget"]["person_lookup_ceiling"], 40);
    let bad_share = app
        .admin(&["budget", "set", id, "--monitoring-share", "1.5"])
        .await
        .unwrap_err();
    assert_eq!(bad_share["error"], "bad_request");
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_refused_whole_outside_the_tenants_countries() {
    let app = TestApp::spawn().await;
    let t = app
        .admin(&[
            "tenant",
            "create",
            "--name",
            "Se AB",
            "--country",
            "SE",
            "--activate",
        ])
        .await
        .unwrap();
    let id = t["tenant_id"].as_str().unwrap();
    // Outside the tenant's countries, no country at all, a scope no consumer may hold.
    for (scopes, countries, code) in [
        ("kyb:read", "SE,LT", "grant_countries_invalid"),
        ("kyb:read", "", "grant_countries_invalid"),
        ("screening:policy", "SE", "bad_request"),
    ] {
        let refused = app
            .admin(&[
                "grant",
                "create",
                "--tenant",
                id,
                "--scopes",
                scopes,
                "--countries",
                countries,
            ])
            .await
            .unwrap_err();
        assert_eq!(refused["error"], code, "{scopes} / {countries}");
    }
    assert_eq!(app.db.count("grants", "true").await, 0, "nothing written");

    let g = app.grant(id, "kyb:read events:read", "SE").await;
    let widen_outside = app
        .admin(&["grant", "update", &g.grant_id, "--countries", "LT"])
        .await
        .unwrap_err();
    assert_eq!(widen_outside["error"], "grant_countries_invalid");
    let unknown = app
        .admin(&["grant", "revoke", "01ARZ3NDEKTSV4RRFFQ69G5FAV"])
        .await
        .unwrap_err();
    assert_eq!(unknown["error"], "not_found");

    // The secret is stored only as a slow hash.
    let stored = app
        .db
        .rows(&format!(
            "SELECT secret_hash FROM grants WHERE grant_id = '{}'",
            g.grant_id
        ))
        .await;
    let hash = stored[0]["secret_hash"].as_str().unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert!(!hash.contains(&g.client_secret));
}
