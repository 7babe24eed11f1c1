//! `PortalSignIn`'s rules, each alone, with every port mocked and time fixed.

use crate::access::audit::RequestContext;
use crate::access::ports::MockAuditSink;
use crate::error::ErrorCode;
use crate::fixtures::{self, now};
use crate::ids::{PortalUserId, TenantId};
use crate::portal::ports::{MockMailer, MockPortalSecrets, MockPortalStore};
use crate::portal::service::PortalSignIn;
use crate::portal::sign_in::{
    PortalSession, Redemption, TokenDigest, TokenKind, LINKS_PER_WINDOW, LINK_LIFETIME,
    LINK_WINDOW, SESSION_LIFETIME,
};
use crate::portal::user::{Email, PortalRole, PortalUser};
use std::sync::{Arc, Mutex};

const ORIGIN: &str = "https://portal.example.com";

fn token(kind: TokenKind, fill: char) -> String {
    format!("{}{}", kind.prefix(), fill.to_string().repeat(43))
}

/// Secrets whose tokens are numbered and whose digest is the token's bytes reversed.
fn secrets() -> MockPortalSecrets {
    let mut s = MockPortalSecrets::new();
    let n = Arc::new(Mutex::new(0u8));
    s.expect_new_token().returning(move |kind| {
        let mut n = n.lock().unwrap();
        *n += 1;
        token(kind, char::from(b'a' + *n))
    });
    s.expect_digest()
        .returning(|t| TokenDigest(t.bytes().rev().collect()));
    s.expect_csrf_token().returning(|t| format!("csrf:{t}"));
    s
}

fn user(email: &str) -> PortalUser {
    PortalUser {
        id: PortalUserId::generate(),
        tenant_id: TenantId::generate(),
        email: Email::parse(email).unwrap(),
        role: PortalRole::Admin,
        created_at: now(),
        created_by: None,
        disabled_at: None,
    }
}

fn ctx() -> RequestContext {
    RequestContext::new(Some("192.0.2.1".into()), now())
}

/// The audit rows a service wrote, as `portal <action> <outcome> <detail>` and
/// `security <reason>`.
type Rows = Arc<Mutex<Vec<String>>>;

fn audited(store: MockPortalStore, mailer: MockMailer) -> (PortalSignIn, Rows) {
    let rows: Rows = Arc::default();
    let mut audit = MockAuditSink::new();
    let r = rows.clone();
    audit.expect_record_portal().returning(move |row| {
        r.lock().unwrap().push(format!(
            "portal {} {} {}",
            row.action.action(),
            row.outcome.as_str(),
            row.detail.unwrap_or("-")
        ));
        Ok(())
    });
    let r = rows.clone();
    audit.expect_record_security().returning(move |row| {
        assert_eq!(row.peer.as_deref(), Some("192.0.2.1"));
        r.lock()
            .unwrap()
            .push(format!("security {}", row.reason.as_str()));
        Ok(())
    });
    let service = PortalSignIn {
        store: Arc::new(store),
        secrets: Arc::new(secrets()),
        mailer: Arc::new(mailer),
        audit: Arc::new(audit),
        clock: fixtures::clock(),
    };
    (service, rows)
}

fn service(store: MockPortalStore, mailer: MockMailer) -> PortalSignIn {
    audited(store, mailer).0
}

fn rows(rows: &Rows) -> Vec<String> {
    rows.lock().unwrap().clone()
}

