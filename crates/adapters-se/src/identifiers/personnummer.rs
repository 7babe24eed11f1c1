//! Swedish personal identity numbers (`personnummer`, 18 § folkbokföringslagen) and
//! coordination numbers (`samordningsnummer`, 18 a §).
//!
//! Accepted values (after the wire prefix is removed):
//!
//! | form | example | century |
//! |---|---|---|
//! | `YYMMDDNNNC` | `8112199289` | as with `-` |
//! | `YYMMDD-NNNC` | `811219-9289` | the latest century whose birth date is not after today |
//! | `YYMMDD+NNNC` | `151218+9877` | the latest year at least 100 years before today's year |
//! | `YYYYMMDDNNNC` | `198112199289` | explicit |
//! | `YYYYMMDD-NNNC` | `19811219-9289` | explicit |
//! | `YYYYMMDD+NNNC` | `19151218+9877` | explicit; accepted only if the birth year is at least 100 years before today's year |
//!
//! The `+` follows the law: the hyphen "is replaced by a plus sign in the year a person turns
//! 100", so `+` means *born in or before the calendar year `today.year - 100`*, not "has had the
//! 100th birthday". A `-` (or no separator) is read leniently as the latest century that does not
//! put the birth date after today (a person who turns 100 later this year and is still written
//! with `-` is understood).
//!
//! The last digit is the Luhn check digit of the ten-digit form `YYMMDDNNN`; the birth number
//! `NNN` is `001..=999`. The birth date is a real calendar date, not after today and not
//! before 1800 (the century digits Skatteverket uses are 18, 19 and 20).
//!
//! A samordningsnummer has the day of birth plus 60 (`61..=91`). Skatteverket also issues them
//! with an unknown month `00` or an unknown day `60` (its official test numbers contain both),
//! so those are accepted for samordningsnummer only; an unknown part counts as its earliest
//! value (month 1, day 1) when comparing with today. The check digit is computed over the
//! number as written (with the +60 day).
//!
//! Canonical form: 12 digits, `YYYYMMDDNNNC` (the day as written, i.e. +60 for
//! samordningsnummer).

use super::luhn;
use chrono::{Datelike, NaiveDate};
use domain::countries::country::Country;
use domain::subjects::identifier::{
    IdentifierError, IdentifierScheme, IdentifierType, SubjectKind, WrittenShape,
};

/// The earliest birth year accepted (Skatteverket's century digits are 18, 19 and 20).
const EARLIEST_YEAR: i32 = 1800;

/// Sweden's personal identity numbers (`coordination: false`) or coordination numbers.
pub struct SwedishPersonalNumber {
    coordination: bool,
}

/// `personnummer`.
pub const PERSONNUMMER: SwedishPersonalNumber = SwedishPersonalNumber {
    coordination: false,
};

/// `samordningsnummer`.
pub const SAMORDNINGSNUMMER: SwedishPersonalNumber = SwedishPersonalNumber { coordination: true };

impl SwedishPersonalNumber {
    fn ty(&self) -> IdentifierType {
        if self.coordination {
            crate::identifiers::SAMORDNINGSNUMMER
        } else {
            crate::identifiers::PERSONNUMMER
        }
    }
}

impl IdentifierScheme for SwedishPersonalNumber {
    fn name(&self) -> &'static str {
        if self.coordination {
            "samordningsnummer"
        } else {
            "personnummer"
        }
    }

    fn country(&self) -> Country {
        Country::Se
    }

    fn kind(&self) -> SubjectKind {
        SubjectKind::Person
    }

    fn canonical(&self, value: &str, today: NaiveDate) -> Result<String, IdentifierError> {
        canonical(self.coordination, value, today)
    }

    fn format_description(&self) -> &'static str {
        if self.coordination {
            "A Swedish coordination number in wire form: as `personnummer`, with 60 added to the day (day 60 for an unknown day; month 00 for an unknown month)."
        } else {
            "A Swedish personal identity number in wire form: a real calendar date not in the future (a ten-digit number's century read from today and its separator, `+` for 100 years or more) and a check digit that passes the Luhn check."
        }
    }

    fn value_pattern(&self) -> &'static str {
        if self.coordination {
            // The day plus 60 (60 for an unknown day), a month 00 (unknown) to 12.
            "(?:[0-9]{2})?[0-9]{2}(?:0[0-9]|1[0-2])(?:6[0-9]|[78][0-9]|9[01])[-+]?(?:00[1-9]|0[1-9][0-9]|[1-9][0-9]{2})[0-9]"
        } else {
            // A month 01 to 12 and a day 01 to 31; the birth number (the three digits before
            // the check digit) is not 000.
            "(?:[0-9]{2})?[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[-+]?(?:00[1-9]|0[1-9][0-9]|[1-9][0-9]{2})[0-9]"
        }
    }

    fn written_shapes(&self) -> &'static [WrittenShape] {
        if self.coordination {
            &SAMORDNINGSNUMMER_SHAPES
        } else {
            &PERSONNUMMER_SHAPES
        }
    }
}

