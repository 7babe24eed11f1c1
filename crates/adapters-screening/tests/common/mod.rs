//! What the reader tests share: the test data, a sample read once, the domain's values
//! written short, and files of their own for the tests that write one.

// Each test binary uses its own share of these.
#![allow(dead_code)]

use adapters_screening::{read_path, ListFormat, ReadError};
use chrono::NaiveDate;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListedCountry, ListedIdentifier, ListedName, NameQuality, ParsedList,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A path under the crate's `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

/// The list at `path`, read in `format` the first time it is asked for.
pub fn read_once(
    list: &'static OnceLock<ParsedList>,
    path: &Path,
    format: ListFormat,
) -> &'static ParsedList {
    list.get_or_init(|| {
        read_path(path, Some(format))
            .expect("the sample reads")
            .list
    })
}

/// The entry `id` of a sample.
pub fn entry<'a>(list: &'a ParsedList, id: &str) -> &'a ListEntry {
    list.entries
        .iter()
        .find(|e| e.source_entry_id == id)
        .unwrap_or_else(|| panic!("{id} is in the sample"))
}

pub fn strong(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Strong,
    }
}

pub fn weak(s: &str) -> ListedName {
    ListedName {
        full: s.into(),
        quality: NameQuality::Weak,
    }
}

pub fn country(code: &str, name: &str) -> ListedCountry {
    ListedCountry {
        code: Some(code.into()),
        name: name.into(),
    }
}

pub fn id(kind: &str, value: &str, country: Option<&str>) -> ListedIdentifier {
    ListedIdentifier {
        kind: kind.into(),
        value: value.into(),
        country: country.map(Into::into),
    }
}

/// Each entry's id and kind, in the list's order.
pub fn ids_and_kinds(list: &ParsedList) -> Vec<(&str, EntryKind)> {
    list.entries
        .iter()
        .map(|e| (e.source_entry_id.as_str(), e.kind))
        .collect()
}

pub fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// A file of its own for one test (the crate has no temp-file dependency), removed when
/// dropped: `idreg-<prefix>-<process>-<tag>.xml` in the temporary folder.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(prefix: &str, tag: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("idreg-{prefix}-{}-{tag}.xml", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Asserts that reading `path` in `format` is refused as not a valid file of that format.
pub fn assert_malformed_path(format: ListFormat, tag: &str, path: &Path) {
    match read_path(path, Some(format)) {
        Err(ReadError::Malformed { format: f, .. }) => assert_eq!(f, format.as_str(), "{tag}"),
        other => panic!("{tag}: expected Malformed, got {other:?}"),
    }
}

/// Asserts that `bytes`, read from a file of their own in `format`, are refused as not a
/// valid file of that format.
pub fn assert_malformed(format: ListFormat, prefix: &str, tag: &str, bytes: &[u8]) {
    let file = TempFile::new(prefix, tag, bytes);
    assert_malformed_path(format, tag, &file.0);
}

/// A small deterministic generator (xorshift), for inputs no one wrote by hand.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The offset of the first `word` in `bytes`.
pub fn find(bytes: &[u8], word: &str) -> usize {
    bytes
        .windows(word.len())
        .position(|w| w == word.as_bytes())
        .unwrap()
}

/// Asserts that reading in `format` refuses another root, bytes that are not XML, and
/// copies of the format's sample `full` cut short: at half, before its root's end tag
/// `</root>`, and `into` bytes into that tag.
pub fn assert_cut_short_malformed(
    format: ListFormat,
    prefix: &str,
    full: &[u8],
    root: &str,
    into: usize,
) {
    let malformed = |tag: &str, bytes: &[u8]| assert_malformed(format, prefix, tag, bytes);
    malformed("nope", b"<nope/>");
    malformed("binary", &[0x00, 0xff, 0x13, 0x37, 0x80, 0x3c, 0xfe, 0x7f]);
    malformed("half", &full[..full.len() / 2]);
    let end_tag = format!("</{root}>");
    let root_end = full
        .windows(end_tag.len())
        .rposition(|w| w == end_tag.as_bytes())
        .unwrap();
    malformed("no-root-end", &full[..root_end]);
    malformed("cut-in-root-end", &full[..root_end + into]);
}

/// What a read of a damaged copy of a sample must hold, whatever the damage: every entry
/// whole (an id and named), no id twice, and no more entries than the undamaged copy's read.
/// Returns how many entries are exactly an entry of the undamaged read (the damage missed
/// them), so a caller can require that reads of damaged copies keep the real data.
pub fn check_damaged_read(original: &ParsedList, damaged: &ParsedList, round: &str) -> usize {
    let mut ids = HashSet::new();
    let mut intact = 0;
    for e in &damaged.entries {
        let id = e.source_entry_id.as_str();
        assert!(!id.trim().is_empty(), "{round}: an entry without an id");
        assert!(
            !e.names.is_empty() && e.names.iter().all(|n| !n.full.trim().is_empty()),
            "{round}: {id} without a name: {:?}",
            e.names
        );
        assert!(ids.insert(id), "{round}: {id} read twice");
        if original.entries.contains(e) {
            intact += 1;
        }
    }
    assert!(
        damaged.entries.len() <= original.entries.len(),
        "{round}: {} entries from a copy of {}",
        damaged.entries.len(),
        original.entries.len()
    );
    intact
}
