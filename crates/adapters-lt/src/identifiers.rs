//! Lithuanian identifiers: the company code (`įmonės kodas`) and the personal code
//! (`asmens kodas`).
//!
//! `imones-kodas`: exactly 9 digits, canonical as is. Many codes end in a digit computed like
//! the personal code's check digit, but not all of them do (`304656794`, a real company, does
//! not), so no check digit is enforced.
//!
//! `asmens-kodas`: 11 digits `G YYMMDD NNN C`.
//! - `G` is the century and sex: 1/2 born in the 1800s, 3/4 in the 1900s, 5/6 in the 2000s
//!   (odd male, even female). `9` marks an exceptional code whose date part may not be a
//!   date (for example when the birth date is unknown): it is accepted without a date check.
//!   0, 7 and 8 are not in use.
//! - For `G` 1 to 6, `YYMMDD` is a real calendar date, not after today.
//! - `C` is the check digit of the first ten digits: their sum with weights 1,2,3,4,5,6,7,8,9,1
//!   modulo 11; if that is 10, the sum with weights 3,4,5,6,7,8,9,1,2,3 modulo 11; if that is
//!   10 again, 0.
//!
//! Canonical form: the 11 digits.

use domain::countries::country::Country;
use domain::subjects::identifier::{
    scheme, IdentifierError, IdentifierScheme, IdentifierType, SubjectKind, WrittenShape,
};

/// Lithuania.
pub const LT: Country = Country::declare("LT", "lt");

/// `imones-kodas`.
pub const IMONES_KODAS: IdentifierType = IdentifierType::of(&ImonesKodas);
/// `asmens-kodas`.
pub const ASMENS_KODAS: IdentifierType = IdentifierType::of(&AsmensKodas);

/// Lithuania's schemes, in the order the interface documents them.
pub const SCHEMES: [IdentifierType; 2] = [IMONES_KODAS, ASMENS_KODAS];

/// Makes Lithuania's schemes known to this process (harmless twice).
pub fn install() {
    scheme::install(&SCHEMES);
}
use chrono::NaiveDate;

/// Lithuania's company codes: `imones-kodas`.
pub struct ImonesKodas;

/// Lithuania's personal codes: `asmens-kodas`.
pub struct AsmensKodas;

impl IdentifierScheme for ImonesKodas {
    fn name(&self) -> &'static str {
        "imones-kodas"
    }

    fn country(&self) -> Country {
        LT
    }

    fn kind(&self) -> SubjectKind {
        SubjectKind::Company
    }

    fn canonical(&self, value: &str, _today: NaiveDate) -> Result<String, IdentifierError> {
        imones_kodas(value)
    }

    fn format_description(&self) -> &'static str {
        "A Lithuanian company code in wire form (`lt:` and 9 digits); there is no check digit."
    }

    fn check_summary(&self) -> &'static str {
        "a Lithuanian company code (`lt:`, 9 digits) has none"
    }

    fn value_pattern(&self) -> &'static str {
        "[0-9]{9}"
    }
}

impl IdentifierScheme for AsmensKodas {
    fn name(&self) -> &'static str {
        "asmens-kodas"
    }

    fn country(&self) -> Country {
        LT
    }

    fn kind(&self) -> SubjectKind {
        SubjectKind::Person
    }

    fn canonical(&self, value: &str, today: NaiveDate) -> Result<String, IdentifierError> {
        asmens_kodas(value, today)
    }

    fn format_description(&self) -> &'static str {
        "A Lithuanian personal code in wire form (`lt:` and 11 digits): the first digit names the century (1 to 6) with a real birth date not in the future after it, or is the exceptional 9; the last digit is the mod-11 check digit."
    }

    fn value_pattern(&self) -> &'static str {
        // The first digit names the century (1 to 6) or is the exceptional 9.
        "[1-69][0-9]{10}"
    }

    fn written_shapes(&self) -> &'static [WrittenShape] {
        &ASMENS_KODAS_SHAPES
    }
}

const ASMENS_KODAS_SHAPES: [WrittenShape; 1] = [WrittenShape {
    digits: 11,
    shaped: |w| <[u8; 11]>::try_from(w).is_ok_and(|d| written_shape(&d)),
    separator_after: None,
}];

const FIRST_WEIGHTS: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1];
const SECOND_WEIGHTS: [u32; 10] = [3, 4, 5, 6, 7, 8, 9, 1, 2, 3];

/// Validates a company code and returns its canonical form.
fn imones_kodas(value: &str) -> Result<String, IdentifierError> {
    if value.len() == 9 && value.bytes().all(|b| b.is_ascii_digit()) {
        Ok(value.to_owned())
    } else {
        Err(IdentifierError::Malformed(IMONES_KODAS))
    }
}

