//! Personal identity numbers recognised by their shape inside free text, so a screening
//! name that carries one is refused before anything is stored or looked up
//! (`name_is_identifier`).
//!
//! Judged by shape, not by check digit: a mistyped number is still somebody's number. The
//! text is read as people write numbers:
//! - a digit is a digit in any script (fullwidth `８`, Arabic-Indic `٨`, Devanagari `८`,
//!   superscript, circled, ...; see [`super::digits`]);
//! - groups of digits are joined across up to [`MAX_SEPARATORS`] separators (spaces of every
//!   width, hyphens and dashes, plus and minus signs, full stops, slashes);
//! - invisible characters (zero-width spaces and joiners, direction marks, the soft hyphen,
//!   variation selectors, combining marks such as a keycap) are skipped.
//!
//! A run of digits holds a personal number when any window of it is written as one of the
//! known person schemes could write it, by **the scheme's own rules** (its
//! [`super::WrittenShape`]s), before the check digit, the calendar and today are asked. For
//! example:
//! - 10 digits `YYMMDDNNNC`, or 12 with a century 18 to 21, whose month and day a
//!   personnummer or a samordningsnummer may carry (a coordination number's unknown month
//!   `00` and unknown day `60` included);
//! - 11 digits whose century digit is in use and whose date part is a month 1 to 12 and a day
//!   1 to 31, or the exceptional `9` with its check digit: a Lithuanian asmens kodas.
//!
//! Every number the parsers accept, in every spelling they accept, is therefore refused by
//! construction (a property test generates them in every digit script). Other numbers of
//! that shape (a phone number written as ten digits) are refused too: the rule errs on the
//! side of never storing a personal number. Nothing here ever returns or formats the number:
//! the answer is yes or no.

use super::{digits, scheme, WrittenShape};

/// The refusal of a free-text field (a customer reference, a legal-basis reference) that
/// holds a number shaped like a personal identity number: such text is stored and logged as
/// sent, so it must never carry one. The number is never echoed.
pub const IN_FREE_TEXT: &str = "holds a number shaped like a personal identity number; \
    references are stored as sent, so they must not carry one (send the number as the \
    identifier and use a reference of your own)";

/// Separators read between two groups of one number (`811130 - 9285` has three).
pub const MAX_SEPARATORS: usize = 3;

/// Whether `text` holds a number shaped like a personal number of a known scheme (a Swedish
/// personal or coordination number, a Lithuanian personal code, ...).
pub fn holds_personal_number(text: &str) -> bool {
    digit_runs(text)
        .iter()
        .any(|run| shaped_like_personal_number(run))
}

/// The runs of digit values in `text`, joining groups split by separators.
fn digit_runs(text: &str) -> Vec<Vec<u8>> {
    located_runs(text)
        .into_iter()
        .map(|run| run.into_iter().map(|d| d.value).collect())
        .collect()
}

/// One digit of a run: its value, where it is in the text, and whether a plus sign stood
/// among the separators before it.
#[derive(Copy, Clone, Debug)]
struct Located {
    value: u8,
    start: usize,
    end: usize,
    after_plus: bool,
}