const PERSONNUMMER_SHAPES: [WrittenShape; 2] = [
    WrittenShape {
        digits: 12,
        shaped: |w| twelve_written_as(false, w),
        separator_after: None,
    },
    WrittenShape {
        digits: 10,
        shaped: |w| ten_written_as(false, w),
        separator_after: Some(6),
    },
];

const SAMORDNINGSNUMMER_SHAPES: [WrittenShape; 2] = [
    WrittenShape {
        digits: 12,
        shaped: |w| twelve_written_as(true, w),
        separator_after: None,
    },
    WrittenShape {
        digits: 10,
        shaped: |w| ten_written_as(true, w),
        separator_after: Some(6),
    },
];

/// The separator written before the last four digits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Separator {
    None,
    Minus,
    Plus,
}

/// Validates a personnummer or samordningsnummer (`coordination` says which) and returns its
/// canonical 12-digit form.
fn canonical(coordination: bool, value: &str, today: NaiveDate) -> Result<String, IdentifierError> {
    let ty = if coordination {
        SAMORDNINGSNUMMER.ty()
    } else {
        PERSONNUMMER.ty()
    };
    let malformed = IdentifierError::Malformed(ty);
    let bad_date = IdentifierError::Date(ty);

    let (century, ten, separator) = split(value).ok_or(malformed.clone())?;
    let yy = i32::from(ten[0] * 10 + ten[1]);
    let (mm, dd) = month_and_day(&ten);

    // The day tells a personnummer (1..=31) from a samordningsnummer (61..=91, or 60 when
    // the day is unknown).
    let day = match (
        written_day(coordination, dd),
        written_day(!coordination, dd),
    ) {
        (Some(day), _) => day,
        (None, Some(_)) => {
            let shape = if coordination {
                PERSONNUMMER.ty()
            } else {
                SAMORDNINGSNUMMER.ty()
            };
            return Err(IdentifierError::WrongKind { ty, shape });
        }
        (None, None) => return Err(bad_date),
    };
    let month = written_month(coordination, mm).ok_or(bad_date.clone())?;
    if ten[6..9] == [0, 0, 0] {
        return Err(malformed);
    }
    if !luhn::is_valid(&ten) {
        return Err(IdentifierError::CheckDigit(ty));
    }

    let this_year = today.year();
    let year = match (century, separator) {
        (Some(century), separator) => {
            let year = century * 100 + yy;
            if separator == Separator::Plus && year > this_year - 100 {
                return Err(malformed);
            }
            year
        }
        (None, Separator::Plus) => latest_year_ending_in(yy, this_year - 100),
        (None, Separator::None | Separator::Minus) => {
            let recent = latest_year_ending_in(yy, this_year);
            // The latest of two centuries that gives a real date not after today.
            [recent, recent - 100]
                .into_iter()
                .find(|&y| earliest_birth_date(y, month, day).is_some_and(|d| d <= today))
                .unwrap_or(recent)
        }
    };
    let earliest = earliest_birth_date(year, month, day).ok_or(bad_date.clone())?;
    if earliest > today || year < EARLIEST_YEAR {
        return Err(bad_date);
    }

    let mut canonical = format!("{:02}", year / 100);
    canonical.extend(ten.iter().map(|&d| char::from(b'0' + d)));
    Ok(canonical)
}

