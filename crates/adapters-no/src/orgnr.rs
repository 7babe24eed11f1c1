//! The Norwegian organisasjonsnummer: nine digits, the last a modulo-11 check digit over the
//! first eight with the weights 3, 2, 7, 6, 5, 4, 3, 2.
//!
//! `r = sum % 11`; `r == 0` gives the check digit 0, `r == 1` would need a check digit of 10,
//! so such a stem is never issued (a number ending in it is invalid), otherwise the check
//! digit is `11 - r`. Brønnøysundregistrene's own example: `12345678` sums to 138, `r` is 6,
//! so the number is `123456785`.
//!
//! **Accepted forms.** [`canonical`] takes the nine digits as they are stored
//! (`923609016`) and the grouping the register prints them in (`923 609 016`: three groups
//! of three, one ASCII space between groups); surrounding ASCII white space is ignored. It
//! refuses everything else: other separators (dots, hyphens, two spaces), the VAT form
//! (`NO 923 609 016 MVA`, a different identifier), non-ASCII digits (`９` or `٩`), and any
//! other character. The register's API itself takes only the nine digits, so what is sent is
//! always the canonical form.
//!
//! **Errors never echo the value** (an identifier must not reach a log line through an error
//! message): an [`OrgnrError`] says only what is wrong.

use std::fmt;

/// The weights of digits 1 to 8.
const WEIGHTS: [u32; 8] = [3, 2, 7, 6, 5, 4, 3, 2];

/// Why a value is not an organisasjonsnummer. Its message never contains the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrgnrError {
    /// Nothing but white space.
    #[error("an organisasjonsnummer is required")]
    Empty,
    /// A character that is neither an ASCII digit nor a space between digit groups.
    #[error("an organisasjonsnummer holds only the digits 0-9")]
    NotDigits,
    /// Not nine digits, or spaces other than `NNN NNN NNN`.
    #[error("an organisasjonsnummer is nine digits, written `NNNNNNNNN` or `NNN NNN NNN`")]
    Shape,
    /// Nine digits whose last digit is not the modulo-11 check digit of the first eight (or
    /// whose first eight have no check digit at all).
    #[error("the organisasjonsnummer's check digit does not match")]
    CheckDigit,
}

/// The check digit (0 to 9) of the first eight digits, each 0 to 9; `None` when the stem has
/// none (the weighted sum leaves remainder 1, so such a stem is never issued).
pub fn check_digit(stem: [u8; 8]) -> Option<u8> {
    let sum: u32 = stem
        .iter()
        .zip(WEIGHTS)
        .map(|(d, w)| u32::from(*d) * w)
        .sum();
    match sum % 11 {
        0 => Some(0),
        1 => None,
        r => u8::try_from(11 - r).ok(),
    }
}

/// The canonical nine digits of an organisasjonsnummer written as `923609016` or
/// `923 609 016` (see the module's documentation), its check digit verified.
pub fn canonical(value: &str) -> Result<String, OrgnrError> {
    let trimmed = value.trim_matches(|c: char| c.is_ascii_whitespace());
    if trimmed.is_empty() {
        return Err(OrgnrError::Empty);
    }
    if !trimmed.bytes().all(|b| b.is_ascii_digit() || b == b' ') {
        return Err(OrgnrError::NotDigits);
    }
    let bytes = trimmed.as_bytes();
    let digits: Vec<u8> = match bytes.len() {
        9 if bytes.iter().all(u8::is_ascii_digit) => bytes.to_vec(),
        11 if bytes[3] == b' '
            && bytes[7] == b' '
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 3 || i == 7 || b.is_ascii_digit()) =>
        {
            bytes.iter().copied().filter(u8::is_ascii_digit).collect()
        }
        _ => return Err(OrgnrError::Shape),
    };
    let mut stem = [0u8; 8];
    for (s, d) in stem.iter_mut().zip(&digits) {
        *s = d - b'0';
    }
    if check_digit(stem) != Some(digits[8] - b'0') {
        return Err(OrgnrError::CheckDigit);
    }
    Ok(String::from_utf8_lossy(&digits).into_owned())
}

/// Whether `value` is an organisasjonsnummer in an accepted form ([`canonical`]).
pub fn is_valid(value: &str) -> bool {
    canonical(value).is_ok()
}

/// A checked organisasjonsnummer in its canonical nine digits: what the client's calls take,
/// so nothing unchecked reaches the register. Its `Debug` shows the digits (they are a
/// legal entity's public number, though an ENK's number points at a person: log the
/// operation, not this).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Orgnr(String);

impl Orgnr {
    /// Reads an organisasjonsnummer in an accepted form ([`canonical`]).
    pub fn parse(value: &str) -> Result<Orgnr, OrgnrError> {
        canonical(value).map(Orgnr)
    }

    /// The nine digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The VAT number the register's entity carries when it is in the VAT register
    /// (`NO923609016MVA`): not a field of its own, the number with `NO` and `MVA` around it.
    pub fn vat_number(&self) -> String {
        format!("NO{}MVA", self.0)
    }
}

impl fmt::Display for Orgnr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Orgnr {
    type Err = OrgnrError;

