//! Access tokens as biscuits signed with Ed25519.
//!
//! The authority block carries the claims as facts and one check, the expiry:
//!
//! ```text
//! tenant("<ulid>"); grant("<ulid>"); generation(3);
//! issued_at(2025-01-01T10:00:00Z); expires_at(2025-01-01T11:00:00Z);
//! scope("kyb:read"); country("SE");
//! check if time($t), $t < 2025-01-01T11:00:00Z;
//! ```
//!
//! Values enter the Datalog only as parameters, never by string formatting. Claims are read
//! back only from the authority block: a block a holder appends can restrict the token (its
//! checks run) but can never add to what it grants. What an appended block may hold at all
//! (checks only, of bounded shape) is decided before any Datalog runs: `token_admission`.

use crate::keys::SigningKey;
use crate::verified_tokens::VerifiedTokens;
use biscuit_auth::builder::Term;
use biscuit_auth::error::{self as berr, FailedCheck, Logic};
use biscuit_auth::{AuthorizerBuilder, AuthorizerLimits, Biscuit, PublicKey};
use chrono::{DateTime, Utc};
use domain::access::ports::TokenAuthority;
use domain::access::scope::{Scope, ScopeSet};
use domain::access::token::{TokenClaims, TokenRejection};
use domain::countries::country::{Country, CountrySet};
use domain::error::CryptoError;
use domain::ids::{GrantId, TenantId};
use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Presented tokens longer than this are refused before any parsing. A minted token is well
/// under 1 KiB; the margin leaves room for a few attenuation blocks.
pub const MAX_TOKEN_LEN: usize = 8 * 1024;

/// The authority block. Every value is a parameter.
const AUTHORITY_CODE: &str = r#"
tenant({tenant});
grant({grant});
generation({generation});
issued_at({issued_at});
expires_at({expires_at});
check if time($t), $t < {expires_at};
"#;

/// The verifier's own block: the current time and a policy that admits whatever passes the
/// token's checks (authorization proper happens in the domain, against the grant record).
const AUTHORIZER_CODE: &str = r#"
time({now});
allow if true;
"#;

/// Mints and verifies access tokens with one Ed25519 keypair.
pub struct BiscuitTokens {
    key: SigningKey,
    public: PublicKey,
    limits: AuthorizerLimits,
    verified: VerifiedTokens,
}

impl BiscuitTokens {
    pub fn new(key: SigningKey) -> Self {
        let public = key.keypair().public();
        BiscuitTokens {
            key,
            public,
            // The default limits (1 ms) refuse good tokens on a busy machine; these still
            // bound what an attacker's appended block can make the engine do.
            limits: AuthorizerLimits {
                max_facts: 1000,
                max_iterations: 100,
                max_time: Duration::from_millis(100),
            },
            verified: VerifiedTokens::default(),
        }
    }

    /// Replaces the Datalog execution limits used by `verify`.
    pub fn with_limits(mut self, limits: AuthorizerLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The verification key as hex (not secret).
    pub fn public_key_hex(&self) -> String {
        self.public.to_bytes_hex()
    }
}

impl fmt::Debug for BiscuitTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BiscuitTokens")
            .field("public_key", &self.public_key_hex())
            .field("key", &"<redacted>")
            .finish()
    }
}

fn date_term(at: DateTime<Utc>) -> Option<Term> {
    u64::try_from(at.timestamp()).ok().map(Term::Date)
}

fn params<const N: usize>(pairs: [(&str, Term); N]) -> HashMap<String, Term> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn mint_failed(_: berr::Token) -> CryptoError {
    CryptoError::Failed("token minting failed".to_owned())
}

