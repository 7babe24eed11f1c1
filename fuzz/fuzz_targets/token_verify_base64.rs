//! Token verification on arbitrary bytes presented as a biscuit: the input is the token's
//! binary (protobuf) form, encoded as the service's tokens are (URL-safe base64) and
//! verified. Seeded with tokens the fuzz key minted, so mutations start from real
//! containers, blocks and signatures.
//!
//! Properties: no panic; a verdict within a second; a token that verifies carries the
//! claims of a token the fuzz key minted.
#![no_main]

use base64::Engine;
use domain::access::ports::TokenAuthority;
use idreg_fuzz::{authority, claims, issued_at};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let token = base64::engine::general_purpose::URL_SAFE.encode(data);
    let started = Instant::now();
    let verdict = authority().verify(&token, issued_at());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "verify took {took:?} for {} bytes",
        data.len()
    );
    if let Ok(got) = verdict {
        assert_eq!(got, claims(), "a verified token holds what was minted");
    }
});
