//! Client secrets: generation and Argon2id hashing.
//!
//! Hashing is deliberately slow, so it runs on tokio's blocking pool and at most
//! `max_concurrent` hashes run at once (each holds `memory_kib` of RAM while it runs).

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use domain::grant::{ClientSecret, SecretHash};
use domain::ports::{CredentialHasher, CryptoError};
use rand::rngs::OsRng;
use rand::RngCore;
use std::fmt;
use std::sync::Arc;
use tokio::sync::Semaphore;
use zeroize::Zeroizing;

/// Prefix of every generated client secret.
pub const SECRET_PREFIX: &str = "cs_";

/// Presented secrets longer than this are not hashed as given (a generated one is 46
/// characters); they are checked, with the same work, against the dummy hash and refused.
pub const MAX_PRESENTED_LEN: usize = 256;

/// Argon2id cost parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Config {
    /// Memory per hash, in KiB.
    pub memory_kib: u32,
    /// Passes over the memory.
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
    /// How many hashes may run at once (bounds CPU and memory under a burst of token
    /// requests; the rest wait their turn).
    pub max_concurrent: usize,
}

impl Argon2Config {
    /// OWASP's recommended Argon2id setting (m = 19 MiB, t = 2, p = 1): about 20-40 ms per
    /// hash on a current server core. One hash per available core at a time.
    pub fn owasp() -> Self {
        Argon2Config {
            memory_kib: 19 * 1024,
            iterations: 2,
            parallelism: 1,
            max_concurrent: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }

    /// Cheap parameters for tests only. Never in production.
    pub fn for_tests() -> Self {
        Argon2Config {
            memory_kib: 256,
            iterations: 1,
            parallelism: 1,
            max_concurrent: 4,
        }
    }
}

impl Default for Argon2Config {
    fn default() -> Self {
        Argon2Config::owasp()
    }
}

struct Inner {
    argon: Argon2<'static>,
    /// A real hash (same parameters) of a secret nobody holds; unknown clients are checked
    /// against it so that they cost what a known client costs.
    dummy: String,
    #[cfg(test)]
    verifications: std::sync::atomic::AtomicUsize,
}

impl Inner {
    /// The one verification routine: every answer `verify_secret` gives passes through here
    /// exactly once.
    fn verify(&self, presented: &[u8], phc: &str) -> bool {
        #[cfg(test)]
        self.verifications
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match PasswordHash::new(phc) {
            // Argon2's verifier compares the digests in constant time.
            Ok(hash) => self.argon.verify_password(presented, &hash).is_ok(),
            Err(_) => false,
        }
    }

    fn hash(&self, secret: &[u8]) -> Result<String, CryptoError> {
        let mut salt = [0u8; 16];
        OsRng.fill_bytes(&mut salt);
        let salt = SaltString::encode_b64(&salt).map_err(|_| failed())?;
        self.argon
            .hash_password(secret, &salt)
            .map(|h| h.to_string())
            .map_err(|_| failed())
    }
}

fn failed() -> CryptoError {
    CryptoError::Failed("secret hashing failed".to_owned())
}

/// [`CredentialHasher`] with Argon2id.
#[derive(Clone)]
pub struct Argon2Hasher {
    inner: Arc<Inner>,
    permits: Arc<Semaphore>,
    config: Argon2Config,
}

impl Argon2Hasher {
    /// Builds the hasher and computes the dummy hash (one full hash, so this takes as long
    /// as a token request's verification).
    pub fn new(config: Argon2Config) -> Result<Self, CryptoError> {
        let params = Params::new(
            config.memory_kib,
            config.iterations,
            config.parallelism,
            None,
        )
        .map_err(|e| CryptoError::Failed(format!("invalid argon2 parameters: {e}")))?;
        if config.max_concurrent == 0 {
            return Err(CryptoError::Failed(
                "max_concurrent must be at least 1".to_owned(),
            ));
        }
        let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let mut nobody = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut nobody[..]);
        let mut inner = Inner {
            argon,
            dummy: String::new(),
            #[cfg(test)]
            verifications: std::sync::atomic::AtomicUsize::new(0),
        };
        inner.dummy = inner.hash(&nobody[..])?;
        Ok(Argon2Hasher {
            inner: Arc::new(inner),
            permits: Arc::new(Semaphore::new(config.max_concurrent)),
            config,
        })
    }