impl TokenAuthority for BiscuitTokens {
    fn mint(&self, claims: &TokenClaims) -> Result<String, CryptoError> {
        let (Some(issued_at), Some(expires_at)) =
            (date_term(claims.issued_at), date_term(claims.expires_at))
        else {
            return Err(CryptoError::Failed(
                "token times before 1970 cannot be minted".to_owned(),
            ));
        };
        let mut builder = Biscuit::builder()
            .code_with_params(
                AUTHORITY_CODE,
                params([
                    ("tenant", Term::Str(claims.tenant_id.to_string())),
                    ("grant", Term::Str(claims.grant_id.to_string())),
                    (
                        "generation",
                        Term::Integer(i64::from(claims.credential_generation)),
                    ),
                    ("issued_at", issued_at),
                    ("expires_at", expires_at),
                ]),
                HashMap::new(),
            )
            .map_err(mint_failed)?;
        for scope in claims.scopes.iter() {
            builder = builder
                .code_with_params(
                    "scope({scope});",
                    params([("scope", Term::Str(scope.as_str().to_owned()))]),
                    HashMap::new(),
                )
                .map_err(mint_failed)?;
        }
        for audience in &claims.audience {
            builder = builder
                .code_with_params(
                    "audience({audience});",
                    params([("audience", Term::Str(audience.clone()))]),
                    HashMap::new(),
                )
                .map_err(mint_failed)?;
        }
        for country in claims.countries.iter() {
            builder = builder
                .code_with_params(
                    "country({country});",
                    params([("country", Term::Str(country.code().to_owned()))]),
                    HashMap::new(),
                )
                .map_err(mint_failed)?;
        }
        builder
            .build(self.key.keypair())
            .and_then(|token| token.to_base64())
            .map_err(mint_failed)
    }

    fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<TokenClaims, TokenRejection> {
        use TokenRejection::Malformed;
        let token = token.trim();
        if token.is_empty() || token.len() > MAX_TOKEN_LEN {
            return Err(Malformed);
        }
        if let Some(verdict) = self.verified.verdict(token, now) {
            return verdict;
        }
        let biscuit = Biscuit::from_base64(token, self.public).map_err(parse_rejection)?;
        // Appended blocks are bounded by shape before the engine sees them (see
        // `token_admission`): the Datalog's own limits do not bound one rule's join.
        crate::token_admission::admit(&biscuit).map_err(|_| Malformed)?;
        let now_term = date_term(now).ok_or(Malformed)?;
        let mut authorizer = AuthorizerBuilder::new()
            .code_with_params(AUTHORIZER_CODE, params([("now", now_term)]), HashMap::new())
            .map_err(|_| Malformed)?
            .set_limits(self.limits.clone())
            .build(&biscuit)
            .map_err(|_| Malformed)?;

        // Read before authorizing, so that an expired token can still be attributed.
        let claims = read_claims(&mut authorizer)?;

        match authorizer.authorize() {
            Ok(_) => {}
            Err(berr::Token::FailedLogic(
                Logic::Unauthorized { checks, .. } | Logic::NoMatchingPolicy { checks },
            )) => {
                // The authority block holds exactly one check, the expiry. Any other failed
                // check belongs to an appended block: a restriction the holder chose, which
                // this service has no facts to satisfy.
                let expired = checks
                    .iter()
                    .any(|c| matches!(c, FailedCheck::Block(b) if b.block_id == 0));
                return Err(if expired {
                    TokenRejection::Expired(Box::new(claims))
                } else {
                    Malformed
                });
            }
            Err(_) => return Err(Malformed),
        }
        // The Datalog check decides; this only restates it at second precision.
        if now.timestamp() >= claims.expires_at.timestamp() {
            return Err(TokenRejection::Expired(Box::new(claims)));
        }
        if is_as_minted(&biscuit) {
            self.verified.remember(token, &claims, now);
        }
        Ok(claims)
    }
}

/// Whether the token is exactly what this service mints: the authority block alone, whose
/// only check is the expiry. Only such a token's verdict can be remembered (see
/// `verified_tokens`).
fn is_as_minted(biscuit: &Biscuit) -> bool {
    biscuit.block_count() == 1
        && biscuit
            .print_block_source(0)
            .is_ok_and(|source| source.matches("check if").count() == 1)
}

/// Maps a parse failure: a signature that does not verify is `BadSignature`; everything else
/// (base64, protobuf, sizes, versions, unknown keys) is `Malformed`.
fn parse_rejection(e: berr::Token) -> TokenRejection {
    match e {
        berr::Token::Format(
            berr::Format::Signature(berr::Signature::InvalidSignature(_))
            | berr::Format::SealedSignature,
        ) => TokenRejection::BadSignature,
        _ => TokenRejection::Malformed,
    }
}

