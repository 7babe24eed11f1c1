//! Token verification on mutations of a validly minted token.
//!
//! The input drives what is done to a token the fuzz key minted: its binary form patched,
//! cut or spliced; a block appended by the holder (any Datalog the input spells, signed as a
//! real attenuation is); its text form patched; verified at a time the input picks. Properties:
//! no panic; a verdict within a second; a verified token carries the claims minted, and is
//! still within its expiry.
#![no_main]

use arbitrary::{Result, Unstructured};
use base64::Engine;
use biscuit_auth::{Biscuit, BlockBuilder, PublicKey};
use chrono::Duration as CDuration;
use domain::access::ports::TokenAuthority;
use domain::access::token::TokenRejection;
use idreg_fuzz::{authority, claims, issued_at, minted};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE;

fn public_key() -> PublicKey {
    static KEY: OnceLock<PublicKey> = OnceLock::new();
    *KEY.get_or_init(|| {
        PublicKey::from_bytes_hex(
            &authority().public_key_hex(),
            biscuit_auth::Algorithm::Ed25519,
        )
        .expect("the fuzz key's public half")
    })
}

/// The token to present, made from the minted one as the input says.
fn mutate(u: &mut Unstructured) -> Result<String> {
    let mut bytes = B64.decode(minted()).expect("a minted token is base64");
    if u.arbitrary::<bool>()? {
        // A holder's attenuation block: whatever Datalog the input spells.
        let source: &str = u.arbitrary()?;
        if let Ok(block) = BlockBuilder::new().code(source) {
            let token = Biscuit::from(&bytes, public_key()).expect("the minted token parses");
            if let Ok(attenuated) = token.append(block).and_then(|t| t.to_vec()) {
                bytes = attenuated;
            }
        }
    }
    let edits: u8 = u.int_in_range(0..=4)?;
    for _ in 0..edits {
        if bytes.is_empty() {
            break;
        }
        match u.int_in_range(0..=3)? {
            0 => {
                let i = u.choose_index(bytes.len())?;
                bytes[i] ^= u.int_in_range(1..=255)?;
            }
            1 => {
                let len = u.choose_index(bytes.len())?;
                bytes.truncate(len);
            }
            2 => {
                let at = u.choose_index(bytes.len())?;
                let insert: Vec<u8> = u.arbitrary()?;
                bytes.splice(at..at, insert);
            }
            _ => {
                let from = u.choose_index(bytes.len())?;
                let to = from + u.choose_index(bytes.len() - from)?;
                let part = bytes[from..=to].to_vec();
                bytes.extend_from_slice(&part);
            }
        }
    }
    let mut text = B64.encode(&bytes);
    if u.arbitrary::<bool>()? && !text.is_empty() {
        // A text-level edit: a character of the base64 replaced.
        let i = u.choose_index(text.len())?;
        let c = char::from(u.int_in_range(0x20..=0x7e)?);
        text.replace_range(i..=i, &c.to_string());
    }
    Ok(text)
}

fuzz_target!(|data: &[u8]| {
    idreg_fuzz::install_schemes();
    let mut u = Unstructured::new(data);
    let Ok(token) = mutate(&mut u) else {
        return;
    };
    // From an hour before issue to an hour after expiry.
    let offset = u.int_in_range(-3600i64..=4500).unwrap_or(60);
    let now = issued_at() + CDuration::seconds(offset);
    let started = Instant::now();
    let verdict = authority().verify(&token, now);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "verify took {took:?} for {} bytes",
        token.len()
    );
    match verdict {
        Ok(got) => {
            assert_eq!(got, claims(), "a verified token holds what was minted");
            assert!(now < got.expires_at, "a verified token has not expired");
        }
        Err(TokenRejection::Expired(got)) => {
            assert_eq!(
                *got,
                claims(),
                "an expired token is attributed to what was minted"
            );
            assert!(now >= got.expires_at);
        }
        Err(_) => {}
    }
});
