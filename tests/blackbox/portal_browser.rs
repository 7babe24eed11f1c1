//! The tenant portal in a real browser (issue 24): headless Chromium from the machine's
//! packages, driven by playwright-core (`tests/browser/portal.mjs`), against the service over
//! real HTTP with the UN list imported and the default policy active. The script signs an
//! admin in through the sandbox's mailbox (and finds the used link refused), makes a grant and
//! uses its credentials against the REST API, rotates the secret and sees the old one fail,
//! reads the screening check, proposes a whitelist entry that its maker cannot approve and a
//! second user approves on a phone-sized screen, asks the assistant about a company and reads
//! the streamed answer (the page's own content security policy enforced: its one script runs),
//! and reads usage, the audit log and users;
//! a screenshot of each page goes to `target/portal-screenshots/<store>/`, and each page shown
//! is checked by axe-core against WCAG 2.1 A and AA (labels, names, contrast, landmarks).
//!
//! Afterwards the audit trail is read back here: every portal action names the portal user,
//! and the whitelist entry is in effect with two different users as its maker and approver.

use crate::screening::{ready, LISTED_NAME};
use blackbox::missing_prerequisite;
use domain::access::audit::AuditFilter;
use domain::ids::TenantId;
use serde_json::Value;
use std::path::PathBuf;

/// The browser test's folder with playwright-core installed (`IDREG_TEST_BROWSER`, set by
/// `cargo xtask test` after `npm ci` there) and the system Chromium (`IDREG_TEST_CHROMIUM`,
/// else `/usr/bin/chromium`).
pub(crate) fn prerequisites(test: &str) -> Option<(PathBuf, PathBuf)> {
    let folder = std::env::var("IDREG_TEST_BROWSER")
        .ok()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let chromium = std::env::var("IDREG_TEST_CHROMIUM")
        .ok()
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    match folder {
        Some(f) if chromium.exists() => Some((f, chromium)),
        Some(_) => {
            missing_prerequisite(test, &format!("no Chromium at {}", chromium.display()));
            None
        }
        None => {
            missing_prerequisite(
                test,
                "IDREG_TEST_BROWSER is not set to tests/browser with playwright-core installed",
            );
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_portal_works_in_a_real_browser() {
    let Some((folder, chromium)) = prerequisites("portal_browser") else {
        return;
    };
    let (app, _, _) = ready().await;
    // The operator's grant (kyb:read): the one the assistant's conversation runs under.
    let consumer = app.provision("kyb:read", "SE", "SE").await;
    let tenant = consumer.tenant_id.clone();
    let orgnr = upstream_sandbox::Dataset::standard()
        .active_ab_with_reports(1)
        .expect("an active company")
        .orgnr10()
        .to_owned();
    let (admin, member) = ("lead@example.se", "reviewer@example.se");
    for (email, role) in [(admin, "admin"), (member, "member")] {
        app.app
            .services
            .portal_admin
            .create_user(&tenant, email, role, None)
            .await
            .expect("a portal user");
    }
    let control = app.app.sandbox.as_ref().expect("the sandbox").control_url();
    let store = if std::env::var("IDREG_TEST_STORE").is_ok_and(|s| s.starts_with("sqlite")) {
        "sqlite"
    } else {
        "postgres"
    };
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../target/portal-screenshots")
        .join(store);
    let _ = std::fs::remove_dir_all(&shots);

    let run = tokio::process::Command::new("node")
        .arg("portal.mjs")
        .current_dir(&folder)
        .env("PORTAL_URL", &app.portal_url)
        .env("API_URL", &app.base_url)
        .env("MAILBOX_URL", format!("{control}/mailbox"))
        .env("CHROMIUM", &chromium)
        .env("SHOTS", &shots)
        .env("ADMIN_EMAIL", admin)
        .env("MEMBER_EMAIL", member)
        .env("LISTED_NAME", LISTED_NAME)
        .env("ASSISTANT_GRANT", &consumer.grant_id)
        .env("ORGNR", &orgnr)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(240), run)
        .await
        .expect("the browser run ends within 4 minutes")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the browser run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();

    // A screenshot of each page, and each page passed axe-core's WCAG 2.1 A and AA rules.
    let taken = std::fs::read_dir(&shots).unwrap().count();
    assert!(taken >= 15, "{taken} screenshots");
    assert_eq!(done["accessibility_checked"].as_u64(), Some(taken as u64));

    // The audit trail: the portal's actions by their users, the grant's own requests by it.
    let tenant_id: TenantId = tenant.parse().unwrap();
    let users = app.app.services.portal_admin.users(&tenant).await.unwrap();
    let id_of = |email: &str| {
        users
            .iter()
            .find(|u| u.email.as_str() == email)
            .unwrap()
            .id
            .to_string()
    };
    let rows = app
        .app
        .store
        .ports()
        .audit_log
        .audit_entries(&tenant_id, &AuditFilter::default(), 500)
        .await
        .unwrap();
    let portal_rows = |action: &str| -> Vec<(Option<String>, String)> {
        rows.iter()
            .filter(|r| r.action == action)
            .map(|r| (r.portal_user_id.clone(), r.outcome.clone()))
            .collect()
    };
    let (a, m) = (Some(id_of(admin)), Some(id_of(member)));
    assert_eq!(
        portal_rows("portal.grant.create"),
        vec![(a.clone(), "allowed".into())]
    );
    assert_eq!(
        portal_rows("portal.grant.rotate"),
        vec![(a.clone(), "allowed".into())]
    );
    assert_eq!(
        portal_rows("portal.whitelist.propose"),
        vec![(a.clone(), "allowed".into())]
    );
    // Newest first: the member's approval, then the maker's refused one.
    assert_eq!(
        portal_rows("portal.whitelist.approve"),
        vec![(m.clone(), "allowed".into()), (a.clone(), "failed".into())]
    );
    assert_eq!(
        portal_rows("portal.sign_in.complete"),
        vec![(m.clone(), "allowed".into()), (a.clone(), "allowed".into())]
    );
    assert_eq!(portal_rows("portal.sign_out"), vec![(a, "allowed".into())]);
    // A portal action and the assistant's calls name the portal user; a grant's own
    // requests do not. The assistant's name the conversation too.
    assert!(rows.iter().all(|r| {
        (r.surface == "portal" || r.surface == "assistant") == r.portal_user_id.is_some()
    }));
    let assistant_rows: Vec<_> = rows.iter().filter(|r| r.surface == "assistant").collect();
    assert!(assistant_rows
        .iter()
        .any(|r| r.tool.as_deref() == Some("get_company_profile")));
    assert!(assistant_rows
        .iter()
        .all(|r| r.conversation_id.is_some() && r.portal_user_id == Some(id_of(admin))));
    let grant_rows: Vec<&str> = rows
        .iter()
        .filter(|r| r.grant_id.as_deref() == done["grant_id"].as_str() && r.surface == "rest")
        .map(|r| r.route.as_str())
        .collect();
    assert!(
        grant_rows.contains(&"/v1/screening/checks"),
        "{grant_rows:?}"
    );

    // The entry is in effect, made and approved by two different users.
    let entries = app
        .app
        .services
        .screening_admin
        .whitelist(&tenant)
        .await
        .unwrap();
    let entry = entries
        .iter()
        .find(|e| Some(e.id.to_string().as_str()) == done["whitelist_id"].as_str())
        .unwrap();
    assert_eq!(entry.created_by, id_of(admin));
    assert_eq!(entry.approved_by.as_deref(), Some(id_of(member).as_str()));
    assert!(entry.effective(chrono::Utc::now()));
}
