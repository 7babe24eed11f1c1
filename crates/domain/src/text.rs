//! Client text: the one rule every string a client sends passes (a JSON string, a path
//! segment, a query value, a form field, Basic credentials, an MCP tool argument), on every
//! surface alike, before any use case reads it.
//!
//! Text is stored and compared as given, with one exception: U+0000 (NUL), which no text
//! column can hold and which no identifier, name, reference or id legitimately contains. A
//! string holding it is refused as 400 naming the field, so it can never reach a store as a
//! 500: `bad_request`, or the code the specification gives a malformed value of that field
//! (`invalid_identifier`, `invalid_cursor`). The value is never echoed.

use crate::error::Failure;

/// The fields that carry an identifier (a path's `orgnr`, a resolve's `value`, an MCP
/// argument's `identifier`): malformed, they are the specification's `invalid_identifier`.
pub const IDENTIFIER_FIELDS: [&str; 3] = ["orgnr", "value", "identifier"];

/// `value`, if it is text a client may send in `field`. A NUL is refused with the code the
/// specification gives a malformed value of that field, where it gives one (an identifier's
/// `invalid_identifier`, a cursor's `invalid_cursor` with its recovery, so a client knows
/// what to do), else `bad_request`; never echoed.
pub fn checked<'v>(field: &str, value: &'v str) -> Result<&'v str, Failure> {
    if !value.contains('\0') {
        return Ok(value);
    }
    Err(if field == "cursor" {
        crate::monitoring::event::parse_cursor(value)
            .err()
            .unwrap_or_else(|| Failure::bad_request(field, "must be a cursor"))
    } else if IDENTIFIER_FIELDS.contains(&field) {
        Failure::new(
            crate::error::ErrorCode::InvalidIdentifier,
            format!(
                "`{field}` is not a well-formed identifier: it must not contain the NUL character (U+0000)"
            ),
        )
    } else {
        Failure::bad_request(field, "must not contain the NUL character (U+0000)")
    })
}

/// Free text: anything but the NUL character ([`checked`]), as a pattern for interface schemas.
pub const TEXT_PATTERN: &str = "^[^\\u0000]*$";

/// Free text with at least one character that is not white space.
pub const NOT_BLANK_PATTERN: &str = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$";

#[cfg(test)]
mod tests {
    use super::checked;
    use crate::error::ErrorCode;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn text_without_nul_passes_unchanged(s in "[^\\x00]{0,64}") {
            prop_assert_eq!(checked("f", &s).unwrap(), s.as_str());
        }

        #[test]
        fn a_nul_anywhere_is_refused_without_echo(
            before in "\\PC{0,20}", after in "\\PC{0,20}"
        ) {
            let value = format!("{before}\0{after}");
            let e = checked("ref", &value).unwrap_err();
            prop_assert_eq!(e.code, ErrorCode::BadRequest);
            prop_assert_eq!(e.message, "`ref`: must not contain the NUL character (U+0000)");
            // An identifier's field and a cursor answer their own codes, never echoing.
            for field in super::IDENTIFIER_FIELDS {
                let e = checked(field, &value).unwrap_err();
                prop_assert_eq!(e.code, ErrorCode::InvalidIdentifier);
                prop_assert!(!e.message.contains(&value));
            }
            let e = checked("cursor", &value).unwrap_err();
            prop_assert_eq!(e.code, ErrorCode::InvalidCursor);
            prop_assert!(!e.message.contains(&value));
        }
    }
}