#[tokio::test]
async fn a_link_goes_to_each_tenants_user_bound_to_the_browser_that_asked() {
    let (a, b) = (user("anna@example.se"), user("anna@example.se"));
    let mut store = MockPortalStore::new();
    let users = vec![a.clone(), b.clone()];
    store
        .expect_active_users_by_email()
        .withf(|e| e.as_str() == "anna@example.se")
        .returning(move |_| Ok(users.clone()));
    let binding = token(TokenKind::Binding, 'Z');
    let expected_binding = TokenDigest(binding.bytes().rev().collect());
    store
        .expect_record_link()
        .times(2)
        .returning(move |link, max, since| {
            assert_eq!(link.binding, expected_binding);
            assert_eq!(link.expires_at, now() + LINK_LIFETIME);
            assert_eq!((max, since), (LINKS_PER_WINDOW, now() - LINK_WINDOW));
            Ok(true)
        });
    let mails = Arc::new(Mutex::new(Vec::new()));
    let m = mails.clone();
    let mut mailer = MockMailer::new();
    mailer.expect_send().returning(move |mail| {
        m.lock().unwrap().push(mail.clone());
        Ok(())
    });
    let (service, audit) = audited(store, mailer);
    let done = service
        .request_link(
            &ctx(),
            "Anna@Example.SE",
            Some(&binding),
            "https://portal.example.com/",
        )
        .await
        .unwrap();
    // The browser's own binding is kept.
    assert_eq!(
        (done.binding.as_str(), done.sent, done.limited),
        (binding.as_str(), 2, 0)
    );
    let mails = mails.lock().unwrap();
    assert_eq!(mails.len(), 2);
    assert!(mails[0]
        .text
        .contains("https://portal.example.com/sign-in/complete?link=pl_"));
    assert!(mails[0].text.contains(&a.tenant_id.to_string()));
    assert!(mails[1].text.contains(&b.tenant_id.to_string()));
    assert_ne!(mails[0].text, mails[1].text, "one link per user");
    assert_eq!(
        rows(&audit),
        vec!["portal portal.sign_in.request allowed -"; 2],
        "each user's tenant logs the request"
    );
}

#[tokio::test]
async fn an_unknown_address_answers_alike_and_a_browser_without_binding_gets_one() {
    let mut store = MockPortalStore::new();
    store
        .expect_active_users_by_email()
        .returning(|_| Ok(vec![]));
    store.expect_record_link().never();
    let mut mailer = MockMailer::new();
    mailer.expect_send().never();
    let (service, audit) = audited(store, mailer);
    let done = service
        .request_link(&ctx(), "nobody@example.se", Some("pb_forged"), ORIGIN)
        .await
        .unwrap();
    assert!(TokenKind::Binding.fits(&done.binding));
    assert_eq!((done.sent, done.limited), (0, 0));
    assert_eq!(rows(&audit), vec!["security unknown_portal_address"]);
}

#[tokio::test]
async fn links_past_the_limit_are_not_sent() {
    let mut store = MockPortalStore::new();
    let u = user("anna@example.se");
    store
        .expect_active_users_by_email()
        .returning(move |_| Ok(vec![u.clone()]));
    store.expect_record_link().returning(|_, _, _| Ok(false));
    let mut mailer = MockMailer::new();
    mailer.expect_send().never();
    let (service, audit) = audited(store, mailer);
    let done = service
        .request_link(&ctx(), "anna@example.se", None, ORIGIN)
        .await
        .unwrap();
    assert_eq!((done.sent, done.limited), (0, 1));
    assert_eq!(
        rows(&audit),
        vec!["portal portal.sign_in.request refused links_per_window"]
    );
}

#[tokio::test]
async fn a_mail_that_cannot_go_out_answers_alike_and_is_logged_as_failed() {
    for error in [
        crate::portal::ports::MailError::NoTransport,
        crate::portal::ports::MailError::Failed("the mail queue is full".into()),
    ] {
        let mut store = MockPortalStore::new();
        let u = user("anna@example.se");
        store
            .expect_active_users_by_email()
            .returning(move |_| Ok(vec![u.clone()]));
        store.expect_record_link().returning(|_, _, _| Ok(true));
        let mut mailer = MockMailer::new();
        mailer.expect_send().returning(move |_| Err(error.clone()));
        let (service, audit) = audited(store, mailer);
        // The asker's answer is the one an unknown address gets: nothing tells the two apart.
        let done = service
            .request_link(&ctx(), "anna@example.se", None, ORIGIN)
            .await
            .unwrap();
        assert_eq!((done.sent, done.limited), (0, 0));
        assert_eq!(
            rows(&audit),
            vec!["portal portal.sign_in.request failed mail_not_sent"]
        );
    }
}