/// The runs of `text`'s digits with their places (see [`digit_runs`]).
fn located_runs(text: &str) -> Vec<Vec<Located>> {
    let mut runs = Vec::new();
    let mut run: Vec<Located> = Vec::new();
    let mut separators = 0usize;
    let mut plus = false;
    for (at, c) in text.char_indices() {
        if let Some(value) = digits::value(c) {
            run.push(Located {
                value,
                start: at,
                end: at + c.len_utf8(),
                after_plus: plus,
            });
            separators = 0;
            plus = false;
        } else if digits::ignorable(c) {
            continue;
        } else if digits::separator(c) && !run.is_empty() && separators < MAX_SEPARATORS {
            separators += 1;
            plus |= matches!(c, '+' | '\u{207A}' | '\u{208A}' | '\u{FE62}' | '\u{FF0B}');
        } else {
            if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
            separators = 0;
            plus = false;
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// A place in a text holding a number shaped like a personal identity number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberSpan {
    /// The bytes of the text it takes, from its first digit to its last.
    pub range: std::ops::Range<usize>,
    /// The number as the parsers read it: ASCII digits, a ten-digit number's separator
    /// (`-`, or `+` when a plus sign stood before its last four digits) kept. Never logged.
    pub written: String,
}

/// Where `text` holds numbers shaped like personal identity numbers (the windows
/// [`holds_personal_number`] finds, overlapping ones taken together), in text order. Every
/// text [`holds_personal_number`] answers yes for has at least one.
pub fn personal_number_spans(text: &str) -> Vec<NumberSpan> {
    let mut spans: Vec<NumberSpan> = Vec::new();
    for run in located_runs(text) {
        let values: Vec<u8> = run.iter().map(|d| d.value).collect();
        // Each shaped window as the digit positions it covers, with its separator's place.
        let mut windows: Vec<(usize, usize, Option<usize>)> = Vec::new();
        for shape in shapes() {
            let len = shape.digits;
            if len == 0 || values.len() < len {
                continue;
            }
            for from in 0..=values.len() - len {
                if (shape.shaped)(&values[from..from + len]) {
                    windows.push((from, from + len, shape.separator_after));
                }
            }
        }
        windows.sort_unstable();
        // Overlapping windows are one place.
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for &(from, to, _) in &windows {
            match merged.last_mut() {
                Some(last) if from < last.1 => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        for (from, to) in merged {
            let digits = &run[from..to];
            // A place that is one window is written as its form is, separator included.
            let separator = windows
                .iter()
                .find(|w| w.0 == from && w.1 == to && w.2.is_some())
                .and_then(|w| w.2);
            let mut written = String::with_capacity(to - from + 1);
            for (i, d) in digits.iter().enumerate() {
                if separator == Some(i) {
                    written.push(if d.after_plus { '+' } else { '-' });
                }
                written.push(char::from(b'0' + d.value));
            }
            spans.push(NumberSpan {
                range: digits[0].start..digits[digits.len() - 1].end,
                written,
            });
        }
    }
    spans
}

/// The written shapes of every known person scheme.
fn shapes() -> impl Iterator<Item = &'static WrittenShape> {
    scheme::known()
        .iter()
        .flat_map(|scheme| scheme.written_shapes().iter())
}

fn shaped_like_personal_number(run: &[u8]) -> bool {
    // Any window of the run with a personal number's shape (numbers run together count).
    shapes().any(|shape| shape.digits > 0 && run.windows(shape.digits).any(shape.shaped))
}

#[cfg(test)]
mod tests {
    use super::{holds_personal_number, personal_number_spans};
    use crate::subjects::identifier::{digits, Identifier, IdentifierType};
    use chrono::{Datelike, NaiveDate};
    use proptest::prelude::*;

    #[test]
    fn names_carrying_a_personal_number_are_recognised_however_written() {
        // Skatteverket's test numbers, synthetic coordination numbers (unknown month and
        // day included) and a synthetic Lithuanian code (its check digit wrong on purpose).
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
            // Other scripts: fullwidth, Arabic-Indic, Devanagari, mixed.
            "Anna \u{FF18}\u{FF11}\u{FF11}\u{FF11}\u{FF13}\u{FF10}-\u{FF19}\u{FF12}\u{FF18}\u{FF15}",
            "Anna \u{0668}\u{0661}\u{0661}\u{0661}\u{0663}\u{0660}\u{0669}\u{0662}\u{0668}\u{0665}",
            "Anna \u{096E}\u{0967}\u{0967}\u{0967}\u{0969}\u{0966}-\u{096F}\u{0968}\u{096E}\u{096B}",
            "Anna 8\u{FF11}1\u{0661}30-9\u{0968}85",
            // Skatteverket's test coordination numbers with an unknown day and month.
            "Nils 171160+2399",
            "Nils 19150072-2390",
            // Spaced, dashed and hidden.
            "Anna 811130 - 9285",
            "Anna 811130\u{2013}9285",
            "Anna 8\u{200B}1\u{00AD}1130-9285",
            "Anna 811130\u{FE0F}\u{20E3}-9285",
            "Anna 81 11 30 92 85",
            "Anna \u{2460}\u{2467}1130-9285",
        ] {
            assert!(holds_personal_number(name), "{name:?}");
        }
    }

    /// Found by fuzzing (`personal_number_shape`): coordination numbers with an unknown day
    /// (60) or month (00), which the parser accepts. One of Skatteverket's test numbers, and
    /// synthetic shapes whose check digits are wrong (nobody's number).
    #[test]
    fn coordination_numbers_with_an_unknown_day_or_month_are_recognised() {
        for name in [
            "id 1812602397",
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
    /// holds. Synthetic; the same digits with a wrong check digit pass.
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
            "\u{FF11}\u{FF19}\u{FF15}\u{FF17}",
            "Room 12, floor 3",
        ] {
            assert!(!holds_personal_number(name), "{name:?}");
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn accepted(ty: IdentifierType, wire: &str) -> bool {
        Identifier::parse(ty, &format!("{}:{wire}", ty.country().prefix()), today()).is_ok()
    }

    /// The zero of every script with ten decimal digits (ASCII, fullwidth, Arabic-Indic,
    /// Devanagari, ... 70 and more), found once by scanning every code point.
    fn scripts() -> &'static [char] {
        static ZEROS: std::sync::OnceLock<Vec<char>> = std::sync::OnceLock::new();
        ZEROS.get_or_init(|| {
            (0..=0x10FFFFu32)
                .filter_map(char::from_u32)
                .filter(|&c| {
                    digits::value(c) == Some(0)
                        && (1..10u32).all(|v| {
                            char::from_u32(u32::from(c) + v).and_then(digits::value)
                                == Some(v as u8)
                        })
                })
                .collect()
        })
    }

    /// A Swedish number the parser accepts, in one of the spellings it accepts: personal or
    /// coordination (unknown month or day now and then), 10 or 12 digits, no separator, `-`
    /// or `+` (the latter for those born at least 100 years before this year).
    fn swedish() -> impl Strategy<Value = (IdentifierType, String)> {
        let first = NaiveDate::from_ymd_opt(1800, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (0..=span, 1u32..=999, any::<bool>(), 0u8..10, 0u8..6).prop_map(
            move |(offset, serial, coordination, unknown, form)| {
                let born = first + chrono::Duration::days(offset);
                let (ty, month, day) = if coordination {
                    let month = if unknown == 0 { 0 } else { born.month() };
                    let day = if unknown == 1 { 60 } else { born.day() + 60 };
                    (IdentifierType::Samordningsnummer, month, day)
                } else {
                    (IdentifierType::Personnummer, born.month(), born.day())
                };
                let yy = born.year() % 100;
                let payload = format!("{yy:02}{month:02}{day:02}{serial:03}");
                let values: Vec<u8> = payload.bytes().map(|b| b - b'0').collect();
                let check = super::super::luhn::check_digit(&values);
                let ten = format!("{payload}{check}");
                let old = born.year() <= today().year() - 100;
                let separator = if old { "+" } else { "-" };
                let century = born.year() / 100;
                let wire = match form {
                    0 => ten.clone(),
                    1 => format!("{}{separator}{}", &ten[..6], &ten[6..]),
                    2 => format!("{century}{ten}"),
                    3 => format!("{century}{}-{}", &ten[..6], &ten[6..]),
                    4 if old => format!("{century}{}+{}", &ten[..6], &ten[6..]),
                    _ => format!("{}-{}", &ten[..6], &ten[6..]),
                };
                (ty, wire)
            },
        )
    }

    /// A Lithuanian personal code the parser accepts: a century digit with a real date not
    /// after today, or the exceptional 9 with any date part.
    fn lithuanian() -> impl Strategy<Value = (IdentifierType, String)> {
        let first = NaiveDate::from_ymd_opt(1800, 1, 1).unwrap();
        let span = (today() - first).num_days();
        (
            0..=span,
            0u32..=999,
            any::<bool>(),
            any::<bool>(),
            0u32..1_000_000,
        )
            .prop_map(move |(offset, serial, female, exceptional, date_part)| {
                let born = first + chrono::Duration::days(offset);
                let head = if exceptional {
                    format!("9{date_part:06}{serial:03}")
                } else {
                    let g = (born.year() / 100 - 18) * 2 + 1 + i32::from(female);
                    format!(
                        "{g}{:02}{:02}{:02}{serial:03}",
                        born.year() % 100,
                        born.month(),
                        born.day()
                    )
                };
                let values: Vec<u8> = head.bytes().map(|b| b - b'0').collect();
                let check = super::super::lithuania::asmens_check_digit(&values);
                (IdentifierType::AsmensKodas, format!("{head}{check}"))
            })
    }

    /// `wire` with every ASCII digit written in the script whose zero is chosen for it, the
    /// separators now and then spelt otherwise, and invisible characters now and then.
    fn respell(wire: &str, zeros: &[char], picks: &[usize], extras: &[u8]) -> String {
        let mut out = String::new();
        for (i, c) in wire.chars().enumerate() {
            let extra = extras[i % extras.len()];
            match c.to_digit(10) {
                Some(d) => {
                    let zero = zeros[picks[i % picks.len()] % zeros.len()];
                    out.push(char::from_u32(u32::from(zero) + d).unwrap());
                }
                None => out.push(match (c, extra % 4) {
                    ('-', 1) => '\u{2010}',
                    ('-', 2) => '\u{FF0D}',
                    ('+', 1) => '\u{FF0B}',
                    _ => c,
                }),
            }
            match extra {
                200.. => out.push('\u{200B}'),
                190.. => out.push('\u{00AD}'),
                185.. => out.push(' '),
                _ => {}
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Every number the parsers accept, in every spelling they accept and in every digit
        /// script, embedded in a name, is refused.
        #[test]
        fn every_accepted_number_in_every_script_is_refused(
            (ty, wire) in prop_oneof![swedish(), lithuanian()],
            picks in proptest::collection::vec(any::<usize>(), 1..4),
            extras in proptest::collection::vec(any::<u8>(), 1..6),
            before in "[A-Za-z\u{00C5}\u{00C4}\u{00D6}\u{00E5}\u{00E4}\u{00F6} ]{0,12}",
            after in "[ A-Za-z]{0,12}",
        ) {
            prop_assert!(accepted(ty, &wire), "the generator made a number the parser accepts");
            let zeros = scripts();
            prop_assert!(zeros.len() >= 70, "{} scripts", zeros.len());
            let written = respell(&wire, zeros, &picks, &extras);
            let name = format!("{before} {written}{after}");
            prop_assert!(holds_personal_number(&name));
            prop_assert!(holds_personal_number(&written));
        }

        /// Whatever the text: text without a digit holds no number, and what stands beyond a
        /// character that is neither a digit, a separator nor invisible changes nothing.
        #[test]
        fn the_answer_depends_only_on_the_digit_runs(text in "\\PC{0,40}") {
            let answer = holds_personal_number(&text);
            if !text.chars().any(|c| digits::value(c).is_some()) {
                prop_assert!(!answer);
            }
            prop_assert_eq!(holds_personal_number(&format!("Q|{text}|Q")), answer);
            prop_assert_eq!(holds_personal_number(&format!("{text}|1957")), answer);
        }

        /// The places found are exactly what makes a text hold a number: with each one
        /// replaced, no number is left; a text holding one has a place; and every accepted
        /// number, however spelled, is read back as the parser's own spelling.
        #[test]
        fn replacing_the_places_found_leaves_no_number(
            text in "[0-9 +\\-.a\u{FF10}-\u{FF19}\u{200B}]{0,48}",
            (ty, wire) in prop_oneof![swedish(), lithuanian()],
            picks in proptest::collection::vec(any::<usize>(), 1..4),
            extras in proptest::collection::vec(any::<u8>(), 1..6),
        ) {
            for text in [text.clone(), format!("{text} {} x", respell(&wire, scripts(), &picks, &extras))] {
                let spans = personal_number_spans(&text);
                prop_assert_eq!(spans.is_empty(), !holds_personal_number(&text));
                let mut cleaned = text.clone();
                for span in spans.iter().rev() {
                    cleaned.replace_range(span.range.clone(), "X");
                }
                prop_assert!(!holds_personal_number(&cleaned), "{cleaned:?}");
            }
            let spans = personal_number_spans(&respell(&wire, scripts(), &picks, &extras));
            prop_assert_eq!(spans.len(), 1);
            let read = Identifier::parse(ty, &format!("{}:{}", ty.country().prefix(), spans[0].written), today());
            prop_assert!(read.is_ok(), "{:?}", ty);
        }
    }

    #[test]
    fn each_script_spells_a_refused_number() {
        // Every script, one at a time, for one of Skatteverket's test numbers.
        let zeros = scripts();
        assert!(zeros.len() >= 70);
        for (i, _) in zeros.iter().enumerate() {
            let written = respell("811130-9285", zeros, &[i], &[0]);
            assert!(
                holds_personal_number(&format!("Anna {written}")),
                "{written:?}"
            );
        }
    }
}