/// Validates a personal code and returns its canonical form.
fn asmens_kodas(value: &str, today: NaiveDate) -> Result<String, IdentifierError> {
    const TY: IdentifierType = ASMENS_KODAS;
    if value.len() != 11 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(IdentifierError::Malformed(TY));
    }
    let digits: Vec<u8> = value.bytes().map(|b| b - b'0').collect();
    let century = century_of(digits[0]).ok_or(IdentifierError::Malformed(TY))?;
    if digits[10] != asmens_check_digit(&digits[..10]) {
        return Err(IdentifierError::CheckDigit(TY));
    }
    if let Some(century) = century {
        let two = |i: usize| u32::from(digits[i] * 10 + digits[i + 1]);
        // `two` is below 100, so the cast is lossless.
        let year = century + two(1) as i32;
        let born =
            NaiveDate::from_ymd_opt(year, two(3), two(5)).ok_or(IdentifierError::Date(TY))?;
        if born > today {
            return Err(IdentifierError::Date(TY));
        }
    }
    Ok(value.to_owned())
}

/// The century the first digit `G` names: `Some(Some(year))` for 1 to 6, `Some(None)` for the
/// exceptional 9 (no date), `None` for digits not in use.
fn century_of(g: u8) -> Option<Option<i32>> {
    match g {
        1 | 2 => Some(Some(1800)),
        3 | 4 => Some(Some(1900)),
        5 | 6 => Some(Some(2000)),
        9 => Some(None),
        _ => None,
    }
}

/// Whether eleven digit values are written as an asmens kodas could be, by the parser's own
/// rules before the calendar and today are asked: a century digit in use and, with a date, a
/// month 1 to 12 and a day 1 to 31; the exceptional `9`, which has no date to judge, by its
/// check digit. The wider net the shape rule casts (`shape`); every code [`asmens_kodas`]
/// accepts passes.
fn written_shape(digits: &[u8; 11]) -> bool {
    let two = |i: usize| u32::from(digits[i] * 10 + digits[i + 1]);
    match century_of(digits[0]) {
        Some(Some(_)) => (1..=12).contains(&two(3)) && (1..=31).contains(&two(5)),
        Some(None) => digits[10] == asmens_check_digit(&digits[..10]),
        None => false,
    }
}

/// The weighted sum of `first_ten` modulo 11.
fn remainder(first_ten: &[u8], weights: &[u32; 10]) -> u32 {
    first_ten
        .iter()
        .zip(weights)
        .map(|(&d, &w)| u32::from(d) * w)
        .sum::<u32>()
        % 11
}

