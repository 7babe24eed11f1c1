//! The idempotency store: a claim of a free key is won exactly once under concurrency; the
//! same request finds its first answer, another request is refused, an expired key is free
//! again, an abandoned running claim is taken over after its lease, tenants never share a
//! key, and the purge forgets only expired keys.

use super::*;
use domain::idempotency::ports::{ClaimOutcome, KeyClaim};

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 26, 12, 0, 0).unwrap()
}

fn claim(key: &str, fingerprint: &str, now: DateTime<Utc>) -> KeyClaim {
    KeyClaim {
        key_hash: format!("hmac-sha256:{key}"),
        fingerprint: format!("hmac-sha256:{fingerprint}"),
        now,
        lease_until: now + Duration::seconds(120),
        expires_at: now + Duration::hours(24),
    }
}

/// Concurrent claims of one free key: exactly one wins, the others find it running.
pub async fn check_a_free_key_is_claimed_once_under_concurrency(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let attempts: Vec<_> = (0..16)
        .map(|_| {
            let store = stores.idempotency.clone();
            let id = t.id;
            tokio::spawn(async move { store.claim(&id, &claim("k", "f", at())).await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for a in attempts {
        outcomes.push(a.await.unwrap().unwrap());
    }
    let claimed = outcomes
        .iter()
        .filter(|o| **o == ClaimOutcome::Claimed)
        .count();
    assert_eq!(claimed, 1, "{outcomes:?}");
    assert!(outcomes
        .iter()
        .all(|o| matches!(o, ClaimOutcome::Claimed | ClaimOutcome::InUse)));
}

/// A claimed key answers the same request with its kept answer, another request `Reused`,
/// and a released key is free again.
pub async fn check_an_answered_key_replays_and_refuses_another_request(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let s = &stores.idempotency;
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", at())).await.unwrap(),
        ClaimOutcome::Claimed
    );
    // Running: the same request waits, another is refused.
    let later = at() + Duration::seconds(5);
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", later)).await.unwrap(),
        ClaimOutcome::InUse
    );
    assert_eq!(
        s.claim(&t.id, &claim("k", "g", later)).await.unwrap(),
        ClaimOutcome::Reused
    );
    // Completing with another fingerprint changes nothing.
    s.complete(&t.id, "hmac-sha256:k", "hmac-sha256:g", b"nope")
        .await
        .unwrap();
    s.complete(&t.id, "hmac-sha256:k", "hmac-sha256:f", b"sealed answer")
        .await
        .unwrap();
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", later)).await.unwrap(),
        ClaimOutcome::Answered(b"sealed answer".to_vec())
    );
    assert_eq!(
        s.claim(&t.id, &claim("k", "g", later)).await.unwrap(),
        ClaimOutcome::Reused
    );
    // An answered key is not released.
    s.release(&t.id, "hmac-sha256:k", "hmac-sha256:f")
        .await
        .unwrap();
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", later)).await.unwrap(),
        ClaimOutcome::Answered(b"sealed answer".to_vec())
    );
    // A running key released is free for any request.
    assert_eq!(
        s.claim(&t.id, &claim("r", "f", later)).await.unwrap(),
        ClaimOutcome::Claimed
    );
    s.release(&t.id, "hmac-sha256:r", "hmac-sha256:f")
        .await
        .unwrap();
    assert_eq!(
        s.claim(&t.id, &claim("r", "g", later)).await.unwrap(),
        ClaimOutcome::Claimed
    );
}

/// Past its lease, a running claim is taken over by the same request (never by another);
/// past its expiry, a key is free for any request.
pub async fn check_leases_and_expiry_free_a_key(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let s = &stores.idempotency;
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", at())).await.unwrap(),
        ClaimOutcome::Claimed
    );
    let after_lease = at() + Duration::seconds(121);
    assert_eq!(
        s.claim(&t.id, &claim("k", "g", after_lease)).await.unwrap(),
        ClaimOutcome::Reused
    );
    assert_eq!(
        s.claim(&t.id, &claim("k", "f", after_lease)).await.unwrap(),
        ClaimOutcome::Claimed
    );
    s.complete(&t.id, "hmac-sha256:k", "hmac-sha256:f", b"a")
        .await
        .unwrap();
    let after_expiry = after_lease + Duration::hours(24) + Duration::seconds(1);
    assert_eq!(
        s.claim(&t.id, &claim("k", "g", after_expiry))
            .await
            .unwrap(),
        ClaimOutcome::Claimed
    );
}

/// Two tenants using one key hash never meet.
pub async fn check_tenants_never_share_a_key(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let s = &stores.idempotency;
    assert_eq!(
        s.claim(&a.id, &claim("k", "f", at())).await.unwrap(),
        ClaimOutcome::Claimed
    );
    s.complete(&a.id, "hmac-sha256:k", "hmac-sha256:f", b"a's")
        .await
        .unwrap();
    assert_eq!(
        s.claim(&b.id, &claim("k", "g", at())).await.unwrap(),
        ClaimOutcome::Claimed
    );
    assert_eq!(
        s.claim(&a.id, &claim("k", "f", at())).await.unwrap(),
        ClaimOutcome::Answered(b"a's".to_vec())
    );
}

/// The purge forgets expired keys of every tenant, at most `limit` a call, and nothing else.
pub async fn check_the_purge_forgets_only_expired_keys(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let s = &stores.idempotency;
    for (t, key, when) in [
        (a.id, "old1", at()),
        (b.id, "old2", at()),
        (a.id, "old3", at()),
        (a.id, "new", at() + Duration::hours(20)),
    ] {
        assert_eq!(
            s.claim(&t, &claim(key, "f", when)).await.unwrap(),
            ClaimOutcome::Claimed
        );
    }
    let purge_at = at() + Duration::hours(25);
    assert_eq!(s.purge_expired(purge_at, 2).await.unwrap(), 2);
    assert_eq!(s.purge_expired(purge_at, 2).await.unwrap(), 1);
    assert_eq!(s.purge_expired(purge_at, 2).await.unwrap(), 0);
    // The unexpired key still holds: another request is refused.
    assert_eq!(
        s.claim(&a.id, &claim("new", "g", purge_at)).await.unwrap(),
        ClaimOutcome::Reused
    );
    assert_eq!(stores.backing.count("idempotency_keys", "true").await, 1);
}
