//! A person's message made safe to send to a model, and the rule for the model's tool calls.
//!
//! A message is read for numbers shaped like personal identity numbers (the shape rule of
//! `name_is_identifier`: every digit script, separators and invisible characters included).
//! Each one must be a number the parsers accept; the service resolves it to the tenant's
//! subject and the model gets the reference in its place. A number that does not parse is
//! somebody's mistyped number all the same: the message is refused, and nothing is sent or
//! stored. What the model gets, and what the conversation keeps, is checked once more: it
//! holds no such number.
//!
//! A tool call whose arguments hold such a number is refused (`identifier_in_argument`) and
//! nothing is looked up: a number written by a model is not a resolved identifier.

use crate::error::ErrorCode;
use crate::subjects::identifier::shape::{holds_personal_number, personal_number_spans};
use crate::subjects::identifier::{scheme, Identifier, IdentifierType};
use crate::Failure;
use chrono::NaiveDate;
use std::ops::Range;

/// A personal number found in a message, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundNumber {
    pub range: Range<usize>,
    pub identifier: Identifier,
}

/// The refusal of a message holding a number shaped like a personal identity number that is
/// not one the parsers accept. The number is never echoed.
pub fn unreadable_number() -> Failure {
    Failure::new(
        ErrorCode::IdentifierInArgument,
        "the message holds a number shaped like a personal identity number that is not a \
         valid one; nothing was sent to the model (write the number in full, or leave it out)",
    )
}

/// The refusal of a model's tool call whose arguments hold a raw personal number.
pub fn number_in_tool_call() -> Failure {
    Failure::new(
        ErrorCode::IdentifierInArgument,
        "the tool call's arguments hold a raw personal identity number; nothing was looked \
         up. Use the person's identifier_ref (the person's message names it) instead",
    )
}

/// The personal numbers in `text`, each parsed as of `today`: personnummer or
/// samordningsnummer (a day past 60), or a Lithuanian asmens kodas. A place that does not
/// parse refuses the message ([`unreadable_number`]).
pub fn personal_numbers(text: &str, today: NaiveDate) -> Result<Vec<FoundNumber>, Failure> {
    personal_number_spans(text)
        .into_iter()
        .map(|span| {
            read(&span.written, today)
                .map(|identifier| FoundNumber {
                    range: span.range,
                    identifier,
                })
                .ok_or_else(unreadable_number)
        })
        .collect()
}

fn read(written: &str, today: NaiveDate) -> Option<Identifier> {
    let digits: Vec<u8> = written
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    // The person schemes that write a number with this many digits.
    let candidates: Vec<IdentifierType> = scheme::known()
        .iter()
        .copied()
        .filter(|ty| {
            ty.written_shapes()
                .iter()
                .any(|shape| shape.digits == digits.len())
        })
        .collect();
    candidates.iter().find_map(|&ty| {
        let wire = format!("{}:{written}", ty.country().prefix());
        Identifier::parse(ty, &wire, today).ok()
    })
}

/// `text` with each found number replaced by what `replacement` gives for it, checked: the
/// result holds no personal number (else [`unreadable_number`]).
pub fn replace(
    text: &str,
    found: &[FoundNumber],
    replacement: impl Fn(usize) -> String,
) -> Result<String, Failure> {
    let mut out = text.to_owned();
    for (i, f) in found.iter().enumerate().rev() {
        out.replace_range(f.range.clone(), &replacement(i));
    }
    if holds_personal_number(&out) {
        return Err(unreadable_number());
    }
    Ok(out)
}

/// What stands, in a kept or shown text, for a number the model wrote itself.
pub const WITHHELD: &str = "[a personal identity number, withheld]";

/// `text` with every number shaped like a personal identity number replaced by
/// [`WITHHELD`]: a model is never sent one, but what it writes is kept, shown and sent back
/// to it only so.
pub fn withhold(text: &str) -> String {
    let spans = personal_number_spans(text);
    if spans.is_empty() {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for span in spans.iter().rev() {
        out.replace_range(span.range.clone(), WITHHELD);
    }
    out
}

/// The words the model gets in a resolved number's place.
pub fn reference(identifier_ref: &str, subject_id: &str) -> String {
    format!("[person: identifier_ref {identifier_ref}, subject_id {subject_id}]")
}

/// A conversation's title: the first words of its first message (already scanned), cut at
/// a character boundary.
pub fn title(message: &str, chars: usize) -> String {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= chars {
        return line;
    }
    let mut cut: String = line.chars().take(chars.saturating_sub(1)).collect();
    cut.push('\u{2026}');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 27).unwrap()
    }

    #[test]
    fn a_message_is_read_for_numbers_and_each_is_parsed() {
        // Skatteverket's test numbers; one written in fullwidth digits.
        let text = "Is 19570413-3106 the same as \u{FF18}\u{FF11}\u{FF11}\u{FF11}\u{FF13}\u{FF10}-\u{FF19}\u{FF12}\u{FF18}\u{FF15}? Org 5560021361.";
        let found = personal_numbers(text, today()).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].identifier.id_type(), crate::fixtures::schemes::PNR);
        let replaced = replace(text, &found, |i| format!("<ref {i}>")).unwrap();
        assert_eq!(replaced, "Is <ref 0> the same as <ref 1>? Org 5560021361.");
    }

    #[test]
    fn a_mistyped_number_refuses_the_message_without_echoing_it() {
        let err = personal_numbers("check 19570413-3107 please", today()).unwrap_err();
        assert_eq!(err.code, ErrorCode::IdentifierInArgument);
        assert!(!err.message.contains("3107"));
    }

    #[test]
    fn a_number_the_model_wrote_is_withheld() {
        let t = withhold("the person 19570413-3106 and 5560021361");
        assert_eq!(t, format!("the person {WITHHELD} and 5560021361"));
        assert!(!holds_personal_number(&t));
        assert_eq!(withhold("nothing here"), "nothing here");
    }

    #[test]
    fn a_title_keeps_the_first_words() {
        assert_eq!(title("  who   signs\nfor it ", 60), "who signs for it");
        let long = "a".repeat(100);
        assert_eq!(title(&long, 10).chars().count(), 10);
    }
}