    /// [`Argon2Config::owasp`].
    pub fn owasp() -> Result<Self, CryptoError> {
        Argon2Hasher::new(Argon2Config::owasp())
    }

    /// [`Argon2Config::for_tests`]. Never in production.
    pub fn for_tests() -> Self {
        Argon2Hasher::new(Argon2Config::for_tests()).expect("test parameters are valid")
    }

    pub fn config(&self) -> &Argon2Config {
        &self.config
    }

    /// Runs `f` on the blocking pool once a hashing permit is free.
    async fn run_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Inner) -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.permits.acquire().await.ok()?;
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&inner)).await.ok()
    }
}

impl fmt::Debug for Argon2Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Argon2Hasher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl CredentialHasher for Argon2Hasher {
    /// `cs_` and 32 random bytes in unpadded base64url: 46 characters, all URL-safe, so the
    /// secret survives HTTP Basic auth whether or not the client URL-encodes it.
    fn generate_secret(&self) -> ClientSecret {
        let mut bytes = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut bytes[..]);
        let mut s = String::with_capacity(SECRET_PREFIX.len() + 43);
        s.push_str(SECRET_PREFIX);
        URL_SAFE_NO_PAD.encode_string(&bytes[..], &mut s);
        ClientSecret::new(s)
    }

    async fn hash_secret(&self, secret: &ClientSecret) -> Result<SecretHash, CryptoError> {
        let secret = Zeroizing::new(secret.expose().as_bytes().to_vec());
        self.run_blocking(move |inner| inner.hash(&secret))
            .await
            .ok_or_else(failed)?
            .map(SecretHash)
    }

    async fn verify_secret<'a>(&self, presented: &str, stored: Option<&'a SecretHash>) -> bool {
        // Decide up front which hash to check against; from here on both paths do the same
        // work. An unknown client, an unreadable stored hash or an absurdly long secret is
        // checked against the dummy and can only answer false.
        let genuine = presented.len() <= MAX_PRESENTED_LEN
            && stored.is_some_and(|h| PasswordHash::new(&h.0).is_ok());
        let phc = match stored {
            Some(h) if genuine => h.0.clone(),
            _ => self.inner.dummy.clone(),
        };
        let cut = presented.len().min(MAX_PRESENTED_LEN);
        let presented = Zeroizing::new(presented.as_bytes()[..cut].to_vec());
        let matched = self
            .run_blocking(move |inner| inner.verify(&presented, &phc))
            .await
            .unwrap_or(false);
        matched && genuine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    #[test]
    fn secrets_are_prefixed_url_safe_and_unique() {
        let h = Argon2Hasher::for_tests();
        let a = h.generate_secret();
        let b = h.generate_secret();
        assert_ne!(a, b);
        assert!(a.expose().starts_with("cs_"));
        assert_eq!(a.expose().len(), 46);
        assert!(a
            .expose()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(
            URL_SAFE_NO_PAD
                .decode(&a.expose()[3..])
                .map(|v| v.len())
                .unwrap(),
            32
        );
    }

    #[tokio::test]
    async fn hash_and_verify() {
        let h = Argon2Hasher::for_tests();
        let s = h.generate_secret();
        let hash = h.hash_secret(&s).await.unwrap();
        assert!(hash.0.starts_with("$argon2id$v=19$m=256,t=1,p=1$"));
        assert!(!hash.0.contains(s.expose()));
        assert!(h.verify_secret(s.expose(), Some(&hash)).await);
        assert!(!h.verify_secret("cs_wrong", Some(&hash)).await);
        assert!(!h.verify_secret("", Some(&hash)).await);
        // Salted: the same secret hashes differently.
        assert_ne!(h.hash_secret(&s).await.unwrap(), hash);
    }

    #[tokio::test]
    async fn unknown_client_is_false_even_for_the_dummy_input() {
        let h = Argon2Hasher::for_tests();
        assert!(!h.verify_secret("anything", None).await);
        assert!(!h.verify_secret("", None).await);
        let garbage = SecretHash("not a phc string".to_owned());
        assert!(!h.verify_secret("anything", Some(&garbage)).await);
    }

    #[tokio::test]
    async fn over_long_secrets_are_refused() {
        let h = Argon2Hasher::for_tests();
        let long = ClientSecret::new("x".repeat(MAX_PRESENTED_LEN + 1));
        let hash = h.hash_secret(&long).await.unwrap();
        assert!(!h.verify_secret(long.expose(), Some(&hash)).await);
    }

    /// Structural: every path, known or unknown client, runs exactly one Argon2
    /// verification, and the dummy has the configured parameters.
    #[tokio::test]
    async fn every_path_runs_one_real_verification() {
        let h = Argon2Hasher::for_tests();
        let s = h.generate_secret();
        let hash = h.hash_secret(&s).await.unwrap();
        let count = || h.inner.verifications.load(Ordering::SeqCst);
        let garbage = SecretHash("$argon2id$broken".to_owned());
        let long = "x".repeat(1000);
        let cases: [(&str, Option<&SecretHash>); 5] = [
            (s.expose(), Some(&hash)),
            ("wrong", Some(&hash)),
            ("wrong", None),
            ("wrong", Some(&garbage)),
            (&long, Some(&hash)),
        ];
        for (presented, stored) in cases {
            let before = count();
            h.verify_secret(presented, stored).await;
            assert_eq!(count(), before + 1);
        }
        let dummy = PasswordHash::new(&h.inner.dummy).unwrap();
        let real = PasswordHash::new(&hash.0).unwrap();
        assert_eq!(dummy.algorithm, real.algorithm);
        assert_eq!(dummy.params, real.params);
        assert_eq!(dummy.version, real.version);
    }

    /// Timing: the unknown-client path costs about what a real verification costs.
    ///
    /// Wall-clock time on a shared machine is noisy, so each round compares the fastest of a
    /// few interleaved runs (interference only ever adds time) and the test passes when any
    /// of several rounds finds the dummy path at least half as slow as the real one. A dummy
    /// path that skipped the work (microseconds against milliseconds) fails every round.
    #[tokio::test]
    async fn unknown_client_costs_a_real_verification() {
        let h = Argon2Hasher::new(Argon2Config {
            memory_kib: 8192,
            iterations: 2,
            parallelism: 1,
            max_concurrent: 1,
        })
        .unwrap();
        let s = h.generate_secret();
        let hash = h.hash_secret(&s).await.unwrap();
        let mut rounds = Vec::new();
        for _ in 0..6 {
            let mut real = Duration::MAX;
            let mut dummy = Duration::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                assert!(!h.verify_secret("cs_wrong", Some(&hash)).await);
                real = real.min(t.elapsed());
                let t = Instant::now();
                assert!(!h.verify_secret("cs_wrong", None).await);
                dummy = dummy.min(t.elapsed());
            }
            if dummy * 2 >= real {
                return;
            }
            rounds.push((dummy, real));
        }
        panic!("dummy path much cheaper than a real verification: {rounds:?}");
    }

    #[test]
    fn invalid_parameters_are_refused() {
        let mut c = Argon2Config::for_tests();
        c.memory_kib = 1;
        assert!(Argon2Hasher::new(c).is_err());
        let mut c = Argon2Config::for_tests();
        c.max_concurrent = 0;
        assert!(Argon2Hasher::new(c).is_err());
    }
}
