//! OFAC's legacy CSV sets (SDN and consolidated non-SDN), read into the domain's list
//! entries.
//!
//! # The files
//!
//! A set is four files without a header row, in Windows-1252 (a file that is valid UTF-8 is
//! read as UTF-8, so a re-encoded copy reads the same; any other byte sequence is decoded
//! as Windows-1252, the five bytes it leaves undefined as the Latin-1 controls). `-0-`, often
//! with a trailing space, is null; a trailing Ctrl-Z (0x1A) line is ignored; so is a header
//! row naming `ent_num`, should a copy carry one.
//!
//! | File | Columns |
//! |---|---|
//! | `sdn.csv` / `cons_prim.csv` | ent_num, name, type, programs, title, call sign, vessel type, tonnage, GRT, vessel flag, vessel owner, remarks |
//! | `alt.csv` / `cons_alt.csv` | ent_num, alt_num, type (`aka`/`fka`/`nka`), name, remarks |
//! | `add.csv` / `cons_add.csv` | ent_num, add_num, address, city/state/postal code, country, remarks |
//! | `sdn_comments.csv` / `cons_comments.csv` | ent_num, remarks continuation |
//!
//! # The mapping
//!
//! - **Entry**: `source_entry_id` is `ent_num`. Type `individual` → [`EntryKind::Person`],
//!   `vessel` → `Vessel`, `aircraft` → `Aircraft`, null → `Organisation`, anything else →
//!   `Other`. Programs are the `] [`-joined column split (`SDGT] [IRGC` → `SDGT`, `IRGC`).
//!   The legacy CSV gives no listing date and no publication time: both stay `None`.
//!   Title, vessel type, tonnage, GRT and owner have no place in the domain and are dropped.
//! - **Names**, all deduplicated (case and spacing ignored, the first spelling kept, a name
//!   that is both strong and weak kept strong): the primary name first; then every
//!   `alt.csv` name, [`NameQuality::Strong`] (`aka`, `fka` and `nka` alike: the list
//!   published them as good-quality aliases; only an alias whose own remarks say `weak`
//!   would be weak, and no published file has one); then the `a.k.a. 'X'` / `f.k.a. 'X'` /
//!   `n.k.a. 'X'` items of the remarks, which are OFAC's *weak* aliases →
//!   [`NameQuality::Weak`].
//! - **Individuals' names** are written `LAST, First` (and `LAST, First, Jr.`). Each is kept
//!   twice, with the same quality: reordered as `First LAST` (`Jr.`/`Sr.`/`II`/… after the
//!   surname), which comes first, and as the list wrote it. The list's form is kept because
//!   for many names it is also the natural order (`KIM, Jong Un` is `KIM Jong Un` in
//!   every other source) and a user who types the surname first should find the entry
//!   however the matcher treats word order. Names of other kinds are kept as written
//!   (their commas belong to the name: `CIMEX, S.A.`).
//! - **Remarks** (`sdn_comments.csv` continuations appended first, byte for byte: OFAC cuts
//!   long remarks mid-word) are `;`-separated items; a leading `alt. ` is ignored:
//!   - `DOB …` → `birth_dates`, as precise as written: `12 Jan 1960` → a day, `Jan 1960` → a
//!     month, `1960` → a year. A range (`1958 to 1962`, `01 Jan 1961 to 31 Dec 1963`,
//!     `Mar 1962 to Feb 1963`) becomes the narrowest value holding all of it: one day, one
//!     month, one year, or else the span of years (`1961..1963`). `circa` widens by one
//!     year each side: `circa 1960` → `1959..1961`, `circa 07 Jul 1966` → `1965..1967`,
//!     `circa 1979-1982` → `1978..1983`. Screening must not lose a true match to a
//!     precision the list does not have, so ranges widen and never narrow.
//!   - `POB …` → `countries`, when the part after the last comma (the last two parts for
//!     `…, Korea, North`; failing those, the words inside its parentheses: `POB Tunisi
//!     (Tunisia)`) is a country `iso_code` knows; a town alone (`POB Shati`) ties none.
//!   - `nationality X` and `citizen X` → `nationalities` (the words kept even when no code
//!     is known). `Nationality of Registration X` (an organisation's or vessel's) and
//!     `Other Vessel Flag X` → `countries`; a *former* flag ties no country.
//!   - Identifiers: an item that starts with one of the identifier kinds the list uses
//!     (`Passport`, `National ID No.`, `Registration Number`, `Tax ID No.`,
//!     `Identification Number`, `Cedula No.`, `NIT #`, `Business Registration Document #`,
//!     `C.U.R.P.`, `SWIFT/BIC`, `Vessel Registration Identification` (IMO), `MMSI`,
//!     `Aircraft Tail Number`, `Digital Currency Address - XBT`, … see [`ID_KINDS`]), or
//!     any other `<kind> <value with a digit> (<country>)` item whose country maps, →
//!     `identifiers`: the kind lower-cased as written (`passport`, `national id no.`,
//!     `nit #`), the value without the trailing `(country)`, any region in parentheses
//!     before it (`22839 (Jalisco) (Mexico)` → `22839`) and any `issued …`/`expires …`;
//!     the country's ISO code when it maps. A vessel's call sign (its own column) is an
//!     identifier of kind `call sign`.
//!   - `Gender`, `Linked To:`, titles, programme details, phone numbers, e-mail and web
//!     addresses and the like are not identifying data of the domain and are ignored.
//! - **Addresses**: only the country column is kept (→ `countries`, the words always, the
//!   code when `iso_code` knows it); the domain holds no street addresses. A vessel's flag
//!   column → `countries` the same way. A country written `Man, Isle of` is also tried as
//!   `Isle of Man`, `St. Kitts & Nevis` as `Saint Kitts and Nevis`. The words the list
//!   writes where it knows no country (`undetermined`, `None Identified`, `unknown`) tie
//!   none, anywhere.
//!
//! # What is refused, and what is skipped
//!
//! A file whose first record is not a record of its kind (the right number of columns and
//! a numeric `ent_num`) is not this format: [`ReadError::Malformed`]. After that, a record the
//! reader cannot use is skipped whole and named in [`ParsedList::skipped`] with its file and
//! line: a primary record with the wrong number of columns, a non-numeric `ent_num`, no
//! name, or an `ent_num` already read; an alias, address or comment record with the wrong
//! number of columns or naming an `ent_num` the primary file does not hold (an alias
//! without a name too). A remark item the reader does not recognise is free text, not an
//! unreadable record: it is ignored, and a `DOB` whose date cannot be read is ignored
//! rather than dropping a designated person from screening.

