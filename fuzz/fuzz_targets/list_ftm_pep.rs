//! The PEP-list reader of FollowTheMoney data: `read_bytes(ListFormat::FtmPep, bytes)`.
//!
//! Seeded with cuts of the synthetic PEP sample under the crate's `testdata`. Property: no
//! panic; the file is read or refused, and what is read holds only named entries, each
//! saying what makes it exposed.
#![no_main]

use adapters_screening::{read_bytes, ListFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(list) = read_bytes(ListFormat::FtmPep, data) {
        idreg_fuzz::check_list(&list);
    }
});