/// The check digit of the first ten digits of an asmens kodas (values `0..=9`).
pub fn asmens_check_digit(first_ten: &[u8]) -> u8 {
    let first = remainder(first_ten, &FIRST_WEIGHTS);
    let check = if first != 10 {
        first
    } else {
        match remainder(first_ten, &SECOND_WEIGHTS) {
            10 => 0,
            second => second,
        }
    };
    // Below 10 in every branch.
    check as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike;
    use domain::subjects::identifier::{Identifier, IdentifierError, IdentifierType};
    use proptest::prelude::*;

    const AK: IdentifierType = ASMENS_KODAS;
    const IK: IdentifierType = IMONES_KODAS;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn parse(ty: IdentifierType, wire: &str) -> Result<String, IdentifierError> {
        Identifier::parse(ty, wire, today()).map(|i| i.expose_canonical().to_owned())
    }

    fn values(s: &str) -> Vec<u8> {
        s.bytes().map(|b| b - b'0').collect()
    }

    fn with_check(ten: &str) -> String {
        format!("{ten}{}", asmens_check_digit(&values(ten)))
    }

    #[test]
    fn real_company_codes_are_valid() {
        crate::install_schemes();
        for code in ["110443493", "304656794", "121215587"] {
            assert_eq!(parse(IK, &format!("lt:{code}")).as_deref(), Ok(code));
            let company = Identifier::parse_company(&format!("lt:{code}")).unwrap();
            assert_eq!(company.id_type(), IK);
            assert_eq!(company.expose_wire(), format!("lt:{code}"));
        }
    }

    #[test]
    fn company_codes_are_exactly_nine_digits() {
        crate::install_schemes();
        for wire in [
            "lt:11044349",
            "lt:1104434930",
            "lt:11044349a",
            "lt:110 443 493",
            "lt:",
        ] {
            assert_eq!(
                parse(IK, wire),
                Err(IdentifierError::Malformed(IK)),
                "{wire}"
            );
        }
    }

    #[test]
    fn lithuanian_types_need_the_lt_prefix() {
        crate::install_schemes();
        assert_eq!(
            parse(IK, "110443493"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: IK,
                prefix: "se"
            })
        );
        assert_eq!(
            parse(AK, "se:33309240064"),
            Err(IdentifierError::TypeCountryMismatch {
                ty: AK,
                prefix: "se"
            })
        );
    }

    #[test]
    fn asmens_kodas_examples() {
        crate::install_schemes();
        // Born 1933-09-24 (G=3: a man born in the 1900s).
        assert_eq!(parse(AK, "lt:33309240064").as_deref(), Ok("33309240064"));
        assert_eq!(
            parse(AK, "lt:33309240164"),
            Err(IdentifierError::CheckDigit(AK))
        );
        // The brief's second example has the wrong check digit: born 1990-01-01 with
        // serial 000, the first remainder is 33 % 11 = 0.
        assert_eq!(
            parse(AK, "lt:39001010007"),
            Err(IdentifierError::CheckDigit(AK))
        );
        assert_eq!(parse(AK, "lt:39001010000").as_deref(), Ok("39001010000"));
    }

    #[test]
    fn asmens_kodas_check_digit_falls_back_to_the_second_weights() {
        crate::install_schemes();
        let first_ten = (0..100_000_000u32)
            .map(|n| values(&format!("3{n:08}0")))
            .find(|d| remainder(d, &FIRST_WEIGHTS) == 10 && remainder(d, &SECOND_WEIGHTS) != 10)
            .expect("some ten digits have a first remainder of 10");
        let second = remainder(&first_ten, &SECOND_WEIGHTS);
        assert_eq!(u32::from(asmens_check_digit(&first_ten)), second);
    }

    #[test]
    fn asmens_kodas_check_digit_is_zero_when_both_remainders_are_ten() {
        crate::install_schemes();
        let both_ten = (0..100_000_000u32)
            .map(|n| values(&format!("3{n:08}0")))
            .find(|d| remainder(d, &FIRST_WEIGHTS) == 10 && remainder(d, &SECOND_WEIGHTS) == 10)
            .expect("some ten digits have both remainders 10");
        assert_eq!(asmens_check_digit(&both_ten), 0);
    }

    #[test]
    fn asmens_kodas_century_digit() {
        crate::install_schemes();
        // The same date and serial in each century; only 1..=6 and 9 are in use.
        for (g, ok) in [
            ('0', false),
            ('1', true),
            ('2', true),
            ('3', true),
            ('4', true),
            ('5', true),
            ('6', true),
            ('7', false),
            ('8', false),
            ('9', true),
        ] {
            let code = with_check(&format!("{g}000101123"));
            assert_eq!(parse(AK, &format!("lt:{code}")).is_ok(), ok, "{code}");
            if !ok {
                assert_eq!(
                    parse(AK, &format!("lt:{code}")),
                    Err(IdentifierError::Malformed(AK))
                );
            }
        }
    }

    #[test]
    fn asmens_kodas_dates_are_real_and_not_in_the_future() {
        crate::install_schemes();
        // 29 February 2000 exists, 29 February 1900 does not.
        assert!(parse(AK, &format!("lt:{}", with_check("6000229123"))).is_ok());
        assert_eq!(
            parse(AK, &format!("lt:{}", with_check("4000229123"))),
            Err(IdentifierError::Date(AK))
        );
        assert_eq!(
            parse(AK, &format!("lt:{}", with_check("3811301123"))),
            Err(IdentifierError::Date(AK))
        );
        assert_eq!(
            parse(AK, &format!("lt:{}", with_check("3810000123"))),
            Err(IdentifierError::Date(AK))
        );
        assert_eq!(
            parse(AK, &format!("lt:{}", with_check("5261122123"))),
            Err(IdentifierError::Date(AK))
        );
        assert!(parse(AK, &format!("lt:{}", with_check("5261121123"))).is_ok());
    }

    #[test]
    fn asmens_kodas_nine_skips_the_date_but_not_the_check_digit() {
        crate::install_schemes();
        let code = with_check("9999999123");
        assert!(parse(AK, &format!("lt:{code}")).is_ok());
        let wrong = format!(
            "{}{}",
            &code[..10],
            (asmens_check_digit(&values(&code[..10])) + 1) % 10
        );
        assert_eq!(
            parse(AK, &format!("lt:{wrong}")),
            Err(IdentifierError::CheckDigit(AK))
        );
    }

    #[test]
    fn asmens_kodas_check_digit_misses_some_single_digit_changes() {
        crate::install_schemes();
        // Documents why `a_changed_digit_is_refused` below asserts only a narrower property:
        // when a change moves the first remainder to or from 10, the second weights can give
        // the same check digit.
        let missed = (0..1_000_000u32).find_map(|n| {
            let code = with_check(&format!("39001{n:05}"));
            (0..10).find_map(|at| {
                (1..=9u8).find_map(|by| {
                    let mut d = values(&code);
                    d[at] = (d[at] + by) % 10;
                    (asmens_check_digit(&d[..10]) == d[10]).then_some(())
                })
            })
        });
        assert!(missed.is_some());
    }

    fn valid_asmens() -> impl Strategy<Value = String> {
        let first = NaiveDate::from_ymd_opt(1800, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (
            0..=span,
            any::<bool>(),
            0u32..1000,
            0u32..1_000_000,
            0u8..20,
        )
            .prop_map(move |(offset, female, serial, exceptional, pick)| {
                if pick == 0 {
                    return with_check(&format!("9{exceptional:06}{serial:03}"));
                }
                let born = first + chrono::Duration::days(offset);
                let g = match born.year() {
                    ..=1899 => 1,
                    1900..=1999 => 3,
                    _ => 5,
                } + u8::from(female);
                with_check(&format!(
                    "{g}{:02}{:02}{:02}{serial:03}",
                    born.year() % 100,
                    born.month(),
                    born.day()
                ))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn valid_asmens_kodas_parse_and_round_trip(code in valid_asmens()) {
            crate::install_schemes();
            prop_assert_eq!(parse(AK, &format!("lt:{code}")), Ok(code.clone()));
            prop_assert_eq!(parse(AK, &format!(" lt:{code}\t")), Ok(code.clone()));
        }

        #[test]
        fn a_changed_check_digit_is_refused(code in valid_asmens(), by in 1u8..=9) {
            crate::install_schemes();
            let mut d = values(&code);
            d[10] = (d[10] + by) % 10;
            let changed: String = d.iter().map(|&x| char::from(b'0' + x)).collect();
            prop_assert_eq!(parse(AK, &format!("lt:{changed}")), Err(IdentifierError::CheckDigit(AK)));
        }

        #[test]
        fn a_changed_digit_is_refused(code in valid_asmens(), at in 0usize..10, by in 1u8..=9) {
            crate::install_schemes();
            // Guaranteed when neither number needs the second weights: 11 is prime and both
            // the weight and the change are 1..=9, so the first remainder changes.
            let original = values(&code);
            let mut d = original.clone();
            d[at] = (d[at] + by) % 10;
            prop_assume!(remainder(&original[..10], &FIRST_WEIGHTS) != 10);
            prop_assume!(remainder(&d[..10], &FIRST_WEIGHTS) != 10);
            let changed: String = d.iter().map(|&x| char::from(b'0' + x)).collect();
            let wire = format!("lt:{changed}");
            prop_assert!(parse(AK, &wire).is_err());
        }

        #[test]
        fn an_adjacent_transposition_is_refused(code in valid_asmens(), at in 0usize..9) {
            crate::install_schemes();
            // Adjacent first weights differ by 1 (or by 8 for the last pair), never by a
            // multiple of 11: guaranteed under the same condition as above.
            let original = values(&code);
            prop_assume!(original[at] != original[at + 1]);
            let mut d = original.clone();
            d.swap(at, at + 1);
            prop_assume!(remainder(&original[..10], &FIRST_WEIGHTS) != 10);
            prop_assume!(remainder(&d[..10], &FIRST_WEIGHTS) != 10);
            let changed: String = d.iter().map(|&x| char::from(b'0' + x)).collect();
            let wire = format!("lt:{changed}");
            prop_assert!(parse(AK, &wire).is_err());
        }

        #[test]
        fn any_nine_digits_are_a_company_code(code in "[0-9]{9}") {
            crate::install_schemes();
            prop_assert_eq!(parse(IK, &format!("lt:{code}")), Ok(code.clone()));
            prop_assert_eq!(
                Identifier::parse_company(&format!("lt:{code}"))
                    .map(|i| i.expose_canonical().to_owned()),
                Ok(code.clone())
            );
        }

        #[test]
        fn errors_never_repeat_the_value(value in "[0-9]{6,14}") {
            crate::install_schemes();
            for ty in [AK, IK] {
                if let Err(e) = parse(ty, &format!("lt:{value}")) {
                    prop_assert!(!e.to_string().contains(&value));
                }
            }
        }
    }
}
