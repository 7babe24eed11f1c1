//! Token verification on arbitrary text: `BiscuitTokens::verify(token, now)`.
//!
//! Properties: no panic; only what the fuzz key signed is accepted, with the claims minted;
//! every verdict comes within a second (verification is bounded: size limit, Datalog
//! limits).
#![no_main]

use domain::access::ports::TokenAuthority;
use idreg_fuzz::{authority, claims, issued_at};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let text = String::from_utf8_lossy(data);
    let started = Instant::now();
    let verdict = authority().verify(&text, issued_at());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "verify took {took:?} for {} bytes",
        data.len()
    );
    // Only the fuzz key's own token (a seed) verifies, with what was minted into it.
    if let Ok(got) = verdict {
        assert_eq!(got, claims(), "a verified token holds what was minted");
    }
});
