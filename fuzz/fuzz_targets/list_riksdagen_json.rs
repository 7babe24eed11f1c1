//! The PEP-list reader of the Riksdag's member list: `read_bytes(ListFormat::RiksdagenJson,
//! bytes)`.
//!
//! Seeded with the synthetic member list under the crate's `testdata`. Property: no panic;
//! the file is read or refused, and what is read holds only named entries, each saying what
//! makes it exposed.
#![no_main]

use adapters_screening::{read_bytes, ListFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(list) = read_bytes(ListFormat::RiksdagenJson, data) {
        idreg_fuzz::check_list(&list);
    }
});
