//! Token verification time, p50 and p99 over repeated runs, for the tokens a worker meets:
//!
//! - an ordinary token seen before (answered from the memo of verified tokens);
//! - an ordinary token seen for the first time (signatures and the Datalog run);
//! - the worst token accepted: the largest appended checks admitted, as many as fit the size
//!   limit, verified in full every time;
//! - the join bomb (200 appended facts, a three-way join), refused before the engine runs.
//!
//! `cargo bench -p adapters-crypto --bench token`

use adapters_crypto::token_admission::largest_admitted;
use adapters_crypto::{BiscuitTokens, SigningKey};
use biscuit_auth::{Biscuit, BlockBuilder};
use chrono::{Duration, TimeZone, Utc};
use domain::access::ports::TokenAuthority;
use domain::access::scope::ScopeSet;
use domain::access::token::TokenClaims;
use domain::countries::country::CountrySet;
use domain::ids::{GrantId, TenantId};
use std::time::{Duration as StdDuration, Instant};

const RUNS: usize = 2000;

fn main() {
    let key = SigningKey::generate();
    let public = biscuit_auth::PublicKey::from_bytes_hex(
        &BiscuitTokens::new(key.clone()).public_key_hex(),
        biscuit_auth::Algorithm::Ed25519,
    )
    .expect("the public key");
    let authority = BiscuitTokens::new(key);
    let now = Utc.with_ymd_and_hms(2026, 11, 25, 10, 0, 0).unwrap();
    let claims = || {
        TokenClaims {
        tenant_id: TenantId::generate(),
        grant_id: GrantId::generate(),
        scopes: ScopeSet::parse_list(
            "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe events:read screening:read screening:run kyb:refresh",
        )
        .expect("scopes"),
        countries: CountrySet::parse_list("SE,LT").expect("countries"),
        credential_generation: 1,
        issued_at: now,
        expires_at: now + Duration::minutes(15),
        audience: Vec::new(),
    }
    };
    let parse = |token: &str| Biscuit::from_base64(token, public).expect("a token");

    let ordinary = authority.mint(&claims()).expect("minted");
    let fresh: Vec<String> = (0..RUNS)
        .map(|_| authority.mint(&claims()).expect("minted"))
        .collect();
    let worst = largest_admitted(parse(&ordinary))
        .to_base64()
        .expect("encoded");
    let facts: String = (0..200).map(|i| format!("n({i});")).collect();
    let bomb = parse(&ordinary)
        .append(
            BlockBuilder::new()
                .code(format!("{facts} p($a, $b, $c) <- n($a), n($b), n($c);"))
                .expect("the bomb's code"),
        )
        .expect("appended")
        .to_base64()
        .expect("encoded");

    assert!(
        authority.verify(&worst, now).is_ok(),
        "the worst token is accepted"
    );
    assert!(authority.verify(&bomb, now).is_err(), "the bomb is refused");

    println!("token verification, {RUNS} runs each (p50, p99, worst):");
    report("ordinary, remembered", &ordinary.len(), || {
        authority.verify(&ordinary, now).is_ok()
    });
    let mut next = fresh.iter();
    report("ordinary, first sight", &fresh[0].len(), || {
        authority
            .verify(next.next().expect("a fresh token"), now)
            .is_ok()
    });
    report(
        &format!(
            "worst accepted ({} blocks)",
            parse(&worst).block_count() - 1
        ),
        &worst.len(),
        || authority.verify(&worst, now).is_ok(),
    );
    report("join bomb, refused", &bomb.len(), || {
        authority.verify(&bomb, now).is_err()
    });
}

fn report(label: &str, bytes: &usize, mut run: impl FnMut() -> bool) {
    let mut times: Vec<StdDuration> = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let expected = run();
        times.push(started.elapsed());
        assert!(expected, "{label}: unexpected verdict");
    }
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "  {label:<32} {bytes:>5} bytes  p50 {:>9.1?}  p99 {:>9.1?}  worst {:>9.1?}",
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}
