//! `PortalConsole`'s own rules, with every port mocked: roles before any write, another
//! tenant's grant as 404, an admin never disabling themselves, each action's audit row naming
//! the portal user (and a failed audit write failing the action), and the expiry's forms.

use crate::access::admin::AdminService;
use crate::access::audit::{Outcome, PortalAuditRecord, RequestContext};
use crate::access::ports::{MockAuditLog, MockAuditSink, MockGrantStore, MockTenantStore};
use crate::companies::ports::MockPaidStore;
use crate::error::{ErrorCode, StoreError};
use crate::fixtures::{self, clock, grant, now, tenant};
use crate::ids::{PortalUserId, TenantId};
use crate::portal::action::PortalAction;
use crate::portal::admin::PortalAdmin;
use crate::portal::console::{parse_expiry, GrantRequest, PortalConsole};
use crate::portal::ports::MockPortalStore;
use crate::portal::service::PortalCaller;
use crate::portal::sign_in::{PortalSession, TokenDigest, SESSION_LIFETIME};
use crate::portal::user::PortalRole;
use crate::screening::admin::ScreeningAdmin;
use chrono::{Duration, NaiveDate, TimeZone, Utc};
use proptest::prelude::*;
use std::sync::{Arc, Mutex};

fn caller(tenant: TenantId, role: PortalRole) -> PortalCaller {
    PortalCaller {
        session: PortalSession {
            digest: TokenDigest(vec![1; 32]),
            tenant_id: tenant,
            user_id: PortalUserId::generate(),
            role,
            email: crate::portal::user::Email::parse("someone@example.se").unwrap(),
            created_at: now(),
            last_seen_at: now(),
            expires_at: now() + SESSION_LIFETIME,
        },
        csrf: "csrf".into(),
    }
}

/// A tenant store that knows `t` (and nothing of a twin).
fn knowing(t: &crate::access::tenant::Tenant) -> MockTenantStore {
    let mut tenants = MockTenantStore::new();
    let t = t.clone();
    tenants.expect_tenant().returning(move |_| Ok(t.clone()));
    tenants
}

fn ctx() -> RequestContext {
    RequestContext::new(None, now())
}

type Rows = Arc<Mutex<Vec<PortalAuditRecord>>>;

/// A console over `grants` and `tenants` (the rest of its ports expect nothing), recording
/// its audit rows; `audit_fails` makes every audit write fail.
fn console(
    grants: MockGrantStore,
    tenants: MockTenantStore,
    audit_fails: bool,
) -> (PortalConsole, Rows) {
    let rows: Rows = Arc::default();
    let mut audit = MockAuditSink::new();
    let r = rows.clone();
    audit.expect_record_portal().returning(move |row| {
        if audit_fails {
            return Err(StoreError::Unavailable("the audit store is down".into()));
        }
        r.lock().unwrap().push(row.clone());
        Ok(())
    });
    let (grants, tenants) = (Arc::new(grants), Arc::new(tenants));
    let admin = Arc::new(AdminService {
        calendar: Default::default(),
        tenants: tenants.clone(),
        grants: grants.clone(),
        hasher: Arc::new(crate::access::ports::MockCredentialHasher::new()),
        vault: Arc::new(crate::subjects::ports::MockIdentifierVault::new()),
        paid: Arc::new(MockPaidStore::new()),
        persons: Arc::new(crate::persons::ports::MockPersonStore::new()),
        subscriptions: Arc::new(crate::monitoring::ports::MockSubscriptionStore::new()),
        meter: Arc::new(crate::meter::NoMeter),
        clock: clock(),
    });
    let console = PortalConsole {
        calendar: Default::default(),
        admin,
        screening_admin: Arc::new(ScreeningAdmin {
            store: Arc::new(crate::screening::ports::MockScreeningStore::new()),
            tenants: tenants.clone(),
            subjects: Arc::new(crate::subjects::ports::MockSubjectStore::new()),
            clock: clock(),
        }),
        portal_admin: Arc::new(PortalAdmin {
            store: Arc::new(MockPortalStore::new()),
            tenants: tenants.clone(),
            clock: clock(),
        }),
        screening: Arc::new(crate::screening::tests::World::new().service()),
        tenants,
        grants,
        paid: Arc::new(MockPaidStore::new()),
        audit_log: Arc::new(MockAuditLog::new()),
        audit: Arc::new(audit),
        clock: fixtures::clock(),
    };
    (console, rows)
}

#[tokio::test]
async fn a_member_is_refused_every_grant_and_user_write_before_any_store_is_asked() {
    let t = tenant("SE");
    let mut grants = MockGrantStore::new();
    grants.expect_grant().never();
    grants.expect_insert_grant().never();
    let (console, rows) = console(grants, MockTenantStore::new(), false);
    let member = caller(t.id, PortalRole::Member);
    let request = GrantRequest {
        scopes: "kyb:read".into(),
        countries: "SE".into(),
        expires: String::new(),
        test: false,
    };
    let g = grant(&t, "kyb:read", "SE").id.to_string();
    let refusals = [
        console.create_grant(&ctx(), &member, &request).await.err(),
        console
            .update_grant(&ctx(), &member, &g, &request)
            .await
            .err(),
        console.rotate_grant(&ctx(), &member, &g).await.err(),
        console.revoke_grant(&ctx(), &member, &g).await.err(),
        console
            .add_user(&ctx(), &member, "x@example.se", "admin")
            .await
            .err(),
        console
            .disable_user(&ctx(), &member, &PortalUserId::generate().to_string())
            .await
            .err(),
    ];
    assert!(refusals
        .iter()
        .all(|f| f.as_ref().map(|f| f.code) == Some(ErrorCode::Forbidden)));
    let rows = rows.lock().unwrap();
    let actions: Vec<PortalAction> = rows.iter().map(|r| r.action).collect();
    assert_eq!(
        actions,
        vec![
            PortalAction::GrantCreated,
            PortalAction::GrantUpdated,
            PortalAction::GrantRotated,
            PortalAction::GrantRevoked,
            PortalAction::UserAdded,
            PortalAction::UserDisabled,
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r.portal_user_id == member.session.user_id
            && r.tenant_id == t.id
            && r.outcome == Outcome::Refused
            && r.status == 403
            && r.grant_id.is_none()));
}

