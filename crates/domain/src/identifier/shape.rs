//! Personal identity numbers recognised by their shape inside free text, so a screening
//! name that carries one is refused before anything is stored or looked up
//! (`name_is_identifier`).
//!
//! Judged by shape, not by check digit: a mistyped number is still somebody's number. A run
//! of digits (spaces, `-` and `+` allowed between its groups, as people write them) is a
//! personal number when it is
//! - 10 or 12 digits whose date part is a plausible date (`YYMMDD` or `YYYYMMDD`, with day
//!   61 to 91 for a coordination number) followed by four digits: Swedish personnummer or
//!   samordningsnummer;
//! - 11 digits whose first digit is 1 to 6 (the century and sex digit) and whose next six are
//!   a plausible `YYMMDD`: a Lithuanian asmens kodas.
//!
//! Other numbers of that shape (a phone number written as ten digits) are refused too: the
//! rule errs on the side of never storing a personal number. Nothing here ever returns or
//! formats the number: the answer is yes or no.

use super::lithuania::asmens_check_digit;

/// Whether `text` holds a number shaped like a Swedish personal or coordination number or a
/// Lithuanian personal code.
pub fn holds_personal_number(text: &str) -> bool {
    digit_runs(text)
        .iter()
        .any(|run| shaped_like_personal_number(run))
}

/// The runs of digits in `text`, joining groups split by a space, `-` or `+` (one at a time).
fn digit_runs(text: &str) -> Vec<Vec<u8>> {
    let mut runs = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut separator = false;
    for c in text.chars() {
        if let Some(d) = c.to_digit(10).filter(|_| c.is_ascii_digit()) {
            run.push(u8::try_from(d).unwrap_or(0));
            separator = false;
        } else if matches!(
            c,
            ' ' | '-' | '+' | '\u{00A0}' | '\u{2010}' | '\u{2011}' | '\u{2013}'
        ) && !run.is_empty()
            && !separator
        {
            separator = true;
        } else {
            if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
            separator = false;
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

fn shaped_like_personal_number(run: &[u8]) -> bool {
    // Any window of the run with a personal number's shape (numbers run together count).
    [10usize, 11, 12].iter().any(|len| {
        run.len() >= *len
            && (0..=run.len() - len).any(|start| {
                let w = &run[start..start + len];
                match len {
                    10 => plausible_date(None, &w[2..4], &w[4..6]),
                    12 => plausible_date(Some(&w[0..2]), &w[4..6], &w[6..8]),
                    // `9` marks an exceptional code whose date part need not be a date:
                    // its check digit is all there is to go by.
                    _ => {
                        ((1..=6).contains(&w[0]) && plausible_date(None, &w[3..5], &w[5..7]))
                            || (w[0] == 9 && w[10] == asmens_check_digit(&w[..10]))
                    }
                }
            })
    })
}

fn number(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, d| n * 10 + u32::from(*d))
}

/// A plausible birth date: month 1 to 12, day 1 to 31 or 61 to 91 (coordination numbers);
/// a coordination number's month may also be 00 and its day 60 (unknown, as Skatteverket
/// issues them); with a century, 18, 19 or 20.
fn plausible_date(century: Option<&[u8]>, month: &[u8], day: &[u8]) -> bool {
    let century_ok = century.is_none_or(|c| (18..=20).contains(&number(c)));
    let month = number(month);
    let day = number(day);
    let coordination = (60..=91).contains(&day);
    century_ok
        && (((1..=12).contains(&month) && (1..=31).contains(&day))
            || (coordination && (0..=12).contains(&month)))
}

#[cfg(test)]
mod tests {
    use super::holds_personal_number;

    #[test]
    fn names_carrying_a_personal_number_are_recognised_however_written() {
        // Skatteverket's test numbers, a synthetic coordination number and a synthetic
        // Lithuanian code (its check digit wrong on purpose).
        for name in [
            "Anna Test 19570413-3106",
            "Anna Test 195704133106",
            "5704133106",
            "570413-3106 Anna",
            "Bo 570413+3106",
            "samordning 19811190-1234",
            "Jonas 38703181740",
            "Jonas 387 0318 1740",
            "x195704133106y",
        ] {
            assert!(holds_personal_number(name), "{name}");
        }
    }

    /// Found by fuzzing (`personal_number_shape`): coordination numbers with an unknown day
    /// (60) or month (00), which the parser accepts, were let through. Synthetic numbers.
    #[test]
    fn coordination_numbers_with_an_unknown_day_or_month_are_recognised() {
        for name in [
            "id 4905609964",
            "Bo 191400601234",
            "Bo 140060-1234",
            "Bo 19140068-1234",
            "Bo 1411601234",
        ] {
            assert!(holds_personal_number(name), "{name}");
        }
    }

    /// Found by fuzzing (`personal_number_shape`): a Lithuanian personal code of the
    /// exceptional kind (`9`, no date in it), which the parser accepts when its check digit
    /// holds, was let through. Synthetic; the same digits with a wrong check digit pass.
    #[test]
    fn exceptional_lithuanian_codes_are_recognised_by_their_check_digit() {
        assert!(holds_personal_number("ref 372 99280584138"));
        assert!(!holds_personal_number("ref 372 99280584139"));
    }

    #[test]
    fn names_and_other_numbers_pass() {
        for name in [
            "Anna Testsson",
            "Snow Storm 2",
            "IMO 9187629",
            "Company 5560021361 AB",
            "Flight 1234-5678",
            "1957",
            "Al-Qaida 99999999999",
            "",
        ] {
            assert!(!holds_personal_number(name), "{name}");
        }
    }
}