use crate::ReadError;
use chrono::NaiveDate;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality, ParsedList,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The files of one CSV set.
pub(crate) struct CsvSet {
    pub source: ListSource,
    pub primary: PathBuf,
    pub aliases: Option<PathBuf>,
    pub addresses: Option<PathBuf>,
    pub comments: Option<PathBuf>,
}

impl CsvSet {
    /// The set at `path`: a folder holding `sdn.csv` or `cons_prim.csv`, or that file itself.
    pub fn locate(path: &Path) -> Result<CsvSet, ReadError> {
        let (dir, primary) = if path.is_dir() {
            (path.to_path_buf(), None)
        } else {
            (
                path.parent().map(Path::to_path_buf).unwrap_or_default(),
                path.file_name().map(|n| n.to_string_lossy().to_lowercase()),
            )
        };
        let sets = [
            (
                ListSource::OfacSdn,
                "sdn.csv",
                "alt.csv",
                "add.csv",
                "sdn_comments.csv",
            ),
            (
                ListSource::OfacConsolidated,
                "cons_prim.csv",
                "cons_alt.csv",
                "cons_add.csv",
                "cons_comments.csv",
            ),
        ];
        for (source, main, alt, add, comments) in sets {
            let named = primary.as_deref().is_none_or(|p| p == main);
            let main_path = dir.join(main);
            if named && main_path.is_file() {
                let companion = |name: &str| Some(dir.join(name)).filter(|p| p.is_file());
                return Ok(CsvSet {
                    source,
                    primary: main_path,
                    aliases: companion(alt),
                    addresses: companion(add),
                    comments: companion(comments),
                });
            }
        }
        Err(ReadError::UnknownFormat(path.display().to_string()))
    }
}

const FORMAT: &str = "ofac-csv";

/// The columns of each file of a set.
const PRIMARY_COLUMNS: usize = 12;
const ALIAS_COLUMNS: usize = 5;
const ADDRESS_COLUMNS: usize = 6;
const COMMENT_COLUMNS: usize = 2;

/// The file names of a set, for messages.
struct Files {
    primary: &'static str,
    aliases: &'static str,
    addresses: &'static str,
    comments: &'static str,
}

fn files_of(source: ListSource) -> Files {
    match source {
        ListSource::OfacConsolidated => Files {
            primary: "cons_prim.csv",
            aliases: "cons_alt.csv",
            addresses: "cons_add.csv",
            comments: "cons_comments.csv",
        },
        _ => Files {
            primary: "sdn.csv",
            aliases: "alt.csv",
            addresses: "add.csv",
            comments: "sdn_comments.csv",
        },
    }
}

/// One entry while its files are read.
struct Draft {
    ent_num: String,
    kind: EntryKind,
    name: String,
    programs: Vec<String>,
    call_sign: Option<String>,
    flag: Option<String>,
    remarks: String,
    aliases: Vec<(String, NameQuality)>,
    address_countries: Vec<String>,
}

/// Reads one CSV set.
pub(crate) fn read(
    source: ListSource,
    primary: &[u8],
    aliases: Option<&[u8]>,
    addresses: Option<&[u8]>,
    comments: Option<&[u8]>,
) -> Result<ParsedList, ReadError> {
    let files = files_of(source);
    let mut skipped = Vec::new();
    let mut drafts: Vec<Draft> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();

    for row in records(primary, files.primary, PRIMARY_COLUMNS)? {
        let f = &row.fields;
        let at = |why: String| format!("{} line {}: {why}", files.primary, row.line);
        if f.len() != PRIMARY_COLUMNS {
            skipped.push(at(format!(
                "{} columns, a record has {PRIMARY_COLUMNS}",
                f.len()
            )));
            continue;
        }
        let Some(ent_num) = ent_num(&f[0]) else {
            skipped.push(at(format!("ent_num {:?} is not a number", f[0].trim())));
            continue;
        };
        let Some(name) = value(&f[1]) else {
            skipped.push(at(format!("ent_num {ent_num} has no name")));
            continue;
        };
        if index.contains_key(ent_num) {
            skipped.push(at(format!("ent_num {ent_num} is listed twice")));
            continue;
        }
        index.insert(ent_num.to_owned(), drafts.len());
        drafts.push(Draft {
            ent_num: ent_num.to_owned(),
            kind: kind_of(value(&f[2])),
            name: squeeze(name),
            programs: programs(value(&f[3])),
            call_sign: value(&f[5]).map(squeeze),
            flag: value(&f[9]).map(squeeze),
            // Untrimmed: a continuation may start where a space was cut off.
            remarks: value(&f[11]).map_or_else(String::new, |_| f[11].clone()),
            aliases: Vec::new(),
            address_countries: Vec::new(),
        });
    }

    if let Some(bytes) = comments {
        for row in records(bytes, files.comments, COMMENT_COLUMNS)? {
            let at = |why: String| format!("{} line {}: {why}", files.comments, row.line);
            let Some(i) = companion_of(&row, COMMENT_COLUMNS, &index, &mut skipped, at) else {
                continue;
            };
            // A continuation of remarks the primary file cut (mid-word): appended as is.
            if value(&row.fields[1]).is_some() {
                drafts[i].remarks.push_str(&row.fields[1]);
            }
        }
    }

    if let Some(bytes) = aliases {
        for row in records(bytes, files.aliases, ALIAS_COLUMNS)? {
            let at = |why: String| format!("{} line {}: {why}", files.aliases, row.line);
            let Some(i) = companion_of(&row, ALIAS_COLUMNS, &index, &mut skipped, at) else {
                continue;
            };
            let Some(name) = value(&row.fields[3]) else {
                skipped.push(format!(
                    "{} line {}: the alias of ent_num {} has no name",
                    files.aliases, row.line, drafts[i].ent_num
                ));
                continue;
            };
            let weak =
                value(&row.fields[4]).is_some_and(|r| r.to_ascii_lowercase().contains("weak"));
            let quality = if weak {
                NameQuality::Weak
            } else {
                NameQuality::Strong
            };
            drafts[i].aliases.push((squeeze(name), quality));
        }
    }

    if let Some(bytes) = addresses {
        for row in records(bytes, files.addresses, ADDRESS_COLUMNS)? {
            let at = |why: String| format!("{} line {}: {why}", files.addresses, row.line);
            let Some(i) = companion_of(&row, ADDRESS_COLUMNS, &index, &mut skipped, at) else {
                continue;
            };
            if let Some(country) = value(&row.fields[4]) {
                drafts[i].address_countries.push(squeeze(country));
            }
        }
    }

    Ok(ParsedList {
        source,
        published_at: None,
        entries: drafts.into_iter().map(entry_of).collect(),
        skipped,
        set_aside: Vec::new(),
    })
}

