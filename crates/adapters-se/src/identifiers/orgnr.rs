//! Swedish organisation numbers (`organisationsnummer` of legal entities).
//!
//! Accepted values (after the wire prefix is removed): `NNNNNNNNNN`, `NNNNNN-NNNN`, and the
//! 12-digit form some registries use, `16NNNNNNNNNN` or `16NNNNNN-NNNN`.
//!
//! Rules:
//! - the first digit is the group number (1 estates, 2 state, regions, municipalities and
//!   parishes, 3 foreign companies, 5 limited companies, 6 simple partnerships, 7 economic
//!   associations, 8 non-profit associations and foundations, 9 trading and limited
//!   partnerships); 0 and 4 are not in use;
//! - the third and fourth digits (the "month" of a personal number) are at least 20, so an
//!   organisation number can never be mistaken for a personnummer: the third digit is 2..=9;
//! - the last digit is the Luhn check digit of the first nine.
//!
//! Sole traders have no organisation number of this kind: they use their personnummer (type
//! `personnummer`). Canonical form: 10 digits.

use super::luhn;
use chrono::NaiveDate;
use domain::countries::country::Country;
use domain::subjects::identifier::{
    IdentifierError, IdentifierScheme, IdentifierType, SubjectKind,
};

const TY: IdentifierType = crate::identifiers::ORGNR;

/// Sweden's organisation numbers: `orgnr`.
pub struct Orgnr;

/// The refusal of a group number not in use.
pub const GROUP_NOT_IN_USE: IdentifierError = IdentifierError::Rule {
    reason: "orgnr-group",
    rule: "the first digit of an orgnr is its group number, and 0 and 4 are not in use",
};

impl IdentifierScheme for Orgnr {
    fn name(&self) -> &'static str {
        "orgnr"
    }

    fn country(&self) -> Country {
        Country::Se
    }

    fn kind(&self) -> SubjectKind {
        SubjectKind::Company
    }

    fn canonical(&self, value: &str, _today: NaiveDate) -> Result<String, IdentifierError> {
        canonical(value)
    }

    fn format_description(&self) -> &'static str {
        "A Swedish organisation number in wire form whose check digit passes the Luhn check (mod 10)."
    }

    fn check_summary(&self) -> &'static str {
        "a Swedish organisation number passes the Luhn check (mod 10)"
    }

    fn value_pattern(&self) -> &'static str {
        "(?:16)?[1-35-9][0-9][2-9][0-9]{3}-?[0-9]{4}"
    }
}

