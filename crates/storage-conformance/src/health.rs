//! The store's record of its keys (`StoreProbe::{key_fingerprints, adopt_key_fingerprints,
//! replace_signing_fingerprint}`): none before first use; the first adoption wins, replicas
//! racing to adopt all see the one record; a signing rotation replaces only the signing
//! fingerprint and only under the same master key.

use super::Stores;
use domain::health::keys::KeyFingerprints;

fn fp(signing: &str, master: &str) -> KeyFingerprints {
    KeyFingerprints {
        signing: signing.into(),
        master: master.into(),
    }
}

pub async fn check_the_first_keys_are_the_stores_and_only_a_signing_rotation_moves_them(
    stores: &Stores,
) {
    let probe = &stores.probe;
    assert_eq!(probe.key_fingerprints().await.unwrap(), None);
    // Replicas adopting at once: every one answers the one record that won.
    let racing: Vec<_> = (0..6)
        .map(|i| {
            let probe = probe.clone();
            tokio::spawn(async move {
                probe
                    .adopt_key_fingerprints(&fp(&format!("s{i}"), &format!("m{i}")))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut held = Vec::new();
    for r in racing {
        held.push(r.await.unwrap());
    }
    let first = held[0].clone();
    assert!(held.iter().all(|h| *h == first), "{held:?}");
    assert_eq!(probe.key_fingerprints().await.unwrap(), Some(first.clone()));
    // A later adoption with other keys changes nothing and answers the store's.
    assert_eq!(
        probe
            .adopt_key_fingerprints(&fp("other", "other"))
            .await
            .unwrap(),
        first
    );
    // A signing rotation under another master key is refused; under the store's it moves
    // the signing fingerprint alone.
    assert!(!probe
        .replace_signing_fingerprint(&fp("s-new", "not-the-master"))
        .await
        .unwrap());
    assert!(probe
        .replace_signing_fingerprint(&fp("s-new", &first.master))
        .await
        .unwrap());
    assert_eq!(
        probe.key_fingerprints().await.unwrap(),
        Some(fp("s-new", &first.master))
    );
}