/// The draft an alias, address or comment record belongs to, or `None` with the record
/// named in `skipped`.
fn companion_of(
    row: &Row,
    columns: usize,
    index: &HashMap<String, usize>,
    skipped: &mut Vec<String>,
    at: impl Fn(String) -> String,
) -> Option<usize> {
    if row.fields.len() != columns {
        skipped.push(at(format!(
            "{} columns, a record has {columns}",
            row.fields.len()
        )));
        return None;
    }
    let Some(ent_num) = ent_num(&row.fields[0]) else {
        skipped.push(at(format!(
            "ent_num {:?} is not a number",
            row.fields[0].trim()
        )));
        return None;
    };
    let found = index.get(ent_num).copied();
    if found.is_none() {
        skipped.push(at(format!("ent_num {ent_num} is not in the primary file")));
    }
    found
}

fn entry_of(d: Draft) -> ListEntry {
    let person = d.kind == EntryKind::Person;
    let mut names = NameList::default();
    names.add(&d.name, NameQuality::Strong, person);
    for (alias, quality) in &d.aliases {
        names.add(alias, *quality, person);
    }
    let remarks = parse_remarks(&d.remarks);
    for weak in &remarks.weak_names {
        names.add(weak, NameQuality::Weak, person);
    }

    let mut countries = Countries::default();
    if let Some(flag) = &d.flag {
        countries.add(country(flag));
    }
    for c in &d.address_countries {
        countries.add(country(c));
    }
    for c in remarks.countries {
        countries.add(c);
    }
    let mut nationalities = Countries::default();
    for c in remarks.nationalities {
        nationalities.add(c);
    }

    let mut identifiers = Vec::new();
    if let Some(call_sign) = d.call_sign {
        identifiers.push(ListedIdentifier {
            kind: "call sign".into(),
            value: call_sign,
            country: None,
        });
    }
    for id in remarks.identifiers {
        if !identifiers.contains(&id) {
            identifiers.push(id);
        }
    }
    let mut birth_dates = Vec::new();
    for date in remarks.birth_dates {
        if !birth_dates.contains(&date) {
            birth_dates.push(date);
        }
    }

    ListEntry {
        source_entry_id: d.ent_num,
        kind: d.kind,
        names: names.0,
        birth_dates,
        nationalities: nationalities.0,
        countries: countries.0,
        identifiers,
        programs: d.programs,
        listed_on: None,
        exposure: None,
    }
}

/// An entry's names, deduplicated.
#[derive(Default)]
struct NameList(Vec<ListedName>);

impl NameList {
    fn add(&mut self, name: &str, quality: NameQuality, person: bool) {
        if let Some(reordered) = reorder(name).filter(|_| person) {
            self.push(reordered, quality);
        }
        self.push(name.to_owned(), quality);
    }

    fn push(&mut self, full: String, quality: NameQuality) {
        if full.is_empty() {
            return;
        }
        let key = name_key(&full);
        match self.0.iter_mut().find(|n| name_key(&n.full) == key) {
            Some(existing) => {
                if quality == NameQuality::Strong {
                    existing.quality = NameQuality::Strong;
                }
            }
            None => self.0.push(ListedName { full, quality }),
        }
    }
}

fn name_key(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An entry's countries, deduplicated: by code when the code is known, else by the words.
#[derive(Default)]
struct Countries(Vec<ListedCountry>);

impl Countries {
    fn add(&mut self, c: ListedCountry) {
        let same = |o: &ListedCountry| match (&o.code, &c.code) {
            (Some(a), Some(b)) => a == b,
            (None, None) => name_key(&o.name) == name_key(&c.name),
            _ => false,
        };
        if !c.name.is_empty() && !no_country(&c.name) && !self.0.iter().any(same) {
            self.0.push(c);
        }
    }
}

/// A country as the list wrote it, with its ISO code when known.
fn country(words: &str) -> ListedCountry {
    ListedCountry {
        code: country_code(words).map(str::to_owned),
        name: words.to_owned(),
    }
}

/// The ISO code of a country name, also trying `Man, Isle of` as `Isle of Man` and
/// `St. Kitts & Nevis` as `Saint Kitts and Nevis`.
fn country_code(words: &str) -> Option<&'static str> {
    let iso = crate::countries::iso_code;
    iso(words)
        .or_else(|| {
            let (a, b) = words.split_once(',')?;
            iso(&format!("{} {}", b.trim(), a.trim()))
        })
        .or_else(|| {
            let spelt = words.replace('&', " and ");
            let spelt = spelt
                .strip_prefix("St. ")
                .map_or(spelt.clone(), |r| format!("Saint {r}"));
            (spelt != words).then(|| iso(&spelt)).flatten()
        })
}

