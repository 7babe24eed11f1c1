//! The portal's sign-in: one user per address within a tenant (an address may be a user at
//! several tenants), a user's links limited in a window, a link redeemed once and only by the
//! browser that asked, and a session that ends at its lifetime, when idle, or at sign-out.

use super::*;
use domain::ids::PortalUserId;
use domain::portal::sign_in::{PortalSession, Redemption, SignInLink, TokenDigest};
use domain::portal::user::{Email, PortalRole, PortalUser};

fn user(t: &Tenant, email: &str, role: PortalRole) -> PortalUser {
    PortalUser {
        id: PortalUserId::generate(),
        tenant_id: t.id,
        email: Email::parse(email).unwrap(),
        role,
        created_at: t0(),
        created_by: None,
        disabled_at: None,
    }
}

fn digest() -> TokenDigest {
    TokenDigest(random_bytes(32))
}

fn link(u: &PortalUser, binding: &TokenDigest, at: DateTime<Utc>) -> SignInLink {
    SignInLink {
        digest: digest(),
        tenant_id: u.tenant_id,
        user_id: u.id,
        binding: binding.clone(),
        created_at: at,
        expires_at: at + Duration::minutes(15),
    }
}

async fn signed_in(stores: &Stores, u: &PortalUser) -> PortalSession {
    let binding = digest();
    let l = link(u, &binding, t0());
    assert!(stores
        .portal
        .record_link(&l, 5, t0() - Duration::minutes(15))
        .await
        .unwrap());
    match stores
        .portal
        .redeem_link(
            &l.digest,
            &binding,
            &digest(),
            t0(),
            t0() + Duration::hours(8),
        )
        .await
        .unwrap()
    {
        Redemption::SignedIn(s) => s,
        other => panic!("not signed in: {other:?}"),
    }
}

pub async fn check_portal_users_are_one_per_address_within_a_tenant(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let store = &stores.portal;
    let anna = user(&a, "anna@example.se", PortalRole::Admin);
    assert_eq!(store.create_user(&anna).await.unwrap(), Some(anna.clone()));
    // The same address at the same tenant: refused, nothing written.
    let again = user(&a, "anna@example.se", PortalRole::Member);
    assert_eq!(store.create_user(&again).await.unwrap(), None);
    assert_eq!(store.user(&a.id, &again.id).await.unwrap(), None);
    // At another tenant it is another user.
    let at_b = PortalUser {
        created_by: Some(anna.id),
        created_at: t0() + Duration::seconds(1),
        ..user(&b, "anna@example.se", PortalRole::Member)
    };
    assert_eq!(store.create_user(&at_b).await.unwrap(), Some(at_b.clone()));
    let gone = PortalUser {
        disabled_at: Some(t0()),
        ..user(&b, "anna.old@example.se", PortalRole::Member)
    };
    store.create_user(&gone).await.unwrap().unwrap();
    let found = store
        .active_users_by_email(&Email::parse("anna@example.se").unwrap())
        .await
        .unwrap();
    assert_eq!(found.len(), 2);
    assert!(found.contains(&anna) && found.contains(&at_b));
    assert!(store
        .active_users_by_email(&Email::parse("anna.old@example.se").unwrap())
        .await
        .unwrap()
        .is_empty());
    assert_eq!(store.users(&a.id).await.unwrap(), vec![anna.clone()]);
    assert_eq!(store.users(&b.id).await.unwrap().len(), 2);
    assert_eq!(store.user(&b.id, &anna.id).await.unwrap(), None);
}