    fn from_str(s: &str) -> Result<Orgnr, OrgnrError> {
        Orgnr::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every organisasjonsnummer in the recorded samples (testdata/).
    const RECORDED: [&str; 16] = [
        "923609016",
        "974760673",
        "912660680",
        "984851006",
        "915330193",
        "931744682",
        "983830196",
        "935864879",
        "997808533",
        "989566733",
        "976389387",
        "810005912",
        "810006242",
        "810004282",
        "810004622",
        "509100675",
    ];

    fn stem_of(n: &str) -> [u8; 8] {
        let mut stem = [0u8; 8];
        for (s, b) in stem.iter_mut().zip(n.bytes()) {
            *s = b - b'0';
        }
        stem
    }

    #[test]
    fn the_registers_example_and_every_recorded_number_pass() {
        assert_eq!(check_digit(stem_of("12345678")), Some(5));
        assert_eq!(canonical("123456785").as_deref(), Ok("123456785"));
        for n in RECORDED {
            assert_eq!(canonical(n).as_deref(), Ok(n), "{n}");
        }
    }

    #[test]
    fn a_stem_with_remainder_one_has_no_check_digit() {
        // 11223344: 3+2+14+12+15+12+12+8 = 78, 78 % 11 = 1. A doc example ends it in 5.
        assert_eq!(check_digit(stem_of("11223344")), None);
        assert_eq!(canonical("112233445"), Err(OrgnrError::CheckDigit));
        for d in 0..=9 {
            assert_eq!(
                canonical(&format!("11223344{d}")),
                Err(OrgnrError::CheckDigit)
            );
        }
        // Remainder 0 gives the check digit 0.
        assert_eq!(check_digit([0; 8]), Some(0));
        assert!(is_valid("000000000"));
    }

    #[test]
    fn the_printed_grouping_is_accepted_and_other_shapes_are_not() {
        assert_eq!(canonical("923 609 016").as_deref(), Ok("923609016"));
        assert_eq!(canonical("  923609016\n").as_deref(), Ok("923609016"));
        for bad in [
            "923.609.016",
            "923-609-016",
            "NO 923 609 016 MVA",
            "NO923609016MVA",
            "９２３６０９０１６",
            "٩٢٣٦٠٩٠١٦",
        ] {
            assert_eq!(canonical(bad), Err(OrgnrError::NotDigits), "{bad}");
        }
        for bad in [
            "92360901",
            "9236090166",
            "923  609 016",
            "92 3609 016",
            "923609 016",
        ] {
            assert_eq!(canonical(bad), Err(OrgnrError::Shape), "{bad}");
        }
        assert_eq!(canonical(""), Err(OrgnrError::Empty));
        assert_eq!(canonical(" \t "), Err(OrgnrError::Empty));
    }

    #[test]
    fn errors_never_echo_the_value() {
        for bad in ["923609017", "92360901x", "12345", "923 609 017"] {
            let e = canonical(bad).unwrap_err().to_string();
            assert!(!e.contains(bad), "{e}");
            assert!(!e.contains("923609"), "{e}");
        }
    }

    #[test]
    fn an_orgnr_gives_its_vat_number() {
        let o = Orgnr::parse("923 609 016").unwrap();
        assert_eq!(o.as_str(), "923609016");
        assert_eq!(o.to_string(), "923609016");
        assert_eq!(o.vat_number(), "NO923609016MVA");
        assert_eq!("923609016".parse::<Orgnr>(), Ok(o));
    }

    fn valid_number() -> impl Strategy<Value = String> {
        proptest::array::uniform8(0u8..=9).prop_filter_map("a stem with a check digit", |s| {
            check_digit(s).map(|c| {
                s.iter()
                    .chain(std::iter::once(&c))
                    .map(|d| char::from(b'0' + d))
                    .collect()
            })
        })
    }

    proptest! {
        #[test]
        fn every_stem_gets_at_most_one_valid_check_digit(stem in proptest::array::uniform8(0u8..=9)) {
            let prefix: String = stem.iter().map(|d| char::from(b'0' + d)).collect();
            let valid: Vec<u8> = (0..=9u8)
                .filter(|c| is_valid(&format!("{prefix}{c}")))
                .collect();
            prop_assert!(valid.len() <= 1);
            prop_assert_eq!(valid.first().copied(), check_digit(stem));
        }

        #[test]
        fn any_single_digit_change_of_a_valid_number_is_refused(
            n in valid_number(),
            at in 0usize..9,
            shift in 1u8..=9,
        ) {
            prop_assert!(is_valid(&n));
            let mut b = n.clone().into_bytes();
            b[at] = b'0' + (b[at] - b'0' + shift) % 10;
            let changed = String::from_utf8(b).unwrap();
            prop_assert_eq!(canonical(&changed), Err(OrgnrError::CheckDigit));
        }

        #[test]
        fn any_input_with_a_non_digit_is_refused(
            n in valid_number(),
            at in 0usize..10,
            c in any::<char>().prop_filter("not a digit or white space", |c| {
                !c.is_ascii_digit() && !c.is_ascii_whitespace()
            }),
        ) {
            let mut s: Vec<char> = n.chars().collect();
            s.insert(at.min(s.len()), c);
            let s: String = s.into_iter().collect();
            prop_assert_eq!(canonical(&s), Err(OrgnrError::NotDigits));
        }

        #[test]
        fn arbitrary_unicode_never_panics_and_what_passes_is_nine_checked_digits(s in "\\PC{0,16}") {
            if let Ok(c) = canonical(&s) {
                prop_assert_eq!(c.len(), 9);
                prop_assert!(c.bytes().all(|b| b.is_ascii_digit()));
                prop_assert_eq!(canonical(&c), Ok(c.clone()));
                let digits: String = s.chars().filter(char::is_ascii_digit).collect();
                prop_assert_eq!(digits, c);
            }
        }

        #[test]
        fn arbitrary_strings_never_panic(s in any::<String>()) {
            let _ = canonical(&s);
        }

        #[test]
        fn the_spaced_form_reads_as_the_bare_one(n in valid_number()) {
            let spaced = format!("{} {} {}", &n[0..3], &n[3..6], &n[6..9]);
            prop_assert_eq!(canonical(&spaced), Ok(n));
        }
    }
}
