//! The sanctions-list reader of the EU's FSF XML 1.1: `read_bytes(ListFormat::EuXml, bytes)`.
//!
//! Seeded with cuts of the official samples under the crate's `testdata`. Property: no
//! panic; the file is read or refused, and what is read holds only named entries.
#![no_main]

use adapters_screening::{read_bytes, ListFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(list) = read_bytes(ListFormat::EuXml, data) {
        idreg_fuzz::check_list(&list);
    }
});