pub async fn check_a_link_is_redeemed_once_by_the_browser_that_asked(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let store = &stores.portal;
    let anna = user(&t, "anna@example.se", PortalRole::Admin);
    store.create_user(&anna).await.unwrap().unwrap();
    let binding = digest();
    let window = t0() - Duration::minutes(15);

    // The limit: two links in the window, then none; an older link does not count.
    let old = link(&anna, &binding, t0() - Duration::minutes(20));
    assert!(store.record_link(&old, 2, window).await.unwrap());
    let first = link(&anna, &binding, t0());
    assert!(store.record_link(&first, 2, window).await.unwrap());
    let second = link(&anna, &binding, t0());
    assert!(store.record_link(&second, 2, window).await.unwrap());
    let third = link(&anna, &binding, t0());
    assert!(!store.record_link(&third, 2, window).await.unwrap());
    let until = t0() + Duration::hours(8);
    assert_eq!(
        store
            .redeem_link(&third.digest, &binding, &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Unknown,
        "a link over the limit was not stored"
    );

    // Another browser: unknown to it, and the link still works for the one that asked.
    assert_eq!(
        store
            .redeem_link(&first.digest, &digest(), &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Unknown
    );
    let session = digest();
    let Redemption::SignedIn(s) = store
        .redeem_link(&first.digest, &binding, &session, t0(), until)
        .await
        .unwrap()
    else {
        panic!("the asking browser signs in")
    };
    assert_eq!(
        (
            s.tenant_id,
            s.user_id,
            s.role,
            s.email.clone(),
            s.digest.clone(),
            s.expires_at
        ),
        (
            t.id,
            anna.id,
            PortalRole::Admin,
            anna.email.clone(),
            session,
            until
        )
    );
    assert_eq!(
        store
            .redeem_link(&first.digest, &binding, &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Used
    );
    // Past its 15 minutes (the old one), and a link that never was.
    assert_eq!(
        store
            .redeem_link(&old.digest, &binding, &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Expired
    );
    assert_eq!(
        store
            .redeem_link(&digest(), &binding, &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Unknown
    );

    // Racing redemptions of one link: exactly one signs in.
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (portal, l, b) = (
                stores.portal.clone(),
                second.digest.clone(),
                binding.clone(),
            );
            tokio::spawn(async move {
                portal
                    .redeem_link(&l, &b, &TokenDigest(random_bytes(32)), t0(), until)
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut signed = 0;
    for task in tasks {
        match task.await.unwrap() {
            Redemption::SignedIn(_) => signed += 1,
            Redemption::Used => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(signed, 1);

    // A disabled user's link does not sign in.
    let gone = PortalUser {
        disabled_at: Some(t0()),
        ..user(&t, "gone@example.se", PortalRole::Member)
    };
    store.create_user(&gone).await.unwrap().unwrap();
    let theirs = link(&gone, &binding, t0());
    assert!(store.record_link(&theirs, 2, window).await.unwrap());
    assert_eq!(
        store
            .redeem_link(&theirs.digest, &binding, &digest(), t0(), until)
            .await
            .unwrap(),
        Redemption::Unknown
    );
}

pub async fn check_a_session_ends_at_its_lifetime_when_idle_or_at_sign_out(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let store = &stores.portal;
    let idle = Duration::minutes(30);
    let anna = user(&t, "anna@example.se", PortalRole::Member);
    store.create_user(&anna).await.unwrap().unwrap();

    // In use: each read moves its last use; unused for the idle time, it is gone.
    let s = signed_in(stores, &anna).await;
    let at = t0() + Duration::minutes(20);
    let read = store.session(&s.digest, at, idle).await.unwrap().unwrap();
    assert_eq!(
        (read.last_seen_at, read.role, read.user_id, read.email),
        (at, PortalRole::Member, anna.id, anna.email.clone())
    );
    assert!(store
        .session(&s.digest, at + Duration::minutes(29), idle)
        .await
        .unwrap()
        .is_some());
    assert!(store
        .session(&s.digest, at + Duration::minutes(29) + idle, idle)
        .await
        .unwrap()
        .is_none());

    // However busy, it ends at its lifetime.
    let s = signed_in(stores, &anna).await;
    let mut at = t0();
    while at < t0() + Duration::hours(8) - Duration::minutes(20) {
        at += Duration::minutes(20);
        assert!(
            store.session(&s.digest, at, idle).await.unwrap().is_some(),
            "{at}"
        );
    }
    assert!(store
        .session(&s.digest, t0() + Duration::hours(8), idle)
        .await
        .unwrap()
        .is_none());

    // Sign-out ends it once; an unknown session is none.
    let s = signed_in(stores, &anna).await;
    assert!(store.end_session(&s.digest, t0()).await.unwrap());
    assert!(!store.end_session(&s.digest, t0()).await.unwrap());
    assert!(store
        .session(&s.digest, t0(), idle)
        .await
        .unwrap()
        .is_none());
    assert!(store
        .session(&digest(), t0(), idle)
        .await
        .unwrap()
        .is_none());
}

pub async fn check_disabling_a_user_ends_their_sessions_once(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let u = user(&t, "lead@example.se", PortalRole::Member);
    let keeps = user(&t, "other@example.se", PortalRole::Admin);
    for x in [&u, &keeps] {
        stores.portal.create_user(x).await.unwrap().unwrap();
    }
    let (s1, s2, kept) = (
        signed_in(stores, &u).await,
        signed_in(stores, &u).await,
        signed_in(stores, &keeps).await,
    );
    // Another tenant cannot disable the user.
    assert!(stores
        .portal
        .disable_user(&other.id, &u.id, t0())
        .await
        .unwrap()
        .is_none());
    let at = t0() + Duration::minutes(1);
    let off = stores
        .portal
        .disable_user(&t.id, &u.id, at)
        .await
        .unwrap()
        .expect("disabled");
    assert_eq!(off.disabled_at, Some(at));
    assert!(!off.active());
    for s in [&s1, &s2] {
        assert!(stores
            .portal
            .session(&s.digest, at, Duration::minutes(30))
            .await
            .unwrap()
            .is_none());
    }
    assert!(stores
        .portal
        .session(&kept.digest, at, Duration::minutes(30))
        .await
        .unwrap()
        .is_some());
    assert!(stores
        .portal
        .active_users_by_email(&u.email)
        .await
        .unwrap()
        .is_empty());
    // Once: a disabled user is not disabled again.
    assert!(stores
        .portal
        .disable_user(&t.id, &u.id, at)
        .await
        .unwrap()
        .is_none());
}