/// Words the list writes where it knows no country.
fn no_country(words: &str) -> bool {
    ["undetermined", "none identified", "unknown"]
        .iter()
        .any(|w| words.trim().eq_ignore_ascii_case(w))
}

/// `LAST, First` as `First LAST` (generational suffixes after the surname), or `None` when
/// the name has no given part.
fn reorder(name: &str) -> Option<String> {
    let mut parts = name.split(',').map(str::trim).filter(|p| !p.is_empty());
    let surname = parts.next()?;
    let (mut given, mut suffixes) = (Vec::new(), Vec::new());
    for part in parts {
        if is_suffix(part) {
            suffixes.push(part);
        } else {
            given.push(part);
        }
    }
    if given.is_empty() {
        return None;
    }
    let mut out = given.join(" ");
    out.push(' ');
    out.push_str(surname);
    for s in suffixes {
        out.push(' ');
        out.push_str(s);
    }
    (out != name).then_some(out)
}

fn is_suffix(part: &str) -> bool {
    let p = part.trim_end_matches('.').to_ascii_lowercase();
    matches!(p.as_str(), "jr" | "sr" | "ii" | "iii" | "iv" | "v")
}

fn kind_of(t: Option<&str>) -> EntryKind {
    match t.map(str::to_ascii_lowercase).as_deref() {
        None | Some("entity") => EntryKind::Organisation,
        Some("individual") => EntryKind::Person,
        Some("vessel") => EntryKind::Vessel,
        Some("aircraft") => EntryKind::Aircraft,
        Some(_) => EntryKind::Other,
    }
}

/// `SDGT] [IRGC` → `SDGT`, `IRGC`.
fn programs(column: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in column.unwrap_or_default().split([']', '[']) {
        let p = squeeze(p);
        if !p.is_empty() && p != "-0-" && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Records.

/// One CSV record with its line in the file.
struct Row {
    line: u64,
    fields: Vec<String>,
}

/// The records of one file; `Malformed` when its first record is not one of this kind.
fn records(bytes: &[u8], file: &str, columns: usize) -> Result<Vec<Row>, ReadError> {
    let text = decode(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    let mut lines = Lines {
        text: text.as_bytes(),
        at: 0,
        line: 1,
    };
    for record in reader.records() {
        let record = record.map_err(|e| ReadError::Malformed {
            format: FORMAT,
            detail: format!("{file}: {e}"),
        })?;
        let line = lines.line_at(record.position().map_or(0, |p| p.byte()));
        if record.iter().all(|f| f.trim_matches(is_filler).is_empty()) {
            continue; // a blank line, or the closing Ctrl-Z
        }
        let fields: Vec<String> = record.iter().map(str::to_owned).collect();
        if rows.is_empty() && fields[0].trim().eq_ignore_ascii_case("ent_num") {
            continue; // a header row
        }
        if rows.is_empty() && (fields.len() != columns || ent_num(&fields[0]).is_none()) {
            let mut shown: String = fields.join(",").chars().take(60).collect();
            shown = shown.replace(|c: char| c.is_control(), " ");
            return Err(ReadError::Malformed {
                format: FORMAT,
                detail: format!(
                    "{file} line {line} is not an OFAC record ({} columns, a record has \
                     {columns} with a numeric ent_num first): {shown:?}",
                    fields.len()
                ),
            });
        }
        rows.push(Row { line, fields });
    }
    Ok(rows)
}

/// Line numbers of byte offsets, counted forward (the `csv` crate's own line count lags
/// behind on CRLF line ends, which the OFAC files use).
struct Lines<'a> {
    text: &'a [u8],
    at: usize,
    line: u64,
}

impl Lines<'_> {
    /// The line of the record starting at `byte` (a record's offset may point at the end
    /// of the line before it).
    fn line_at(&mut self, byte: u64) -> u64 {
        let mut start = usize::try_from(byte)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        while start < self.text.len() && matches!(self.text[start], b'\r' | b'\n') {
            start += 1;
        }
        if start > self.at {
            let newlines = self.text[self.at..start].iter().filter(|&&b| b == b'\n');
            self.line += newlines.count() as u64;
            self.at = start;
        }
        self.line
    }
}

/// Windows-1252 (or UTF-8, when the bytes are valid UTF-8) to text.
fn decode(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.strip_prefix('\u{feff}').unwrap_or(text).to_owned();
    }
    bytes.iter().map(|&b| windows_1252(b)).collect()
}

fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

fn is_filler(c: char) -> bool {
    c.is_whitespace() || c == '\u{1a}'
}

/// A column's value, or `None` when empty or `-0-`.
fn value(field: &str) -> Option<&str> {
    let v = field.trim_matches(is_filler);
    (!v.is_empty() && v != "-0-").then_some(v)
}

fn ent_num(field: &str) -> Option<&str> {
    let v = field.trim_matches(is_filler);
    (!v.is_empty() && v.len() <= 18 && v.bytes().all(|b| b.is_ascii_digit())).then_some(v)
}

/// Single spaces, trimmed.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// Remarks.

