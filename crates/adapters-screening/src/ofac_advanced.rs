//! OFAC's advanced XML (the UN sanctions data model).

use crate::ReadError;
use domain::sanctions::ParsedList;

/// Reads a whole file of this format.
pub(crate) fn read(_bytes: &[u8]) -> Result<ParsedList, ReadError> {
    Err(ReadError::Malformed {
        format: "ofac-advanced-xml",
        detail: "this reader is not written yet".into(),
    })
}
