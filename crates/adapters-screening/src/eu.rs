//! The EU's financial sanctions file (FSF XML 1.1).

use crate::ReadError;
use domain::sanctions::ParsedList;

/// Reads a whole file of this format.
pub(crate) fn read(_bytes: &[u8]) -> Result<ParsedList, ReadError> {
    Err(ReadError::Malformed {
        format: "eu-xml",
        detail: "this reader is not written yet".into(),
    })
}