/// Validates an organisation number and returns its canonical 10-digit form.
fn canonical(value: &str) -> Result<String, IdentifierError> {
    let malformed = IdentifierError::Malformed(TY);
    let mut body = value.as_bytes().to_vec();
    // An optional hyphen before the last four digits.
    if matches!(body.len(), 11 | 13) && body[body.len() - 5] == b'-' {
        body.remove(body.len() - 5);
    }
    if body.len() == 12 && body.starts_with(b"16") {
        body.drain(..2);
    }
    if body.len() != 10 || !body.iter().all(u8::is_ascii_digit) {
        return Err(malformed);
    }
    let digits: Vec<u8> = body.iter().map(|b| b - b'0').collect();
    if matches!(digits[0], 0 | 4) {
        return Err(GROUP_NOT_IN_USE);
    }
    if digits[2] < 2 {
        return Err(IdentifierError::WrongKind {
            ty: TY,
            shape: crate::identifiers::PERSONNUMMER,
        });
    }
    if !luhn::is_valid(&digits) {
        return Err(IdentifierError::CheckDigit(TY));
    }
    Ok(String::from_utf8(body).expect("ASCII digits"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::subjects::identifier::{Identifier, IdentifierError};
    use proptest::prelude::*;

    fn parse(wire: &str) -> Result<String, IdentifierError> {
        crate::identifiers::install();
        Identifier::parse_company(wire).map(|i| i.expose_canonical().to_owned())
    }

    fn with_check(nine: &str) -> String {
        let values: Vec<u8> = nine.bytes().map(|b| b - b'0').collect();
        format!("{nine}{}", luhn::check_digit(&values))
    }

    #[test]
    fn real_organisation_numbers_are_valid() {
        crate::identifiers::install();
        for n in [
            "5560021361",
            "5567223705",
            "9124001992",
            "7164099017",
            "7020008350",
            "5561890038",
            "5562820745",
            "5560986878",
            "5299999994",
            "2021005448",
        ] {
            assert_eq!(parse(n).as_deref(), Ok(n));
            assert_eq!(
                Identifier::parse_company(&format!("se:{n}"))
                    .unwrap()
                    .id_type(),
                crate::identifiers::ORGNR
            );
        }
    }

    #[test]
    fn wrong_check_digit_is_refused() {
        crate::identifiers::install();
        assert_eq!(parse("5560021362"), Err(IdentifierError::CheckDigit(TY)));
    }

    #[test]
    fn hyphen_before_the_last_four_digits_is_accepted() {
        crate::identifiers::install();
        assert_eq!(parse("556002-1361").as_deref(), Ok("5560021361"));
        assert_eq!(parse("se:556002-1361").as_deref(), Ok("5560021361"));
    }

    #[test]
    fn sixteen_prefix_is_accepted() {
        crate::identifiers::install();
        assert_eq!(parse("165560021361").as_deref(), Ok("5560021361"));
        assert_eq!(parse("16556002-1361").as_deref(), Ok("5560021361"));
        // Only `16`, and only in front of ten digits.
        assert_eq!(parse("195560021361"), Err(IdentifierError::Malformed(TY)));
        assert_eq!(parse("16165560021361"), Err(IdentifierError::Malformed(TY)));
        assert_eq!(parse("16-5560021361"), Err(IdentifierError::Malformed(TY)));
    }

    #[test]
    fn misplaced_separators_and_other_shapes_are_refused() {
        crate::identifiers::install();
        for wire in [
            "55600-21361",
            "5560-021361",
            "556002 1361",
            "556002--1361",
            "556002+1361",
            "556002136",
            "55600213611",
            "556002136a",
            "",
        ] {
            assert_eq!(parse(wire), Err(IdentifierError::Malformed(TY)), "{wire}");
        }
    }

    #[test]
    fn orgnr_group_digit_zero_is_refused() {
        crate::identifiers::install();
        let n = with_check("056002136");
        assert_eq!(parse(&n), Err(GROUP_NOT_IN_USE));
    }

    #[test]
    fn orgnr_group_digit_four_is_refused() {
        crate::identifiers::install();
        let n = with_check("456002136");
        assert_eq!(parse(&n), Err(GROUP_NOT_IN_USE));
    }

    #[test]
    fn orgnr_third_digit_must_be_at_least_two() {
        crate::identifiers::install();
        for nine in ["551002136", "550002136"] {
            assert_eq!(
                parse(&with_check(nine)),
                Err(IdentifierError::WrongKind {
                    ty: TY,
                    shape: crate::identifiers::PERSONNUMMER
                })
            );
        }
        assert!(parse(&with_check("552002136")).is_ok());
    }

    #[test]
    fn a_personnummer_is_not_an_orgnr() {
        crate::identifiers::install();
        // A sole trader's number is a personnummer, whatever its check digit.
        assert!(parse("8112199289").is_err());
        assert!(parse("811219-9289").is_err());
    }

    fn valid_orgnr() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec![1u8, 2, 3, 5, 6, 7, 8, 9]),
            0u8..=9,
            2u8..=9,
            0u32..1_000_000,
        )
            .prop_map(|(group, second, third, rest)| {
                with_check(&format!("{group}{second}{third}{rest:06}"))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn valid_numbers_parse_and_round_trip(n in valid_orgnr()) {
            crate::identifiers::install();
            prop_assert_eq!(parse(&n), Ok(n.clone()));
            prop_assert_eq!(parse(&format!("se:{n}")), Ok(n.clone()));
            prop_assert_eq!(parse(&format!("{}-{}", &n[..6], &n[6..])), Ok(n.clone()));
            prop_assert_eq!(parse(&format!("16{n}")), Ok(n.clone()));
            prop_assert_eq!(parse(&format!("16{}-{}", &n[..6], &n[6..])), Ok(n.clone()));
            prop_assert_eq!(
                Identifier::parse_company(&n).map(|i| i.expose_canonical().to_owned()),
                Ok(n.clone())
            );
        }

        #[test]
        fn a_changed_digit_is_refused(n in valid_orgnr(), at in 0usize..10, by in 1u8..=9) {
            crate::identifiers::install();
            let mut bytes = n.into_bytes();
            bytes[at] = b'0' + (bytes[at] - b'0' + by) % 10;
            prop_assert!(parse(&String::from_utf8(bytes).unwrap()).is_err());
        }

        #[test]
        fn an_adjacent_transposition_is_refused_unless_it_swaps_0_and_9(
            n in valid_orgnr(),
            at in 0usize..9,
        ) {
            let mut bytes = n.into_bytes();
            let (a, b) = (bytes[at], bytes[at + 1]);
            prop_assume!(a != b && !matches!((a, b), (b'0', b'9') | (b'9', b'0')));
            bytes.swap(at, at + 1);
            prop_assert!(parse(&String::from_utf8(bytes).unwrap()).is_err());
        }

        #[test]
        fn errors_never_repeat_the_value(value in "[0-9-]{6,14}") {
            crate::identifiers::install();
            if let Err(e) = parse(&value) {
                prop_assert!(!e.to_string().contains(&value));
            }
        }
    }
}
