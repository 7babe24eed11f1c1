//! The UK Sanctions List (FCDO XML).

use crate::ReadError;
use domain::sanctions::ParsedList;

/// Reads a whole file of this format.
pub(crate) fn read(_bytes: &[u8]) -> Result<ParsedList, ReadError> {
    Err(ReadError::Malformed {
        format: "uk-xml",
        detail: "this reader is not written yet".into(),
    })
}
