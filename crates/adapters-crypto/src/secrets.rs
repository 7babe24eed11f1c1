//! Client secrets: generation and Argon2id hashing.
//!
//! Hashing is deliberately slow, so it runs on tokio's blocking pool and at most
//! `max_concurrent` hashes run at once (each holds `memory_kib` of RAM while it runs).
//!
//! That working memory is allocated once per concurrent hash and reused, not allocated for
//! every hash: the blocking pool runs hashes on ever different threads, and the allocator keeps
//! the freed 19 MiB of each in that thread's arena, so a burst of token requests used to leave
//! the process hundreds of MiB larger. Reused, the memory is bounded by `max_concurrent`
//! workspaces (wiped after each use, as they hold values derived from the secret).

use argon2::password_hash::{Output, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use async_trait::async_trait;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use domain::access::grant::{ClientSecret, SecretHash};
use domain::access::ports::CredentialHasher;
use domain::error::CryptoError;
use rand::rngs::OsRng;
use rand::RngCore;
use std::fmt;
use std::sync::{Arc, Mutex};
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
    /// Idle Argon2 working memory, one per hash that may run at once.
    workspaces: Mutex<Vec<Vec<Block>>>,
    max_workspaces: usize,
    /// A real hash (same parameters) of a secret nobody holds; unknown clients are checked
    /// against it so that they cost what a known client costs.
    dummy: String,
    #[cfg(test)]
    verifications: std::sync::atomic::AtomicUsize,
}

impl Inner {
    /// The one verification routine: every answer `verify_secret` gives passes through here
    /// exactly once. The hash is recomputed with the stored hash's own parameters and salt and
    /// compared in constant time (`Output`'s equality).
    fn verify(&self, presented: &[u8], phc: &str) -> bool {
        #[cfg(test)]
        self.verifications
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let Ok(hash) = PasswordHash::new(phc) else {
            return false;
        };
        let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else {
            return false;
        };
        let Ok(params) = Params::try_from(&hash) else {
            return false;
        };
        let Ok(algorithm) = Algorithm::try_from(hash.algorithm) else {
            return false;
        };
        let version = match hash.version.map(Version::try_from) {
            None => Version::V0x13,
            Some(Ok(v)) => v,
            Some(Err(_)) => return false,
        };
        let mut salt_buf = [0u8; 64];
        let Ok(salt) = salt.decode_b64(&mut salt_buf) else {
            return false;
        };
        let argon = Argon2::new(algorithm, version, params);
        let mut out = Zeroizing::new(vec![0u8; expected.len()]);
        self.compute(&argon, presented, salt, &mut out).is_ok()
            && Output::new(&out).is_ok_and(|computed| computed == expected)
    }

    fn hash(&self, secret: &[u8]) -> Result<String, CryptoError> {
        let mut salt = [0u8; 16];
        OsRng.fill_bytes(&mut salt);
        let encoded = SaltString::encode_b64(&salt).map_err(|_| failed())?;
        let len = self
            .argon
            .params()
            .output_len()
            .unwrap_or(Params::DEFAULT_OUTPUT_LEN);
        let mut out = vec![0u8; len];
        self.compute(&self.argon, secret, &salt, &mut out)?;
        let output = Output::new(&out).map_err(|_| failed())?;
        let params = argon2::password_hash::ParamsString::try_from(self.argon.params())
            .map_err(|_| failed())?;
        Ok(PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params,
            salt: Some(encoded.as_salt()),
            hash: Some(output),
        }
        .to_string())
    }

    /// Runs Argon2 in a reused workspace, wiping it afterwards.
    fn compute(
        &self,
        argon: &Argon2<'_>,
        secret: &[u8],
        salt: &[u8],
        out: &mut [u8],
    ) -> Result<(), CryptoError> {
        let needed = argon.params().block_count();
        let mut memory = self
            .workspaces
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .filter(|m| m.len() >= needed)
            .unwrap_or_else(|| vec![Block::default(); needed]);
        let result = argon
            .hash_password_into_with_memory(secret, salt, out, &mut memory[..])
            .map_err(|_| failed());
        memory.fill(Block::default());
        let mut idle = self.workspaces.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.max_workspaces {
            idle.push(memory);
        }
        result
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
            workspaces: Mutex::new(Vec::new()),
            max_workspaces: config.max_concurrent,
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
    async fn hashes_are_standard_phc_strings_both_ways() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let h = Argon2Hasher::for_tests();
        let s = h.generate_secret();
        // Ours, checked by the reference verifier.
        let ours = h.hash_secret(&s).await.unwrap();
        let reference = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(256, 1, 1, None).unwrap(),
        );
        let parsed = PasswordHash::new(&ours.0).unwrap();
        assert!(reference
            .verify_password(s.expose().as_bytes(), &parsed)
            .is_ok());
        // The reference's (a hash stored before workspaces were reused), checked by ours, even
        // with other parameters than the hasher's own.
        let other = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(512, 2, 1, None).unwrap(),
        );
        let salt = SaltString::encode_b64(b"sixteen byte salt").unwrap();
        let theirs = other
            .hash_password(s.expose().as_bytes(), &salt)
            .unwrap()
            .to_string();
        assert!(
            h.verify_secret(s.expose(), Some(&SecretHash(theirs.clone())))
                .await
        );
        assert!(!h.verify_secret("cs_other", Some(&SecretHash(theirs))).await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn working_memory_is_reused_and_bounded() {
        let h = Argon2Hasher::for_tests();
        let s = h.generate_secret();
        let hash = h.hash_secret(&s).await.unwrap();
        let checks = (0..32).map(|_| {
            let (h, s, hash) = (h.clone(), s.expose().to_owned(), hash.clone());
            tokio::spawn(async move { h.verify_secret(&s, Some(&hash)).await })
        });
        for check in checks {
            assert!(check.await.unwrap());
        }
        let idle = h.inner.workspaces.lock().unwrap();
        assert!(!idle.is_empty() && idle.len() <= h.config.max_concurrent);
        // Wiped after use: nothing derived from the secret stays behind.
        assert!(idle
            .iter()
            .all(|m| m.iter().all(|b| b.as_ref().iter().all(|w| *w == 0))));
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