#[derive(Default, Debug)]
struct Remarks {
    birth_dates: Vec<ListedDate>,
    nationalities: Vec<ListedCountry>,
    countries: Vec<ListedCountry>,
    identifiers: Vec<ListedIdentifier>,
    weak_names: Vec<String>,
}

fn parse_remarks(text: &str) -> Remarks {
    let mut out = Remarks::default();
    for item in text.split(';') {
        let item = squeeze(item);
        let item = item.strip_prefix("alt. ").unwrap_or(&item).trim();
        if item.is_empty() {
            continue;
        }
        if let Some(name) = weak_alias(item) {
            out.weak_names.push(name);
            continue;
        }
        let item = item.strip_suffix('.').unwrap_or(item).trim();
        if let Some(rest) = strip_word(item, "DOB") {
            out.birth_dates.extend(birth_date(rest));
        } else if let Some(rest) = strip_word(item, "POB") {
            out.countries.extend(place_of_birth(rest));
        } else if let Some(rest) = strip_word(item, "Nationality of Registration")
            .or_else(|| strip_word(item, "Other Vessel Flag"))
        {
            if !rest.is_empty() {
                out.countries.push(country(rest));
            }
        } else if let Some(rest) =
            strip_word(item, "nationality").or_else(|| strip_word(item, "citizen"))
        {
            out.nationalities.extend(nationality(rest));
        } else if let Some(id) = identifier(item) {
            out.identifiers.push(id);
        }
    }
    out
}

/// `item` without `word` and the spaces after it, when it starts with the word (ASCII case
/// ignored).
fn strip_word<'a>(item: &'a str, word: &str) -> Option<&'a str> {
    let head = item.get(..word.len())?;
    let rest = &item[word.len()..];
    (head.eq_ignore_ascii_case(word) && (rest.is_empty() || rest.starts_with([' ', ':'])))
        .then(|| rest.trim_start_matches([' ', ':']))
}

/// `a.k.a. 'NAME'` (or `f.k.a.`, `n.k.a.`) → `NAME`.
fn weak_alias(item: &str) -> Option<String> {
    let rest = ["a.k.a.", "f.k.a.", "n.k.a."]
        .iter()
        .find_map(|p| strip_word(item, p))?;
    let mut rest = rest.trim();
    // The item's closing period follows the quote; unquoted, the period is the item's.
    match rest.strip_suffix("'.") {
        Some(r) => rest = &rest[..r.len() + 1],
        None if !rest.ends_with(['\'', '’']) => rest = rest.strip_suffix('.').unwrap_or(rest),
        None => {}
    }
    if let Some(quoted) = rest.strip_prefix(['\'', '‘']) {
        rest = quoted.strip_suffix(['\'', '’']).unwrap_or(quoted);
    }
    let name = squeeze(rest);
    (!name.is_empty()).then_some(name)
}

/// A place of birth's country: the part after the last comma (or the last two parts, for
/// `Korea, North`), or failing that the words in its parentheses, when they are a country
/// `iso_code` knows.
fn place_of_birth(place: &str) -> Option<ListedCountry> {
    let parts: Vec<&str> = place.split(',').map(str::trim).collect();
    let last = parts.last().copied().unwrap_or_default();
    let last_two = (parts.len() >= 2).then(|| parts[parts.len() - 2..].join(", "));
    let plain = match last.find('(') {
        Some(i) => last[..i].trim(),
        None => last,
    };
    let inner = last
        .rfind('(')
        .and_then(|i| last[i + 1..].split(')').next())
        .map(str::trim);
    for words in [last_two.as_deref(), Some(last), Some(plain), inner]
        .into_iter()
        .flatten()
    {
        if let Some(code) = country_code(words).filter(|_| !words.is_empty()) {
            return Some(ListedCountry {
                code: Some(code.to_owned()),
                name: words.to_owned(),
            });
        }
    }
    None
}

fn nationality(words: &str) -> Option<ListedCountry> {
    let words = words.trim();
    if words.is_empty() || no_country(words) {
        return None;
    }
    let bare = strip_word(words, "possibly").unwrap_or(words);
    Some(ListedCountry {
        code: country_code(bare).map(str::to_owned),
        name: words.to_owned(),
    })
}

// ---------------------------------------------------------------------------------------
// Birth dates.

/// A date as written: a year, perhaps a month, perhaps a day.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Written {
    year: i32,
    month: Option<u32>,
    day: Option<u32>,
}

fn birth_date(text: &str) -> Option<ListedDate> {
    let text = text.trim();
    if let Some(rest) = strip_word(text, "circa") {
        let (from, to) = span(rest)?;
        return Some(ListedDate::Years {
            from: from.year - 1,
            to: to.year + 1,
        });
    }
    let (from, to) = span(text)?;
    Some(narrowest(from, to))
}

/// `A to B`, `YYYY-YYYY` or a single date, as its first and last written dates.
fn span(text: &str) -> Option<(Written, Written)> {
    let text = text.trim();
    if let Some(w) = written(text) {
        return Some((w, w));
    }
    let (a, b) = text
        .split_once(" to ")
        .or_else(|| text.split_once(" - "))
        .or_else(|| text.split_once('-'))?;
    let (a, b) = (written(a)?, written(b)?);
    Some(if (a.year, a.month, a.day) <= (b.year, b.month, b.day) {
        (a, b)
    } else {
        (b, a)
    })
}

/// `12 Jan 1960`, `Jan 1960` or `1960`.
fn written(text: &str) -> Option<Written> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let year = |w: &str| -> Option<i32> {
        (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
            .then(|| w.parse().ok())
            .flatten()
    };
    match words.as_slice() {
        [y] => Some(Written {
            year: year(y)?,
            month: None,
            day: None,
        }),
        [m, y] => Some(Written {
            year: year(y)?,
            month: Some(month(m)?),
            day: None,
        }),
        [d, m, y] => {
            let day: u32 = (d.len() <= 2).then(|| d.parse().ok()).flatten()?;
            Some(Written {
                year: year(y)?,
                month: Some(month(m)?),
                day: (1..=31).contains(&day).then_some(day),
            })
        }
        _ => None,
    }
}

