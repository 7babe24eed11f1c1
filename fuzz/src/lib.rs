//! What the fuzz targets share: fixed dates, a signing key that exists only for fuzzing, a
//! token minted with it, and the digit runs of a text.

use adapters_crypto::{BiscuitTokens, SigningKey};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use domain::access::ports::TokenAuthority;
use domain::access::scope::ScopeSet;
use domain::access::token::TokenClaims;
use domain::countries::country::CountrySet;
use std::sync::OnceLock;

/// The date the parsers read ten-digit personal numbers on, when a target does not vary it.
pub fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 21).expect("a real date")
}

/// A date from two input bytes: 1900-01-01 plus up to 65,535 days (into 2079), so the
/// century rules of ten-digit numbers are read on many different days.
pub fn date_from(bytes: [u8; 2]) -> NaiveDate {
    let base = NaiveDate::from_ymd_opt(1900, 1, 1).expect("a real date");
    base + Duration::days(i64::from(u16::from_le_bytes(bytes)))
}

/// The fuzz key's 32-byte seed. It signs nothing outside these targets (the seeds under
/// `seeds/token_verify_base64` were minted with it).
const FUZZ_KEY_HEX: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0";

/// The token authority of the fuzz key, with the service's default limits.
pub fn authority() -> &'static BiscuitTokens {
    static AUTHORITY: OnceLock<BiscuitTokens> = OnceLock::new();
    AUTHORITY.get_or_init(|| {
        BiscuitTokens::new(SigningKey::from_hex(FUZZ_KEY_HEX).expect("the fuzz key"))
    })
}

/// When the minted token was issued; it is valid for fifteen minutes from then.
pub fn issued_at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap()
}

/// The claims the minted token carries.
pub fn claims() -> TokenClaims {
    TokenClaims {
        tenant_id: "01JQ0000000000000000000001".parse().expect("a tenant id"),
        grant_id: "01JQ0000000000000000000002".parse().expect("a grant id"),
        scopes: ScopeSet::parse_list("kyb:read identity:read").expect("scopes"),
        countries: CountrySet::parse_list("SE,LT").expect("countries"),
        credential_generation: 3,
        issued_at: issued_at(),
        expires_at: issued_at() + Duration::minutes(15),
        audience: Vec::new(),
    }
}

/// A token exactly as the service mints it, signed with the fuzz key (base64).
pub fn minted() -> &'static str {
    static TOKEN: OnceLock<String> = OnceLock::new();
    TOKEN.get_or_init(|| authority().mint(&claims()).expect("minting"))
}

/// The maximal runs of ASCII digits in `text`.
pub fn digit_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
}

/// What every list a reader returns holds: entries with an id and at least one name, none of
/// them blank.
pub fn check_list(list: &domain::screening::sanctions::ParsedList) {
    use domain::screening::sanctions::ListKind;
    let pep = list.source.kind() == ListKind::Pep;
    for entry in &list.entries {
        // A PEP list's entry says what makes it exposed; a sanctions entry never does.
        assert_eq!(
            entry.exposure.is_some(),
            pep,
            "exposure on the wrong kind of list"
        );
        assert!(!entry.source_entry_id.is_empty(), "an entry without an id");
        assert!(!entry.names.is_empty(), "an entry without a name");
        for name in &entry.names {
            assert!(!name.full.trim().is_empty(), "a blank name");
        }
    }
}

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them (every
/// target that reads an identifier or a country code calls it first; it is harmless twice).
pub fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}