#[tokio::test]
async fn a_malformed_address_is_400() {
    let mut store = MockPortalStore::new();
    store.expect_active_users_by_email().never();
    let e = service(store, MockMailer::new())
        .request_link(&ctx(), "anna", None, ORIGIN)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn each_link_that_does_not_sign_in_answers_its_code() {
    let binding = token(TokenKind::Binding, 'Z');
    let link = token(TokenKind::Link, 'L');
    for (found, code) in [
        (Redemption::Unknown, ErrorCode::LinkInvalid),
        (Redemption::Used, ErrorCode::LinkUsed),
        (Redemption::Expired, ErrorCode::LinkExpired),
    ] {
        let mut store = MockPortalStore::new();
        store
            .expect_redeem_link()
            .returning(move |_, _, _, _, _| Ok(found.clone()));
        let (service, audit) = audited(store, MockMailer::new());
        let e = service
            .redeem(&ctx(), &link, Some(&binding))
            .await
            .unwrap_err();
        assert_eq!(e.code, code);
        assert_eq!(e.code.status(), 401);
        assert_eq!(rows(&audit), vec!["security portal_link_refused"]);
    }
    // Unparsable: refused before the store is asked; no binding cookie: unknown here.
    for (l, b, code) in [
        ("not-a-link", Some(binding.as_str()), ErrorCode::InvalidLink),
        ("pl_short", Some(binding.as_str()), ErrorCode::InvalidLink),
        (link.as_str(), None, ErrorCode::LinkInvalid),
        (link.as_str(), Some("pb_forged"), ErrorCode::LinkInvalid),
    ] {
        let mut store = MockPortalStore::new();
        store.expect_redeem_link().never();
        let e = service(store, MockMailer::new())
            .redeem(&ctx(), l, b)
            .await
            .unwrap_err();
        assert_eq!(e.code, code, "{l} {b:?}");
    }
}

#[tokio::test]
async fn a_redeemed_link_opens_a_session_with_its_csrf_token() {
    let binding = token(TokenKind::Binding, 'Z');
    let link = token(TokenKind::Link, 'L');
    let mut store = MockPortalStore::new();
    let u = user("anna@example.se");
    store
        .expect_redeem_link()
        .returning(move |l, b, s, at, until| {
            assert_eq!(
                l,
                &TokenDigest(token(TokenKind::Link, 'L').bytes().rev().collect())
            );
            assert_eq!(
                b,
                &TokenDigest(token(TokenKind::Binding, 'Z').bytes().rev().collect())
            );
            assert_eq!((at, until), (now(), now() + SESSION_LIFETIME));
            Ok(Redemption::SignedIn(PortalSession {
                digest: s.clone(),
                tenant_id: u.tenant_id,
                user_id: u.id,
                role: u.role,
                email: u.email.clone(),
                created_at: at,
                last_seen_at: at,
                expires_at: until,
            }))
        });
    let (service, audit) = audited(store, MockMailer::new());
    let signed = service.redeem(&ctx(), &link, Some(&binding)).await.unwrap();
    assert_eq!(
        rows(&audit),
        vec!["portal portal.sign_in.complete allowed -"]
    );
    assert!(TokenKind::Session.fits(&signed.session_token));
    assert_eq!(signed.csrf, format!("csrf:{}", signed.session_token));
    assert_eq!(
        signed.session.digest,
        TokenDigest(signed.session_token.bytes().rev().collect())
    );
}

#[tokio::test]
async fn a_request_needs_a_live_session_and_a_write_its_csrf_token() {
    let session_token = token(TokenKind::Session, 'S');
    let mut store = MockPortalStore::new();
    store.expect_session().returning(|d, at, _| {
        Ok(
            (d == &TokenDigest(token(TokenKind::Session, 'S').bytes().rev().collect())).then(
                || PortalSession {
                    digest: d.clone(),
                    tenant_id: TenantId::generate(),
                    user_id: PortalUserId::generate(),
                    role: PortalRole::Member,
                    email: Email::parse("member@example.se").unwrap(),
                    created_at: at,
                    last_seen_at: at,
                    expires_at: at + SESSION_LIFETIME,
                },
            ),
        )
    });
    let s = service(store, MockMailer::new());
    let caller = s.caller(Some(&session_token)).await.unwrap();
    assert!(s.check_csrf(&caller, Some(&caller.csrf.clone())).is_ok());
    for bad in [None, Some(""), Some("csrf:ps_other")] {
        assert_eq!(
            s.check_csrf(&caller, bad).unwrap_err().code,
            ErrorCode::Forbidden
        );
    }
    for none in [
        None,
        Some("ps_forged"),
        Some(token(TokenKind::Session, 'T').as_str()),
    ] {
        let owned = none.map(str::to_owned);
        assert_eq!(
            s.caller(owned.as_deref()).await.unwrap_err().code,
            ErrorCode::Unauthorized
        );
    }
}