fn month(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    let head = w.get(..3)?;
    let i = MONTHS.iter().position(|m| *m == head)?;
    // `Jan`, `January`, `Sept`: the rest must continue the month's name.
    const FULL: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    FULL[i].starts_with(w.as_str()).then_some(i as u32 + 1)
}

/// The narrowest [`ListedDate`] holding every day from `a` to `b`.
fn narrowest(a: Written, b: Written) -> ListedDate {
    if a.year != b.year {
        return ListedDate::Years {
            from: a.year,
            to: b.year,
        };
    }
    match (a.month, b.month) {
        (Some(m), Some(n)) if m == n => {
            let same_day = a.day.filter(|_| a.day == b.day);
            if let Some(date) = same_day.and_then(|d| NaiveDate::from_ymd_opt(a.year, m, d)) {
                return ListedDate::Day(date);
            }
            // A whole month, a part of one, or a day that does not exist (`31 Feb`).
            ListedDate::Month {
                year: a.year,
                month: m,
            }
        }
        _ => ListedDate::Year(a.year),
    }
}

// ---------------------------------------------------------------------------------------
// Identifiers.

/// The identifier kinds of the remarks, as the list writes them, and whether the value
/// must hold a digit (a `SWIFT/BIC` code or a tail number like `EP-MMH` need not). An item starting with one of these is
/// an identifier with or without a `(country)`.
const ID_KINDS: &[(&str, bool)] = &[
    ("Passport", true),
    ("Diplomatic Passport", true),
    ("Passport Booklet", true),
    ("Travel Document Number", true),
    ("National ID No.", true),
    ("National Foreign ID Number", true),
    ("Personal ID Card", true),
    ("Kenyan ID No.", true),
    ("Moroccan Personal ID No.", true),
    ("Tazkira National ID Card", true),
    ("Turkish Identification Number", true),
    ("Citizen's Card Number", true),
    ("Numero de Identidad", true),
    ("Identification Number", true),
    ("Cedula No.", true),
    ("D.N.I.", true),
    ("C.U.R.P.", true),
    ("C.U.I.P.", true),
    ("C.U.I.T.", true),
    ("C.U.I.", true),
    ("C.I.F.", true),
    ("R.F.C.", true),
    ("RFC", true),
    ("I.F.E.", true),
    ("Credencial electoral", true),
    ("Electoral Registry No.", true),
    ("Cartilla de Servicio Militar Nacional", true),
    ("Driver's License No.", true),
    ("Residency Number", true),
    ("Birth Certificate Number", true),
    ("LE Number", true),
    ("SSN", true),
    ("Italian Fiscal Code", true),
    ("Fiscal Code", true),
    ("N.I.E.", true),
    ("Immigration No.", true),
    ("Pilot License Number", true),
    ("Tax ID No.", true),
    ("NIT #", true),
    ("RUC #", true),
    ("RIF #", true),
    ("RTN", true),
    ("US FEIN", true),
    ("V.A.T. Number", true),
    ("Registration Number", true),
    ("Registration ID", true),
    ("Business Registration Document #", true),
    ("Business Registration Number", true),
    ("Business Number", true),
    ("Public Registration Number", true),
    ("Commercial Registry Number", true),
    ("Company Number", true),
    ("UK Company Number", true),
    ("Certificate of Incorporation Number", true),
    ("Chamber of Commerce Number", true),
    ("Government Gazette Number", true),
    ("Folio Mercantil No.", true),
    ("Matricula Mercantil No", true),
    ("Trade License No.", true),
    ("C.R. No.", true),
    ("Enterprise Number", true),
    ("Branch Unit Number", true),
    ("Registered Charity No.", true),
    ("Legal Entity Number", true),
    ("D-U-N-S Number", true),
    ("Unified Social Credit Code (USCC)", true),
    ("United Social Credit Code Certificate (USCCC)", true),
    ("File Number", true),
    ("BIK (RU)", true),
    ("SWIFT/BIC", false),
    ("Vessel Registration Identification", true),
    ("MMSI", true),
    ("Aircraft Tail Number", false),
    ("Aircraft Manufacturer's Serial Number (MSN)", true),
    (
        "Aircraft Construction Number (also called L/N or S/N or F/N)",
        true,
    ),
];

/// An identifier item: a known kind, a digital currency address, or any other
/// `<kind> <value> (<country>)` whose country maps.
fn identifier(item: &str) -> Option<ListedIdentifier> {
    if let Some(rest) = strip_word(item, "Digital Currency Address -") {
        let (currency, address) = rest.split_once(' ')?;
        let address = address.trim();
        return (!currency.is_empty() && !address.is_empty() && !address.contains(' ')).then(
            || ListedIdentifier {
                kind: format!(
                    "digital currency address - {}",
                    currency.to_ascii_lowercase()
                ),
                value: address.to_owned(),
                country: None,
            },
        );
    }
    let known = ID_KINDS
        .iter()
        .filter_map(|&(kind, digit)| Some((kind, digit, strip_word(item, kind)?)))
        .max_by_key(|(kind, _, _)| kind.len());
    if let Some((kind, digit, rest)) = known {
        let (value, country) = value_and_country(rest);
        let ok = !value.is_empty()
            && (!digit || value.bytes().any(|b| b.is_ascii_digit()))
            && value.chars().any(char::is_alphanumeric);
        return ok.then(|| ListedIdentifier {
            kind: kind.to_lowercase(),
            value,
            country: country.map(str::to_owned),
        });
    }
    // `<kind> <value> (<country>)`: the value starts at the first word with a digit.
    let body = without_dates(item);
    let (_, country) = last_group(body)?;
    let code = country_code(country)?;
    let words: Vec<&str> = item.split(' ').collect();
    let first = words
        .iter()
        .position(|w| w.bytes().any(|b| b.is_ascii_digit()))?;
    let kind = words[..first].join(" ");
    if first == 0 || first > 6 || kind.contains(':') || kind.contains('(') {
        return None;
    }
    let (value, _) = value_and_country(&words[first..].join(" "));
    (!value.is_empty()).then(|| ListedIdentifier {
        kind: kind.to_lowercase(),
        value,
        country: Some(code.to_owned()),
    })
}

