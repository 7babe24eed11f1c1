//! Client text: the one rule every string a client sends passes (a JSON string, a path
//! segment, a query value, a form field, Basic credentials, an MCP tool argument), on every
//! surface alike, before any use case reads it.
//!
//! Text is stored and compared as given, with one exception: U+0000 (NUL), which no text
//! column can hold and which no identifier, name, reference or id legitimately contains. A
//! string holding it is refused as 400 `bad_request` naming the field, so it can never reach
//! a store as a 500. The value is never echoed.

use crate::error::Failure;

/// `value`, if it is text a client may send in `field`.
pub fn checked<'v>(field: &str, value: &'v str) -> Result<&'v str, Failure> {
    if value.contains('\0') {
        Err(Failure::bad_request(
            field,
            "must not contain the NUL character (U+0000)",
        ))
    } else {
        Ok(value)
    }
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
        }
    }
}
