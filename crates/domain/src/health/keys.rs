//! The keys a store was first used with, and the rule that a process serves a store only with
//! those keys.
//!
//! A store's data is sealed under the master key and its tokens are signed by the signing key.
//! Two processes on one store with different keys fork it silently: a token minted by one is
//! refused by the other, and what one sealed the other cannot read. So the store records the
//! keys' fingerprints on first use (never the keys), every process compares its own at start
//! and refuses to run on a mismatch, naming the setting, and readiness compares them again.

use std::fmt;

/// What identifies a deployment's keys without revealing them: the signing key's public half
/// digested, and a keyed digest of the master key. Equal fingerprints mean equal keys.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyFingerprints {
    pub signing: String,
    pub master: String,
}

impl fmt::Debug for KeyFingerprints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "KeyFingerprints(signing {}, master {})",
            self.signing, self.master
        )
    }
}

/// Which configured key differs from the store's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyMismatch {
    /// Stored data would be unreadable and new data sealed under another key.
    Master { stored: String, configured: String },
    /// Tokens minted by other replicas would be refused here, and this one's there.
    Signing { stored: String, configured: String },
}

impl KeyMismatch {
    /// The setting an operator fixes.
    pub fn setting(&self) -> &'static str {
        match self {
            KeyMismatch::Master { .. } => "IDREG_MASTER_KEY",
            KeyMismatch::Signing { .. } => "IDREG_SIGNING_KEY",
        }
    }
}

impl fmt::Display for KeyMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyMismatch::Master { stored, configured } => write!(
                f,
                "IDREG_MASTER_KEY (or IDREG_MASTER_KEY_FILE) is not the key this store's data is \
                 sealed under (the store's fingerprint {stored}, this process's {configured}): \
                 give every replica the master key the store was first used with"
            ),
            KeyMismatch::Signing { stored, configured } => write!(
                f,
                "IDREG_SIGNING_KEY (or IDREG_SIGNING_KEY_FILE) is not the signing key this store's \
                 replicas use (the store's fingerprint {stored}, this process's {configured}): \
                 give every replica the same key, or adopt a new one with \
                 `idreg keys adopt-signing-key` (see the README's key rotation)"
            ),
        }
    }
}

/// Compares a process's keys with the store's record; the master key first, as a wrong one
/// is the graver fault.
pub fn compare(stored: &KeyFingerprints, configured: &KeyFingerprints) -> Result<(), KeyMismatch> {
    if stored.master != configured.master {
        return Err(KeyMismatch::Master {
            stored: stored.master.clone(),
            configured: configured.master.clone(),
        });
    }
    if stored.signing != configured.signing {
        return Err(KeyMismatch::Signing {
            stored: stored.signing.clone(),
            configured: configured.signing.clone(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(signing: &str, master: &str) -> KeyFingerprints {
        KeyFingerprints {
            signing: signing.into(),
            master: master.into(),
        }
    }

    #[test]
    fn equal_keys_pass_and_each_difference_names_its_setting() {
        assert_eq!(compare(&fp("s1", "m1"), &fp("s1", "m1")), Ok(()));
        let signing = compare(&fp("s1", "m1"), &fp("s2", "m1")).unwrap_err();
        assert_eq!(signing.setting(), "IDREG_SIGNING_KEY");
        assert!(signing.to_string().contains("s1") && signing.to_string().contains("s2"));
        let master = compare(&fp("s1", "m1"), &fp("s1", "m2")).unwrap_err();
        assert_eq!(master.setting(), "IDREG_MASTER_KEY");
        // Both differ: the master key is named first.
        assert_eq!(
            compare(&fp("s1", "m1"), &fp("s2", "m2"))
                .unwrap_err()
                .setting(),
            "IDREG_MASTER_KEY"
        );
    }
}