/// The value of an identifier item after its kind, and its country's ISO code: trailing
/// `issued …`/`expires …` dropped, then trailing `(…)` groups (the last one the country).
fn value_and_country(rest: &str) -> (String, Option<&'static str>) {
    let mut body = without_dates(rest);
    let mut country = None;
    let mut first = true;
    while let Some((before, inner)) = last_group(body) {
        if first {
            country = country_code(inner);
            first = false;
        }
        body = before;
    }
    let value = body.trim().trim_start_matches(['#', ':', ' ']).trim();
    (squeeze(value), country)
}

/// `text` without a trailing ` issued …` and ` expires …`.
fn without_dates(text: &str) -> &str {
    let mut body = text.trim();
    for marker in [" expires ", " issued "] {
        if let Some(i) = body.rfind(marker) {
            body = body[..i].trim_end();
        }
    }
    body
}

/// A trailing ` (…)` group: the text before it and the words inside.
fn last_group(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_end();
    let inner_end = text.strip_suffix(')')?;
    let open = inner_end.rfind('(')?;
    let before = &inner_end[..open];
    // `D489833(9)` is a value, not a value and a group.
    if !before.is_empty() && !before.ends_with(' ') {
        return None;
    }
    Some((before.trim_end(), inner_end[open + 1..].trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> ListedDate {
        ListedDate::Day(NaiveDate::from_ymd_opt(y, m, d).unwrap())
    }

    #[test]
    fn birth_dates_keep_the_precision_written_and_ranges_widen() {
        let cases = [
            ("12 Jan 1960", Some(day(1960, 1, 12))),
            (
                "Jan 1960",
                Some(ListedDate::Month {
                    year: 1960,
                    month: 1,
                }),
            ),
            ("1960", Some(ListedDate::Year(1960))),
            (
                "circa 1960",
                Some(ListedDate::Years {
                    from: 1959,
                    to: 1961,
                }),
            ),
            (
                "circa 07 Jul 1966",
                Some(ListedDate::Years {
                    from: 1965,
                    to: 1967,
                }),
            ),
            (
                "circa 1979-1982",
                Some(ListedDate::Years {
                    from: 1978,
                    to: 1983,
                }),
            ),
            (
                "1958 to 1962",
                Some(ListedDate::Years {
                    from: 1958,
                    to: 1962,
                }),
            ),
            ("01 Jan 1973 to 31 Dec 1973", Some(ListedDate::Year(1973))),
            (
                "01 Oct 1992 to 31 Oct 1992",
                Some(ListedDate::Month {
                    year: 1992,
                    month: 10,
                }),
            ),
            (
                "01 Jan 1961 to 31 Dec 1963",
                Some(ListedDate::Years {
                    from: 1961,
                    to: 1963,
                }),
            ),
            (
                "Mar 1962 to Feb 1963",
                Some(ListedDate::Years {
                    from: 1962,
                    to: 1963,
                }),
            ),
            ("26 Sep 1946 to 07 Dec 1946", Some(ListedDate::Year(1946))),
            (
                "31 Feb 1960",
                Some(ListedDate::Month {
                    year: 1960,
                    month: 2,
                }),
            ),
            (
                "1962 to 1958",
                Some(ListedDate::Years {
                    from: 1958,
                    to: 1962,
                }),
            ),
            ("12 September 1960", Some(day(1960, 9, 12))),
            ("unknown", None),
            ("", None),
            ("12 Foo 1960", None),
            (
                "99 Jan 1960",
                Some(ListedDate::Month {
                    year: 1960,
                    month: 1,
                }),
            ),
            ("123 Jan 1960", None),
            ("circa", None),
            ("1960 to", None),
        ];
        for (text, want) in cases {
            assert_eq!(birth_date(text), want, "{text:?}");
        }
    }

    #[test]
    fn remarks_give_dates_places_nationalities_identifiers_and_weak_names() {
        let r = parse_remarks(
            "DOB 18 Dec 1969; alt. DOB 25 May 1968; POB Tunis, Tunisia; alt. POB Naples, \
             Italy; POB Kaziba, Congo, Democratic Republic of the; POB Shati; POB Tunisi (Tunisia); nationality Tunisia; citizen Korea, \
             North; nationality None Identified; Passport G737411 (Tunisia) issued 24 Oct \
             1990 expires 20 Sep 1997; alt. Passport 0801888 (Bosnia and Herzegovina); \
             Folio Mercantil No. 22839 (Jalisco) (Mexico); National ID No. D489833(9) (Hong \
             Kong); NIT # 800146749-7 (Colombia); RUC # 20108363101 (Peru); Gender Male; \
             Linked To: ISLAMIC REVOLUTIONARY GUARD CORPS (IRGC)-QODS FORCE; Telephone \
             (98)(9121115315); SWIFT/BIC PIBPGB2L; Digital Currency Address - XBT \
             12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h; Zimbabwean Air Marshal (Air Force); \
             a.k.a. 'ABU THALE'; a.k.a. 'THABIT 'IZ'; f.k.a. 'CO. LTD.'.",
        );
        assert_eq!(r.birth_dates, [day(1969, 12, 18), day(1968, 5, 25)]);
        let codes: Vec<_> = r.countries.iter().map(|c| c.code.as_deref()).collect();
        assert_eq!(codes, [Some("TN"), Some("IT"), Some("CD"), Some("TN")]);
        assert_eq!(r.countries[2].name, "Congo, Democratic Republic of the");
        assert_eq!(r.countries[3].name, "Tunisia");
        assert_eq!(
            r.nationalities,
            [country("Tunisia"), country("Korea, North")]
        );
        assert_eq!(r.nationalities[1].code.as_deref(), Some("KP"));
        let ids: Vec<_> = r
            .identifiers
            .iter()
            .map(|i| (i.kind.as_str(), i.value.as_str(), i.country.as_deref()))
            .collect();
        assert_eq!(
            ids,
            [
                ("passport", "G737411", Some("TN")),
                ("passport", "0801888", Some("BA")),
                ("folio mercantil no.", "22839", Some("MX")),
                ("national id no.", "D489833(9)", Some("HK")),
                ("nit #", "800146749-7", Some("CO")),
                ("ruc #", "20108363101", Some("PE")),
                ("swift/bic", "PIBPGB2L", None),
                (
                    "digital currency address - xbt",
                    "12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h",
                    None
                ),
            ]
        );
        assert_eq!(r.weak_names, ["ABU THALE", "THABIT 'IZ", "CO. LTD."]);
    }

    #[test]
    fn generic_identifiers_need_a_country_that_maps() {
        let id = identifier("Kazakh Residence Permit 12345 (Kazakhstan)").unwrap();
        assert_eq!(
            (id.kind.as_str(), id.value.as_str(), id.country.as_deref()),
            ("kazakh residence permit", "12345", Some("KZ"))
        );
        assert_eq!(identifier("Member 12345 (of something)"), None);
        assert_eq!(identifier("Phone Number 982188526300"), None);
        assert_eq!(
            identifier("Organization Established Date 17 Dec 2016"),
            None
        );
        let id = identifier("Tax ID No. AABA 670850 Y").unwrap();
        assert_eq!((id.value.as_str(), id.country), ("AABA 670850 Y", None));
        let id = identifier("Vessel Registration Identification IMO 9187629").unwrap();
        assert_eq!(id.kind, "vessel registration identification");
        assert_eq!(id.value, "IMO 9187629");
        assert_eq!(identifier("Passport expired"), None);
    }

    #[test]
    fn individuals_names_are_reordered_and_kept_as_written() {
        assert_eq!(
            reorder("AMDOUNI, Mehrez").as_deref(),
            Some("Mehrez AMDOUNI")
        );
        assert_eq!(
            reorder("DELOS REYES, Feliciano Semborio, Jr.").as_deref(),
            Some("Feliciano Semborio DELOS REYES Jr.")
        );
        assert_eq!(
            reorder("KNOWLES, JR., Samuel").as_deref(),
            Some("Samuel KNOWLES JR.")
        );
        assert_eq!(reorder("ABU ZUBAYDAH"), None);
        assert_eq!(reorder("SANTOSO,"), None);
        assert_eq!(reorder(",,"), None);
        let mut names = NameList::default();
        names.add("KIM, Jong Un", NameQuality::Strong, true);
        names.add("Jong  Un KIM", NameQuality::Weak, true);
        names.add("kim, jong un", NameQuality::Strong, true);
        let got: Vec<_> = names
            .0
            .iter()
            .map(|n| (n.full.as_str(), n.quality))
            .collect();
        assert_eq!(
            got,
            [
                ("Jong Un KIM", NameQuality::Strong),
                ("KIM, Jong Un", NameQuality::Strong)
            ]
        );
    }

    #[test]
    fn bytes_are_windows_1252_unless_valid_utf8() {
        assert_eq!(decode(b"JOS\xc9 \x80 \x93x\x94 \x81"), "JOSÉ € “x” \u{81}");
        assert_eq!(decode("JOSÉ".as_bytes()), "JOSÉ");
        assert_eq!(decode(b"\xef\xbb\xbfA"), "A");
    }

    #[test]
    fn records_skip_the_ctrl_z_and_refuse_another_format() {
        let rows = records(b"1,\"A\"\r\n\r\n2,\"B\nC\"\r\n3,D\r\n\x1a", "alt.csv", 2).unwrap();
        let lines: Vec<u64> = rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 3, 5]);
        for garbage in [
            &b"<?xml version=\"1.0\"?><CONSOLIDATED_LIST/>"[..],
            b"\x00\x01\x02\xff\xfe,,\"\n\"",
            b"ent_num,name\nfoo,bar\n",
        ] {
            assert!(matches!(
                records(garbage, "sdn.csv", 12),
                Err(ReadError::Malformed {
                    format: "ofac-csv",
                    ..
                })
            ));
        }
    }

    #[test]
    fn odd_remarks_never_panic() {
        for text in [
            "",
            ";",
            ";;;",
            "DOB",
            "DOB ",
            "DOB circa",
            "POB",
            "POB ,",
            "POB ((",
            "POB )(",
            "a.k.a.",
            "a.k.a. '",
            "a.k.a. ''.",
            "Passport",
            "Passport (",
            "Passport )",
            "Passport 1 (",
            "X 1 ()",
            "X 1 (Sweden",
            "Digital Currency Address -",
            "Digital Currency Address - XBT",
            "nationality",
            "citizen ",
            "é 1 (é)",
            "(1)",
            "1 (Sweden)",
            "ÅÄÖ ÅÄÖ 123 (Sverige) issued",
            "DOB 1 Jan 99999",
            "DOB ０１ Jan 1960",
        ] {
            let _ = parse_remarks(text);
        }
    }
}