/// The month and the day as written (`MM` and `DD` of `YYMMDDNNNC`).
fn month_and_day(ten: &[u8]) -> (u32, u32) {
    (
        u32::from(ten[2] * 10 + ten[3]),
        u32::from(ten[4] * 10 + ten[5]),
    )
}

/// The day a number may be written with (a coordination number if `coordination`):
/// `Some(Some(day))` for a known day, `Some(None)` for a coordination number's unknown day
/// (`60`), `None` if no number of that kind is written so. The one rule the parser (above) and
/// the shape rule ([`ten_written_as`]) both read.
fn written_day(coordination: bool, dd: u32) -> Option<Option<u32>> {
    match (coordination, dd) {
        (false, 1..=31) => Some(Some(dd)),
        (true, 61..=91) => Some(Some(dd - 60)),
        (true, 60) => Some(None),
        _ => None,
    }
}

/// The month a number may be written with (`Some(None)`: a coordination number's unknown
/// month `00`).
fn written_month(coordination: bool, mm: u32) -> Option<Option<u32>> {
    match (coordination, mm) {
        (_, 1..=12) => Some(Some(mm)),
        (true, 0) => Some(None),
        _ => None,
    }
}

/// The centuries a twelve-digit form may name: from the earliest accepted birth year to the
/// next century (a number is never born after today, so the parser's range is narrower).
const WRITTEN_CENTURIES: std::ops::RangeInclusive<u32> = 18..=21;

/// Whether the ten digit values `YYMMDDNNNC` are written as a personnummer (or, if
/// `coordination`, a samordningsnummer) could be, by the parser's own month and day rules,
/// before the check digit, the calendar and today are asked: the wider net the shape rule
/// casts. Every number [`canonical`] accepts passes.
fn ten_written_as(coordination: bool, ten: &[u8]) -> bool {
    if ten.len() != 10 {
        return false;
    }
    let (mm, dd) = month_and_day(ten);
    written_day(coordination, dd).is_some() && written_month(coordination, mm).is_some()
}

/// As [`ten_written_as`], for the twelve-digit form whose first two digits are a century.
fn twelve_written_as(coordination: bool, twelve: &[u8]) -> bool {
    twelve.len() == 12
        && WRITTEN_CENTURIES.contains(&(u32::from(twelve[0]) * 10 + u32::from(twelve[1])))
        && ten_written_as(coordination, &twelve[2..])
}

/// Splits the accepted shapes into the century (12-digit forms), the ten digits
/// `YYMMDDNNNC` as values, and the separator. `None` if the shape is not accepted.
fn split(value: &str) -> Option<(Option<i32>, [u8; 10], Separator)> {
    let bytes = value.as_bytes();
    let (body, separator): (Vec<u8>, Separator) = match bytes.len() {
        10 | 12 => (bytes.to_vec(), Separator::None),
        11 | 13 => {
            let at = bytes.len() - 5;
            let separator = match bytes[at] {
                b'-' => Separator::Minus,
                b'+' => Separator::Plus,
                _ => return None,
            };
            let mut body = bytes[..at].to_vec();
            body.extend_from_slice(&bytes[at + 1..]);
            (body, separator)
        }
        _ => return None,
    };
    if !body.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let digits: Vec<u8> = body.iter().map(|b| b - b'0').collect();
    let (century, rest) = if digits.len() == 12 {
        let (c, rest) = digits.split_at(2);
        (Some(i32::from(c[0] * 10 + c[1])), rest)
    } else {
        (None, &digits[..])
    };
    let ten: [u8; 10] = rest.try_into().ok()?;
    Some((century, ten, separator))
}

/// The latest year not after `max` whose last two digits are `yy`.
fn latest_year_ending_in(yy: i32, max: i32) -> i32 {
    max - (max - yy).rem_euclid(100)
}