#[tokio::test]
async fn another_tenants_grant_is_not_found_and_never_rotated() {
    let t = tenant("SE");
    let theirs = grant(&tenant("SE"), "kyb:read", "SE");
    let mut grants = MockGrantStore::new();
    let mine = t.id;
    grants
        .expect_grant()
        .withf(move |asked, _| *asked == mine)
        .returning(|_, _| Err(StoreError::NotFound));
    grants.expect_grant_tenant().never();
    grants.expect_rotate_secret().never();
    let (console, rows) = console(grants, knowing(&t), false);
    let admin = caller(t.id, PortalRole::Admin);
    let Err(e) = console
        .rotate_grant(&ctx(), &admin, &theirs.id.to_string())
        .await
    else {
        panic!("rotated another tenant's grant");
    };
    assert_eq!(e.code, ErrorCode::NotFound);
    let rows = rows.lock().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].grant_id, None,
        "another tenant's grant is not named"
    );
    assert_eq!(rows[0].outcome, Outcome::Failed);
}

#[tokio::test]
async fn an_admin_never_disables_themselves() {
    let t = tenant("SE");
    let (console, _) = console(MockGrantStore::new(), MockTenantStore::new(), false);
    let admin = caller(t.id, PortalRole::Admin);
    let e = console
        .disable_user(&ctx(), &admin, &admin.session.user_id.to_string())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn an_action_whose_audit_row_cannot_be_written_fails() {
    let t = tenant("SE");
    let mut grants = MockGrantStore::new();
    grants.expect_grants().returning(|_| Ok(vec![]));
    let (console, _) = console(grants, knowing(&t), true);
    let member = caller(t.id, PortalRole::Member);
    let Err(e) = console.rotate_grant(&ctx(), &member, "x").await else {
        panic!("rotated");
    };
    assert_eq!(
        e.code,
        ErrorCode::UpstreamUnavailable,
        "not the refusal: the log is down"
    );
    // A read that writes no row is unaffected.
    assert!(console.grants(&member).await.unwrap().is_empty());
}

#[test]
fn an_expiry_is_a_day_through_its_end_or_an_exact_time() {
    let end = parse_expiry("expires", "2027-03-01").unwrap();
    assert_eq!(
        end,
        Utc.with_ymd_and_hms(2027, 3, 1, 23, 59, 59).unwrap() + Duration::microseconds(999_999)
    );
    assert_eq!(
        parse_expiry("expires", "2027-03-01T12:00:00+01:00").unwrap(),
        Utc.with_ymd_and_hms(2027, 3, 1, 11, 0, 0).unwrap()
    );
    for bad in ["", "tomorrow", "2027-02-30", "2027-03-01\0", "01/03/2027"] {
        assert_eq!(
            parse_expiry("expires", bad).unwrap_err().code,
            ErrorCode::BadRequest,
            "{bad:?}"
        );
    }
}

proptest! {
    /// Every calendar day reads as the last instant of that day, UTC.
    #[test]
    fn every_day_reads_as_its_last_instant(days in 0i64..200_000) {
        let day = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + Duration::days(days);
        let end = parse_expiry("expires", &day.format("%Y-%m-%d").to_string()).unwrap();
        prop_assert_eq!(end.date_naive(), day);
        prop_assert_eq!((end + Duration::microseconds(1)).date_naive(), day.succ_opt().unwrap());
    }
}

#[tokio::test]
async fn a_paper_term_grant_is_the_operators_to_narrow_or_revoke() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut grants = MockGrantStore::new();
    let found = g.clone();
    grants
        .expect_grant()
        .returning(move |_, _| Ok(found.clone()));
    grants.expect_update_grant().never();
    grants.expect_revoke_grant().never();
    let (console, rows) = console(grants, knowing(&t), false);
    let admin = caller(t.id, PortalRole::Admin);
    let request = GrantRequest {
        scopes: "kyb:read".into(),
        countries: "SE".into(),
        ..GrantRequest::default()
    };
    let id = g.id.to_string();
    let narrowed = console.update_grant(&ctx(), &admin, &id, &request).await;
    let revoked = console.revoke_grant(&ctx(), &admin, &id).await;
    for refused in [narrowed.err(), revoked.err()] {
        let f = refused.expect("refused");
        assert_eq!(f.code, ErrorCode::Forbidden);
        assert!(f.message.contains("paper terms"), "{}", f.message);
    }
    // Refused, and audited naming the grant (the tenant's own).
    assert!(rows
        .lock()
        .unwrap()
        .iter()
        .all(|r| r.grant_id == Some(g.id) && r.outcome == Outcome::Refused));
}

#[tokio::test]
async fn test_mode_usage_of_a_tenant_without_a_twin_is_none_and_reads_no_budget() {
    // The console's paid store and audit log are mocks expecting nothing: reading either
    // would panic.
    let t = tenant("SE");
    assert!(t.test_tenant.is_none());
    let (console, rows) = console(MockGrantStore::new(), knowing(&t), false);
    let member = caller(t.id, PortalRole::Member);
    assert_eq!(console.usage(&member, true).await.unwrap(), None);
    assert!(
        rows.lock().unwrap().is_empty(),
        "a read of usage is no action"
    );
}