/// All values of a one-variable query over the authority block (and the authorizer's own
/// block, which holds only `time`): the authorizer's default query scope.
fn all<T>(authorizer: &mut biscuit_auth::Authorizer, rule: &str) -> Result<Vec<T>, TokenRejection>
where
    T: TryFrom<Term, Error = berr::Token>,
{
    let rows: Vec<(T,)> = authorizer
        .query(rule)
        .map_err(|_| TokenRejection::Malformed)?;
    Ok(rows.into_iter().map(|(v,)| v).collect())
}

fn exactly_one<T>(
    authorizer: &mut biscuit_auth::Authorizer,
    rule: &str,
) -> Result<T, TokenRejection>
where
    T: TryFrom<Term, Error = berr::Token>,
{
    let mut values = all::<T>(authorizer, rule)?;
    match values.len() {
        1 => Ok(values.remove(0)),
        _ => Err(TokenRejection::Malformed),
    }
}

fn to_datetime(t: SystemTime) -> Result<DateTime<Utc>, TokenRejection> {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map_err(|_| TokenRejection::Malformed)?
        .as_secs();
    i64::try_from(secs)
        .ok()
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .ok_or(TokenRejection::Malformed)
}

fn read_claims(authorizer: &mut biscuit_auth::Authorizer) -> Result<TokenClaims, TokenRejection> {
    use TokenRejection::Malformed;
    let tenant: String = exactly_one(authorizer, "data($v) <- tenant($v)")?;
    let grant: String = exactly_one(authorizer, "data($v) <- grant($v)")?;
    let generation: i64 = exactly_one(authorizer, "data($v) <- generation($v)")?;
    let issued_at: SystemTime = exactly_one(authorizer, "data($v) <- issued_at($v)")?;
    let expires_at: SystemTime = exactly_one(authorizer, "data($v) <- expires_at($v)")?;
    let scopes: Vec<String> = all(authorizer, "data($v) <- scope($v)")?;
    let countries: Vec<String> = all(authorizer, "data($v) <- country($v)")?;
    let audience: Vec<String> = all(authorizer, "data($v) <- audience($v)")?;

    let scopes = scopes
        .iter()
        .map(|s| Scope::parse(s))
        .collect::<Option<ScopeSet>>()
        .ok_or(Malformed)?;
    let countries = countries
        .iter()
        .map(|c| Country::known().iter().copied().find(|k| k.code() == c))
        .collect::<Option<CountrySet>>()
        .ok_or(Malformed)?;
    Ok(TokenClaims {
        tenant_id: tenant.parse::<TenantId>().map_err(|_| Malformed)?,
        grant_id: grant.parse::<GrantId>().map_err(|_| Malformed)?,
        scopes,
        countries,
        credential_generation: i32::try_from(generation).map_err(|_| Malformed)?,
        issued_at: to_datetime(issued_at)?,
        expires_at: to_datetime(expires_at)?,
        audience,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use biscuit_auth::BlockBuilder;
    use chrono::{Duration as CDuration, TimeZone};

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 3, 1, 10, 0, 0).unwrap()
    }

    fn claims() -> TokenClaims {
        TokenClaims {
            tenant_id: TenantId::generate(),
            grant_id: GrantId::generate(),
            scopes: ScopeSet::parse_list("kyb:read identity:read").unwrap(),
            countries: CountrySet::parse_list("SE,LT").unwrap(),
            credential_generation: 3,
            issued_at: t0(),
            expires_at: t0() + CDuration::minutes(15),
            audience: Vec::new(),
        }
    }

    #[test]
    fn the_audience_round_trips() {
        crate::install_schemes();
        let a = authority();
        let mut c = claims();
        c.audience = vec!["https://idreg.example/mcp".into()];
        let token = a.mint(&c).unwrap();
        assert_eq!(a.verify(&token, t0()).unwrap(), c);
    }

    fn authority() -> BiscuitTokens {
        BiscuitTokens::new(SigningKey::generate())
    }

    #[test]
    fn round_trip() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        assert!(token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=".contains(&b)));
        assert_eq!(a.verify(&token, t0() + CDuration::minutes(1)).unwrap(), c);
    }

    #[test]
    fn sub_second_times_truncate_to_seconds() {
        crate::install_schemes();
        let a = authority();
        let mut c = claims();
        c.issued_at += CDuration::milliseconds(700);
        c.expires_at += CDuration::milliseconds(700);
        let got = a.verify(&a.mint(&c).unwrap(), t0()).unwrap();
        assert_eq!(got.issued_at, t0());
        assert_eq!(got.expires_at, t0() + CDuration::minutes(15));
    }

    #[test]
    fn empty_scope_and_country_sets_round_trip() {
        crate::install_schemes();
        let a = authority();
        let mut c = claims();
        c.scopes = ScopeSet::new();
        c.countries = CountrySet::new();
        assert_eq!(a.verify(&a.mint(&c).unwrap(), t0()).unwrap(), c);
    }

    #[test]
    fn expired_tokens_carry_their_claims() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        for now in [c.expires_at, c.expires_at + CDuration::days(1)] {
            assert_eq!(
                a.verify(&token, now),
                Err(TokenRejection::Expired(Box::new(c.clone())))
            );
        }
        assert!(a
            .verify(&token, c.expires_at - CDuration::seconds(1))
            .is_ok());
    }

    #[test]
    fn the_authority_block_holds_the_claims_and_the_expiry_check() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let source = biscuit_of(&a, &a.mint(&c).unwrap())
            .print_block_source(0)
            .unwrap();
        for line in [
            format!("tenant(\"{}\");", c.tenant_id),
            format!("grant(\"{}\");", c.grant_id),
            "generation(3);".to_owned(),
            "issued_at(2025-03-01T10:00:00Z);".to_owned(),
            "expires_at(2025-03-01T10:15:00Z);".to_owned(),
            "scope(\"identity:read\");".to_owned(),
            "scope(\"kyb:read\");".to_owned(),
            "country(\"SE\");".to_owned(),
            "country(\"LT\");".to_owned(),
            "check if time($t), $t < 2025-03-01T10:15:00Z;".to_owned(),
        ] {
            assert!(source.contains(&line), "{line} missing from:\n{source}");
        }
    }

    /// The Datalog check itself refuses an expired token (not only the restatement after it).
    #[test]
    fn the_datalog_check_enforces_expiry() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = biscuit_of(&a, &a.mint(&c).unwrap());
        let run = |now: DateTime<Utc>| {
            AuthorizerBuilder::new()
                .code_with_params(
                    AUTHORIZER_CODE,
                    params([("now", date_term(now).unwrap())]),
                    HashMap::new(),
                )
                .unwrap()
                .set_limits(a.limits.clone())
                .build(&token)
                .unwrap()
                .authorize()
        };
        assert!(run(c.expires_at - CDuration::seconds(1)).is_ok());
        assert!(matches!(
            run(c.expires_at),
            Err(berr::Token::FailedLogic(Logic::Unauthorized { .. }))
        ));
    }

    #[test]
    fn another_key_is_a_bad_signature() {
        crate::install_schemes();
        let token = authority().mint(&claims()).unwrap();
        assert_eq!(
            authority().verify(&token, t0()),
            Err(TokenRejection::BadSignature)
        );
    }

    #[test]
    fn garbage_is_malformed() {
        crate::install_schemes();
        let a = authority();
        let token = a.mint(&claims()).unwrap();
        let too_long = "A".repeat(MAX_TOKEN_LEN + 1);
        for bad in [
            "",
            "   ",
            "not a token",
            "eyJhbGciOiJIUzI1NiJ9.e30.x",
            &token[..token.len() / 2],
            &too_long,
        ] {
            assert_eq!(a.verify(bad, t0()), Err(TokenRejection::Malformed), "{bad}");
        }
    }

    #[test]
    fn tampered_tokens_are_refused() {
        crate::install_schemes();
        let a = authority();
        let token = a.mint(&claims()).unwrap();
        let mut raw = Biscuit::from_base64(&token, a.public)
            .unwrap()
            .to_vec()
            .unwrap();
        // Flip one bit at a time across the token: nothing may verify.
        for i in (0..raw.len()).step_by(7) {
            raw[i] ^= 0x01;
            let b64 = base64_url(&raw);
            assert!(a.verify(&b64, t0()).is_err(), "bit flip at {i} verified");
            raw[i] ^= 0x01;
        }
    }

    fn base64_url(bytes: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE.encode(bytes)
    }

    fn biscuit_of(a: &BiscuitTokens, token: &str) -> Biscuit {
        Biscuit::from_base64(token, a.public).unwrap()
    }

    #[test]
    fn appended_facts_are_refused_before_any_datalog_runs() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        let block = BlockBuilder::new()
            .code(
                r#"
                scope("kyb:refresh");
                scope("screening:run");
                country("XX");
                tenant("other");
                grant("other");
                generation(99);
                expires_at(2099-01-01T00:00:00Z);
                "#,
            )
            .unwrap();
        let attenuated = biscuit_of(&a, &token)
            .append(block)
            .unwrap()
            .to_base64()
            .unwrap();
        assert_eq!(a.verify(&attenuated, t0()), Err(TokenRejection::Malformed));
    }

    #[test]
    fn appended_time_facts_do_not_defeat_expiry() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        let block = BlockBuilder::new()
            .code("time(2000-01-01T00:00:00Z);")
            .unwrap();
        let attenuated = biscuit_of(&a, &token)
            .append(block)
            .unwrap()
            .to_base64()
            .unwrap();
        for now in [t0(), c.expires_at + CDuration::hours(1)] {
            assert_eq!(a.verify(&attenuated, now), Err(TokenRejection::Malformed));
        }
    }

    #[test]
    fn a_verified_token_is_remembered_and_still_expires() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        assert_eq!(a.verify(&token, t0()).unwrap(), c);
        assert_eq!(a.verified.len(), 1);
        // Remembered: the same answer, and the expiry still decides at second precision.
        assert_eq!(a.verify(&token, t0() + CDuration::minutes(1)).unwrap(), c);
        assert_eq!(
            a.verify(&token, c.expires_at - CDuration::milliseconds(1))
                .unwrap(),
            c
        );
        assert_eq!(
            a.verify(&token, c.expires_at),
            Err(TokenRejection::Expired(Box::new(c.clone())))
        );
        // A token never verified is not answered from memory, however close its bytes.
        let mut other = token.clone();
        other.push('A');
        assert!(a.verify(&other, t0()).is_err());
        assert_eq!(a.verified.len(), 1);
    }

    #[test]
    fn attenuated_and_forged_shapes_are_never_remembered() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        let earlier = BlockBuilder::new()
            .code("check if time($t), $t < 2025-03-01T10:05:00Z;")
            .unwrap();
        let attenuated = biscuit_of(&a, &token)
            .append(earlier)
            .unwrap()
            .to_base64()
            .unwrap();
        assert!(a.verify(&attenuated, t0()).is_ok());
        assert_eq!(a.verified.len(), 0);
        // Its own check still binds on the next request.
        assert_eq!(
            a.verify(&attenuated, t0() + CDuration::minutes(6)),
            Err(TokenRejection::Malformed)
        );
        // An authority block with a check beyond the expiry is verified in full every time.
        let extra = forge(
            &a,
            &format!(
                r#"tenant("{}"); grant("{}"); generation(3);
                issued_at(2025-03-01T10:00:00Z); expires_at(2025-03-01T10:15:00Z);
                check if time($t), $t < 2025-03-01T10:15:00Z;
                check if time($t), $t < 2025-03-01T10:02:00Z;"#,
                c.tenant_id, c.grant_id
            ),
        );
        assert!(a.verify(&extra, t0()).is_ok());
        assert_eq!(a.verified.len(), 0);
        assert!(a.verify(&extra, t0() + CDuration::minutes(3)).is_err());
    }

    #[test]
    fn appended_checks_restrict() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        let earlier = BlockBuilder::new()
            .code("check if time($t), $t < 2025-03-01T10:05:00Z;")
            .unwrap();
        let attenuated = biscuit_of(&a, &token)
            .append(earlier)
            .unwrap()
            .to_base64()
            .unwrap();
        assert!(a.verify(&attenuated, t0()).is_ok());
        assert_eq!(
            a.verify(&attenuated, t0() + CDuration::minutes(6)),
            Err(TokenRejection::Malformed)
        );
    }

    /// The token that held a worker for a minute: 200 appended facts and a rule joining them
    /// three ways. Refused by shape, before the engine runs.
    #[test]
    fn a_join_bomb_is_refused_before_the_engine_runs() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = a.mint(&c).unwrap();
        let facts: String = (0..200).map(|i| format!("n({i});")).collect();
        let bomb = BlockBuilder::new()
            .code(format!("{facts} p($a, $b, $c) <- n($a), n($b), n($c);"))
            .unwrap();
        let bomb = biscuit_of(&a, &token)
            .append(bomb)
            .unwrap()
            .to_base64()
            .unwrap();
        assert!(bomb.len() <= MAX_TOKEN_LEN, "the bomb fits the size limit");
        // Without the shape rule, even limits far below ours would not stop it in time: the
        // refusal must come from admission.
        assert!(crate::token_admission::admit(&biscuit_of(&a, &bomb)).is_err());
        assert_eq!(a.verify(&bomb, t0()), Err(TokenRejection::Malformed));
    }

    /// The largest token admitted verifies (its checks all hold) and is never remembered.
    #[test]
    fn the_largest_admitted_token_verifies() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let token = crate::token_admission::largest_admitted(biscuit_of(&a, &a.mint(&c).unwrap()));
        // At least one block of the largest checks fits, and the size limit is what stops more.
        assert!(token.block_count() >= 2, "{}", token.block_count());
        let token = token.to_base64().unwrap();
        assert!(token.len() <= MAX_TOKEN_LEN, "{} bytes", token.len());
        assert_eq!(a.verify(&token, t0()).unwrap(), c);
        assert_eq!(a.verified.len(), 0);
    }

    /// Signs an arbitrary authority block with the authority's key, to test what `verify`
    /// accepts from a token it did sign.
    fn forge(a: &BiscuitTokens, code: &str) -> String {
        Biscuit::builder()
            .code(code)
            .unwrap()
            .build(a.key.keypair())
            .unwrap()
            .to_base64()
            .unwrap()
    }

    #[test]
    fn structure_is_enforced() {
        crate::install_schemes();
        let a = authority();
        let c = claims();
        let base = format!(
            "tenant(\"{}\"); grant(\"{}\"); generation(3); \
             issued_at(2025-03-01T10:00:00Z); expires_at(2025-03-01T10:15:00Z);",
            c.tenant_id, c.grant_id
        );
        // The well-formed base verifies (no check, but that is the signer's business).
        assert!(a.verify(&forge(&a, &base), t0()).is_ok());
        let bad = [
            format!("{base} scope(\"kyb:write\");"),
            format!("{base} country(\"se\");"),
            format!("{base} country(\"XX\");"),
            format!("{base} tenant(\"{}\");", TenantId::generate()),
            format!("{base} generation(4);"),
            format!("{base} expires_at(2025-03-01T10:16:00Z);"),
            base.replace("generation(3);", ""),
            base.replace("generation(3);", "generation(\"3\");"),
            base.replace("generation(3);", "generation(9999999999);"),
            base.replace(&c.tenant_id.to_string(), "not-a-ulid"),
        ];
        for code in bad {
            assert_eq!(
                a.verify(&forge(&a, &code), t0()),
                Err(TokenRejection::Malformed),
                "{code}"
            );
        }
    }

    #[test]
    fn minting_refuses_pre_epoch_times() {
        crate::install_schemes();
        let mut c = claims();
        c.issued_at = Utc.with_ymd_and_hms(1960, 1, 1, 0, 0, 0).unwrap();
        assert!(authority().mint(&c).is_err());
        assert_eq!(
            authority().verify("x", Utc.with_ymd_and_hms(1960, 1, 1, 0, 0, 0).unwrap()),
            Err(TokenRejection::Malformed)
        );
    }

    #[test]
    fn debug_shows_no_private_key() {
        crate::install_schemes();
        let key = SigningKey::generate();
        let hex = key.to_hex();
        let shown = format!("{:?}", BiscuitTokens::new(key));
        assert!(!shown.contains(&hex[..16]));
    }
}