/// The birth date, or its earliest possible value when the month or the day is unknown
/// (`None`). `None` if the known parts do not make a real date in `year`.
fn earliest_birth_date(year: i32, month: Option<u32>, day: Option<u32>) -> Option<NaiveDate> {
    match (month, day) {
        (Some(m), Some(d)) => NaiveDate::from_ymd_opt(year, m, d),
        (Some(m), None) => NaiveDate::from_ymd_opt(year, m, 1),
        // The day is at most 31 here, which January always has.
        (None, Some(d)) => NaiveDate::from_ymd_opt(year, 1, d),
        (None, None) => NaiveDate::from_ymd_opt(year, 1, 1),
    }
}

/// The ten-digit form of a canonical number, with the separator the law prescribes at
/// `today` (`+` from the year the person turns 100). For tests and the oracle.
#[cfg(test)]
pub(super) fn ten_digit_form(canonical: &str, today: NaiveDate) -> String {
    let year: i32 = canonical[..4].parse().expect("canonical year");
    let separator = if year <= today.year() - 100 { '+' } else { '-' };
    format!("{}{separator}{}", &canonical[2..8], &canonical[8..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::subjects::identifier::{Identifier, IdentifierError, IdentifierType};
    use proptest::prelude::*;

    const PNR: IdentifierType = crate::identifiers::PERSONNUMMER;
    const SAMNR: IdentifierType = crate::identifiers::SAMORDNINGSNUMMER;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn parse(ty: IdentifierType, wire: &str) -> Result<String, IdentifierError> {
        crate::identifiers::install();
        Identifier::parse(ty, wire, today()).map(|i| i.expose_canonical().to_owned())
    }

    fn values(s: &str) -> Vec<u8> {
        s.bytes().map(|b| b - b'0').collect()
    }

    /// Completes `YYYYMMDDNNN` with its check digit (computed over the last nine digits).
    fn with_check(eleven: &str) -> String {
        let c = luhn::check_digit(&values(&eleven[2..]));
        format!("{eleven}{c}")
    }

    #[test]
    fn skatteverket_worked_example_in_every_form() {
        crate::identifiers::install();
        for wire in [
            "8112199289",
            "811219-9289",
            "198112199289",
            "19811219-9289",
            "se:811219-9289",
            "  198112199289 ",
        ] {
            assert_eq!(parse(PNR, wire).as_deref(), Ok("198112199289"), "{wire}");
        }
    }

    #[test]
    fn wrong_check_digit_is_refused() {
        crate::identifiers::install();
        assert_eq!(
            parse(PNR, "8112189875"),
            Err(IdentifierError::CheckDigit(PNR))
        );
        assert_eq!(
            parse(PNR, "198112199288"),
            Err(IdentifierError::CheckDigit(PNR))
        );
    }

    #[test]
    fn minus_or_no_separator_means_the_latest_century_not_in_the_future() {
        crate::identifiers::install();
        let born_2001 = with_check("20010101123");
        let ten = &born_2001[2..];
        assert_eq!(parse(PNR, ten).unwrap(), born_2001);
        assert_eq!(
            parse(PNR, &format!("{}-{}", &ten[..6], &ten[6..])).unwrap(),
            born_2001
        );
        // 27 is after 2026, so the latest century not in the future is the 1900s.
        let born_1927 = with_check("19270101123");
        assert_eq!(parse(PNR, &born_1927[2..]).unwrap(), born_1927);
        // Born 1926-12-24: reading the number in 2026 would be in the future.
        let born_1926 = with_check("19261224123");
        assert_eq!(parse(PNR, &born_1926[2..]).unwrap(), born_1926);
        // Born today: not in the future.
        let born_today = with_check("20261121123");
        assert_eq!(parse(PNR, &born_today[2..]).unwrap(), born_today);
    }

    #[test]
    fn plus_separator_means_a_hundred_years_or_older() {
        crate::identifiers::install();
        let born_1920 = with_check("19200615123");
        let plus = format!("{}+{}", &born_1920[2..8], &born_1920[8..]);
        assert_eq!(parse(PNR, &plus).unwrap(), born_1920);
        // The same digits with `-` are a six-year-old.
        let minus = plus.replace('+', "-");
        assert_eq!(
            parse(PNR, &minus).unwrap(),
            format!("20{}", &born_1920[2..])
        );
        // `+` with a year that would be under 100 goes back one more century.
        let born_1850 = with_check("18500615123");
        let plus = format!("{}+{}", &born_1850[2..8], &born_1850[8..]);
        assert_eq!(parse(PNR, &plus).unwrap(), born_1850);
    }

    #[test]
    fn plus_separator_starts_in_the_calendar_year_of_the_hundredth_birthday() {
        crate::identifiers::install();
        // Born 1926-12-24: turns 100 in 2026 (after `today`), and the law writes `+` all year.
        let born = with_check("19261224123");
        let plus = format!("{}+{}", &born[2..8], &born[8..]);
        assert_eq!(parse(PNR, &plus).unwrap(), born);
        assert_eq!(ten_digit_form(&born, today()), plus);
    }

    #[test]
    fn twelve_digit_form_accepts_plus_only_from_the_hundredth_year() {
        crate::identifiers::install();
        let old = with_check("19260101123");
        let plus = format!("{}+{}", &old[..8], &old[8..]);
        assert_eq!(parse(PNR, &plus).unwrap(), old);
        let young = with_check("19270101123");
        let plus = format!("{}+{}", &young[..8], &young[8..]);
        assert_eq!(parse(PNR, &plus), Err(IdentifierError::Malformed(PNR)));
        // `-` is accepted whatever the age.
        let minus = format!("{}-{}", &old[..8], &old[8..]);
        assert_eq!(parse(PNR, &minus).unwrap(), old);
    }

    #[test]
    fn leap_days_follow_the_gregorian_calendar() {
        crate::identifiers::install();
        assert!(parse(PNR, &with_check("20000229123")).is_ok());
        assert_eq!(
            parse(PNR, &with_check("19000229123")),
            Err(IdentifierError::Date(PNR))
        );
        assert!(parse(PNR, &with_check("20240229123")).is_ok());
        assert_eq!(
            parse(PNR, &with_check("20230229123")),
            Err(IdentifierError::Date(PNR))
        );
        // Ten-digit `000229`: with `-` it is 2000 (leap), with `+` 1900 (not leap).
        let leap = with_check("20000229123");
        assert_eq!(parse(PNR, &leap[2..]).unwrap(), leap);
        let plus = format!("{}+{}", &leap[2..8], &leap[8..]);
        assert_eq!(parse(PNR, &plus), Err(IdentifierError::Date(PNR)));
    }

    #[test]
    fn impossible_dates_are_refused() {
        crate::identifiers::install();
        for eleven in [
            "19810001123", // month 00
            "19811300123", // month 13
            "19811200123", // day 00
            "19810431123", // 31 April
            "19811232123", // day 32
        ] {
            assert_eq!(
                parse(PNR, &with_check(eleven)),
                Err(IdentifierError::Date(PNR)),
                "{eleven}"
            );
        }
    }

    #[test]
    fn birth_dates_in_the_future_are_refused() {
        crate::identifiers::install();
        assert_eq!(
            parse(PNR, &with_check("20261122123")),
            Err(IdentifierError::Date(PNR))
        );
        assert_eq!(
            parse(PNR, &with_check("20300101123")),
            Err(IdentifierError::Date(PNR))
        );
    }

    #[test]
    fn birth_years_before_1800_are_refused() {
        crate::identifiers::install();
        assert_eq!(
            parse(PNR, &with_check("17990101123")),
            Err(IdentifierError::Date(PNR))
        );
        assert!(parse(PNR, &with_check("18000101123")).is_ok());
    }

    #[test]
    fn birth_number_000_is_refused() {
        crate::identifiers::install();
        assert_eq!(
            parse(PNR, &with_check("19811218000")),
            Err(IdentifierError::Malformed(PNR))
        );
        assert_eq!(
            parse(SAMNR, &with_check("19811278000")),
            Err(IdentifierError::Malformed(SAMNR))
        );
    }

    #[test]
    fn samordningsnummer_day_is_plus_sixty() {
        crate::identifiers::install();
        let samnr = with_check("19811278123");
        assert_eq!(parse(SAMNR, &samnr).unwrap(), samnr);
        assert_eq!(parse(SAMNR, &samnr[2..]).unwrap(), samnr);
        // The real day is 18 December, so no 31 November (91 - 60) exists.
        assert_eq!(
            parse(SAMNR, &with_check("19811191123")),
            Err(IdentifierError::Date(SAMNR))
        );
        // Leap days: 89 - 60 = 29 February.
        assert!(parse(SAMNR, &with_check("20000289123")).is_ok());
        assert_eq!(
            parse(SAMNR, &with_check("19000289123")),
            Err(IdentifierError::Date(SAMNR))
        );
        // Days 32 + 60 and beyond do not exist.
        assert_eq!(
            parse(SAMNR, &with_check("19811292123")),
            Err(IdentifierError::Date(SAMNR))
        );
    }

    #[test]
    fn samordningsnummer_may_have_an_unknown_month_or_day() {
        crate::identifiers::install();
        for eleven in ["19140060123", "19140068123", "19141160123"] {
            let n = with_check(eleven);
            assert_eq!(parse(SAMNR, &n).unwrap(), n, "{eleven}");
        }
        // Not for a personnummer.
        assert_eq!(
            parse(PNR, &with_check("19140018123")),
            Err(IdentifierError::Date(PNR))
        );
        assert_eq!(
            parse(PNR, &with_check("19141160123")),
            Err(IdentifierError::WrongKind {
                ty: PNR,
                shape: SAMNR
            })
        );
    }

    #[test]
    fn the_day_tells_personnummer_and_samordningsnummer_apart() {
        crate::identifiers::install();
        let samnr = with_check("19811278123");
        assert_eq!(
            parse(PNR, &samnr),
            Err(IdentifierError::WrongKind {
                ty: PNR,
                shape: SAMNR
            })
        );
        let pnr = with_check("19811218123");
        assert_eq!(
            parse(SAMNR, &pnr),
            Err(IdentifierError::WrongKind {
                ty: SAMNR,
                shape: PNR
            })
        );
    }

    #[test]
    fn misplaced_separators_and_other_characters_are_refused() {
        crate::identifiers::install();
        for wire in [
            "81121-89876",
            "8112-189876",
            "811218--9876",
            "811218 9876",
            "811218/9876",
            "19811218+-9876",
            "1981-12-18-9876",
            "8112199289 0",
            "81121992890",
            "811218987",
            "1981121992891",
            "８１１２１８９８７６",
        ] {
            assert_eq!(
                parse(PNR, wire),
                Err(IdentifierError::Malformed(PNR)),
                "{wire}"
            );
        }
    }

    /// Skatteverket's official test numbers all parse and are already canonical.
    #[test]
    fn every_skatteverket_test_number_parses() {
        crate::identifiers::install();
        for (file, ty, expected_count) in [
            ("testpersonnummer.csv", PNR, 21_728),
            ("testsamordningsnummer.csv", SAMNR, 2_240),
        ] {
            let path = format!(
                "{}/testdata/skatteverket/{file}",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!("cannot read Skatteverket's test numbers at {path}: {e}")
            });
            let mut lines = text.lines();
            assert_eq!(
                lines.next().map(str::trim),
                Some(file.trim_end_matches(".csv")),
                "unexpected header in {path}"
            );
            let mut count = 0;
            for (i, line) in lines.enumerate() {
                let number = line.trim();
                if number.is_empty() {
                    continue;
                }
                count += 1;
                match parse(ty, number) {
                    Ok(canonical) => assert_eq!(canonical, number, "{file} line {}", i + 2),
                    Err(e) => panic!("{file} line {}: {number}: {e}", i + 2),
                }
                // The ten-digit form with the law's separator reads back the same.
                let ten = ten_digit_form(number, today());
                assert_eq!(
                    parse(ty, &ten).as_deref(),
                    Ok(number),
                    "{file} line {}",
                    i + 2
                );
            }
            assert_eq!(count, expected_count, "{path}");
        }
    }

    // ---- Property tests ------------------------------------------------------------------

    /// A valid canonical number of `ty` born between 1827-01-01 (so that the ten-digit form
    /// with `+` can still name the century) and `today`.
    fn valid_number(ty: IdentifierType) -> impl Strategy<Value = String> {
        let first = NaiveDate::from_ymd_opt(1827, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (0..=span, 1u32..=999, 0u8..20).prop_map(move |(offset, serial, unknown)| {
            let born = first + chrono::Duration::days(offset);
            let (month, mut day) = (born.month(), born.day());
            let mut month_text = format!("{month:02}");
            if ty == crate::identifiers::SAMORDNINGSNUMMER {
                day += 60;
                // Now and then an unknown month or day.
                if unknown == 0 {
                    month_text = "00".to_owned();
                } else if unknown == 1 {
                    day = 60;
                }
            }
            with_check(&format!(
                "{:04}{month_text}{day:02}{serial:03}",
                born.year()
            ))
        })
    }

    fn flip_digit(number: &str, at: usize, by: u8) -> String {
        let mut bytes = number.as_bytes().to_vec();
        bytes[at] = b'0' + (bytes[at] - b'0' + by) % 10;
        String::from_utf8(bytes).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn valid_numbers_parse_and_round_trip(
            (ty, number) in prop_oneof![
                valid_number(PNR).prop_map(|n| (PNR, n)),
                valid_number(SAMNR).prop_map(|n| (SAMNR, n)),
            ],
        ) {
            let canonical = parse(ty, &number).expect("a generated valid number parses");
            prop_assert_eq!(&canonical, &number);
            // Stable: the canonical form parses to itself, with or without the prefix.
            prop_assert_eq!(parse(ty, &format!("se:{canonical}")), Ok(canonical.clone()));
            // Twelve digits with `-`.
            let minus = format!("{}-{}", &number[..8], &number[8..]);
            prop_assert_eq!(parse(ty, &minus), Ok(canonical.clone()));
            // Ten digits with the separator the law prescribes.
            let ten = ten_digit_form(&number, today());
            prop_assert_eq!(parse(ty, &ten), Ok(canonical.clone()));
            if ten.contains('-') {
                prop_assert_eq!(parse(ty, &ten.replace('-', "")), Ok(canonical.clone()));
            }
            // The other type refuses it.
            let other = if ty == PNR { SAMNR } else { PNR };
            prop_assert!(parse(other, &number).is_err());
        }

        #[test]
        fn a_changed_digit_is_refused(
            number in prop_oneof![valid_number(PNR), valid_number(SAMNR)],
            at in 2usize..12,
            by in 1u8..=9,
        ) {
            // Luhn catches every single-digit change of the ten digits it covers (the
            // century digits are not covered: see `a_changed_century_may_be_another_number`).
            let corrupted = flip_digit(&number, at, by);
            prop_assert!(parse(PNR, &corrupted).is_err());
            prop_assert!(parse(SAMNR, &corrupted).is_err());
        }

        #[test]
        fn an_adjacent_transposition_is_refused_unless_it_swaps_0_and_9(
            number in prop_oneof![valid_number(PNR), valid_number(SAMNR)],
            at in 2usize..11,
        ) {
            let bytes = number.as_bytes();
            let (a, b) = (bytes[at], bytes[at + 1]);
            prop_assume!(a != b);
            // Luhn misses exactly the transpositions 09 <-> 90.
            prop_assume!(!matches!((a, b), (b'0', b'9') | (b'9', b'0')));
            let mut swapped = bytes.to_vec();
            swapped.swap(at, at + 1);
            let swapped = String::from_utf8(swapped).unwrap();
            prop_assert!(parse(PNR, &swapped).is_err());
            prop_assert!(parse(SAMNR, &swapped).is_err());
        }

        #[test]
        fn errors_never_repeat_the_value(value in "[0-9+-]{6,14}") {
            crate::identifiers::install();
            for ty in [PNR, SAMNR] {
                if let Err(e) = parse(ty, &value) {
                    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
                    let message = e.to_string();
                    prop_assert!(!message.contains(&value));
                    prop_assert!(digits.len() < 4 || !message.contains(&digits));
                }
            }
        }
    }

    #[test]
    fn a_changed_century_may_be_another_number() {
        crate::identifiers::install();
        // Documents why the property tests above do not corrupt the century digits: the
        // check digit does not cover them.
        let n = with_check("19811218123");
        let other = format!("18{}", &n[2..]);
        assert!(parse(PNR, &other).is_ok());
    }
}
