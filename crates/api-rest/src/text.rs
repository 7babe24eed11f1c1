//! Client text: every string a client sends (a JSON string, a path segment, a query value, a
//! form field, Basic credentials, an MCP tool argument) passes here before anything reads it.
//!
//! Text is stored and compared as given, with one exception: U+0000 (NUL), which no text
//! column can hold and which no identifier, name, reference or id legitimately contains. A
//! string holding it is refused as 400 `bad_request` naming the field, before any use case
//! runs, so it can never reach the store as a 500. The value is never echoed.

use domain::Failure;

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

/// The path segments and query parameters of a request, checked as client text: a route's
/// path parameters by their names (`id`, `orgnr`), query parameters by theirs. A query
/// string that is not well formed is left to the route, which refuses it.
pub fn check_request(req: &actix_web::HttpRequest) -> Result<(), Failure> {
    for (name, value) in req.match_info().iter() {
        checked(name, value)?;
    }
    if let Ok(pairs) = serde_urlencoded::from_str::<Vec<(String, String)>>(req.query_string()) {
        for (name, value) in &pairs {
            checked("query", name)?;
            checked(name, value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::checked;
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
            prop_assert_eq!(e.code, domain::ErrorCode::BadRequest);
            prop_assert_eq!(e.message, "`ref`: must not contain the NUL character (U+0000)");
        }
    }
}
