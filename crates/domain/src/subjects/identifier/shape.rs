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
