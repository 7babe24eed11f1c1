//! OFAC's advanced XML (`SDN_ADVANCED.XML`, the UN sanctions data model), read into
//! [`ParsedList`] for [`ListSource::OfacSdn`].
//!
//! # The file
//!
//! One root `Sanctions` holding, in this order: `DateOfIssue`; `ReferenceValueSets` (every
//! coded value the file uses, each an element with a numeric `ID`: `AliasType`,
//! `PartySubType`, `FeatureType`, `Country`, ...); `Locations` (addresses and places, by
//! `ID`); `IDRegDocuments` (identity documents, each tied to an `Identity` by `IdentityID`);
//! `DistinctParties` (the designated persons, organisations, vessels and aircraft);
//! `ProfileRelationships`; `SanctionsEntries` (the listing of a party's `Profile`, by
//! `ProfileID`: the listing date and the programmes); `SanctionsEntryLinks`. Everything
//! inside refers to the reference values, locations and documents by ID, so a party can
//! only be understood against what came before it, and its listing only once it is read.
//! Published files use OFAC's namespace,
//! `https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADVANCED_XML`;
//! the schema's own is `http://www.un.org/sanctions/1.0`. Elements are matched by their
//! local names, so either (or a prefixed form) reads the same.
//!
//! # Streaming and memory
//!
//! A complete file is about 120 MB. It is streamed with `quick-xml`: one record (one
//! reference value set, `Location`, `IDRegDocument`, `DistinctParty` or `SanctionsEntry`)
//! is gathered at a time into a small owned tree, mapped, and dropped; elements nested
//! deeper than [`MAX_DEPTH`] inside a record (no part of the format is) are not kept. What
//! stays in memory while reading is what later records refer to: the reference values (a
//! few hundred KB), the locations' countries and words, the documents not yet claimed by
//! their party (freed as each party is read), the entries read so far and an index from
//! profile to entry. That is the size of the output plus a few MB, never a tree of the
//! file; the file's own bytes are held by the caller ([`crate::read_path`] reads them
//! whole, to digest them). Measured on a 157 MB file of 10,000 copies of a real party
//! (release build): 2.4 s, 179 MB peak resident, the file's bytes included.
//!
//! # The mapping
//!
//! - **Entry.** One [`ListEntry`] per `DistinctParty`; `source_entry_id` is its `FixedRef`,
//!   the number the legacy CSV calls `ent_num`, so both formats name an entry alike.
//! - **Kind.** `Profile/@PartySubTypeID` → `PartySubType` (`Vessel` → [`EntryKind::Vessel`],
//!   `Aircraft` → [`EntryKind::Aircraft`]), else its `PartyTypeID` → `PartyType`
//!   (`Individual` → `Person`, `Entity` → `Organisation`, anything else → `Other`).
//! - **Names.** Every `Identity/Alias/DocumentedName` is a name; its text is the
//!   `DocumentedNamePart/NamePartValue`s in document order, each part's type
//!   (`Last Name`, `First Name`, `Middle Name`, `Entity Name`, ...) read from the identity's
//!   `NamePartGroups` (`NamePartGroupID` → `NamePartTypeID` → `NamePartType`). An
//!   individual's name with a `Last Name` and other parts is kept twice, like the CSV
//!   reader does: in natural order (`'Adnan Muhammad Amin al-Rawi`: the other parts in
//!   document order, then the surname), first, and in the list's own `LAST, Given` form
//!   (`al-Rawi, 'Adnan Muhammad Amin`, the form the legacy files print). Other names (and a
//!   part whose group the identity does not declare) keep document order, joined by single
//!   spaces. The first `Alias` with `Primary="true"` (of the primary `Identity` first) is
//!   the primary name: its Latin-script `DocumentedName` comes first, its names in other
//!   scripts (`ScriptID` → `Script`, e.g. Arabic, Cyrillic) follow, all
//!   [`NameQuality::Strong`]; then every other alias in file order, `A.K.A.`, `F.K.A.` and
//!   `N.K.A.` alike, [`NameQuality::Weak`] when `LowQuality="true"`, else strong. A party
//!   without a primary name is skipped. Names are deduplicated ignoring case and spacing,
//!   the first spelling kept, strong winning over weak.
//! - **Features** (`Feature/@FeatureTypeID` → `FeatureType`; each `FeatureVersion` read):
//!   - `Birthdate` → `birth_dates`: each `DatePeriod` (`Start`/`End`, each `From`/`To`,
//!     each `Year`/`Month`/`Day`) becomes the narrowest [`ListedDate`] that covers every
//!     day between its earliest and latest point: one day, one month, one year, or the
//!     span of years. A boundary marked `Approximate="true"` widens the span by a year each
//!     side, as the CSV reader does for `circa`: screening must not lose a true match to a
//!     precision the list does not have.
//!   - `Nationality Country`, `Citizenship Country` → `nationalities`.
//!   - `Place of Birth` → `countries` when its country is known (`Riyadh, Saudi Arabia` →
//!     SA; a town alone ties none).
//!   - `Location` (addresses), `Vessel Flag`, `Other Vessel Flag`, `Nationality of
//!     Registration`, `Registration Country` → `countries` (`Former Vessel Flag` ties none).
//!   - `Vessel Call Sign`/`Other Vessel Call Sign` (kind `call sign`), `SWIFT/BIC`,
//!     `Aircraft Tail Number`, the aircraft serial and construction numbers, `D-U-N-S
//!     Number`, `BIK (RU)` and `Digital Currency Address - …` → `identifiers`, the kind the
//!     feature type lower-cased, the value the detail text.
//!   - Every other feature (gender, title, websites, directives, vessel tonnage, ...) has no
//!     place in the domain and is not read.
//!
//!   A feature's value is a `VersionDetail`'s text (a `LOOKUP` detail's `DetailReference`),
//!   or a `VersionLocation`'s `Location`. A location's country is its `LocationCountry`
//!   (`Country`: the list's words and its `ISO2` code, or the code
//!   [`crate::countries::iso_code`] knows for the words), else its `LocationAreaCode`'s
//!   country, else the first of its part values that names a country; a nationality
//!   location whose words name none keeps the words without a code (published files write
//!   nationalities as a location holding only the words, `Egypt`). `undetermined`,
//!   `unknown` and `None Identified` tie no country. Countries are deduplicated by code,
//!   else by words.
//! - **Identifiers.** Each `IDRegDocument` with an `IDRegistrationNo` tied to one of the
//!   party's identities: kind the `IDRegDocType` lower-cased (`passport`, `cedula no.`,
//!   `national id no.`), value the number as written, country the `ISO2` code of
//!   `IssuedBy-CountryID`. Documents marked fraudulent (`ValidityID`) are identifiers too:
//!   the number is still one the person used.
//! - **Listing.** Each `SanctionsEntry` is merged into the party whose `Profile` its
//!   `ProfileID` names: `listed_on` is the earliest `EntryEvent/Date` of type `Created`;
//!   the programmes are the `Comment` of every `SanctionsMeasure` of type `Program`
//!   (`CUBA`, `SDGT`), and the `SanctionsProgram` of an `EntryEvent`'s `LegalBasis` unless
//!   it is `Unknown` (published files give every legal basis the programme `Unknown`).
//!   A party without a `SanctionsEntry` has no programmes and no listing date.
//! - **Publication.** `DateOfIssue` is `published_at`, at midnight UTC.
//! - **Text.** Values have their whitespace collapsed and trimmed; the five XML entities
//!   and character references are resolved (another entity skips its record); CDATA is
//!   text; comments and processing instructions are not read.
//! - **Not read.** `ProfileRelationships` and `SanctionsEntryLinks` (links between parties:
//!   no place in the domain), `Comment`s other than a programme's, reliability, document
//!   dates and issuing authorities, street parts of addresses, `ListID` (a consolidated
//!   advanced file would be read as SDN entries: import the SDN file under this format).
//!
//! # What is refused, and what is skipped
//!
//! Not well-formed XML, a root that is not `Sanctions`, a file without
//! `ReferenceValueSets` or `DistinctParties`, a file that ends before its root closes (a
//! truncated download), and a *delta* file (`DeltaBaseVersion` on the root: changes, not a
//! list) are [`ReadError::Malformed`]. Within a good file a record the reader cannot
//! understand is skipped whole and named in [`ParsedList::skipped`]: a `DistinctParty`
//! (`DistinctParty <FixedRef>: <why>`) that refers to a reference value, location or
//! document the file does not define (`unknown FeatureTypeID 999`), or holds a date that
//! is not one (`Month` 13, 30 February) or in another calendar than the Gregorian, an
//! unknown entity, no primary name, no `FixedRef` or a `FixedRef` already read; a party
//! whose `SanctionsEntry` cannot be understood (it is named as the party); a
//! `SanctionsEntry` for no party; a reference value, location or document without a
//! readable `ID`; a document claimed by no identity. Reference IDs are resolved where the
//! reader uses the value; IDs it has no use for (reliability, document name status, ...)
//! are not looked up.
//!
//! # What a complete file adds
//!
//! The test document (`testdata/ofac_advanced/`) is assembled from real fragments: five
//! parties and the reference values they use. A complete publication holds every SDN (the
//! July 2021 legacy CSV set in `testdata/` has 8,976) and the full reference value sets
//! (hundreds of countries, document types, programmes and feature types), and with them
//! what the test document lacks: names in other scripts (Arabic, Cyrillic, Chinese: kept as
//! further names), vessels and aircraft with flags, call signs and tail numbers, digital
//! currency addresses, citizenship features, approximate and ranged birth dates, parties
//! with several identities, and thousands of `ProfileRelationships` (not read). The module's
//! unit tests cover those shapes on small synthetic documents.

use crate::countries::iso_code;
use crate::text::{covering, push_unique, value};
use crate::xml::{self, Element, Layout, Naming, RecordTree};
use crate::ReadError;
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality, ParsedList,
};
use quick_xml::events::BytesStart;
use std::collections::{HashMap, HashSet};

const FORMAT: &str = "ofac-advanced-xml";

const LAYOUT: Layout = Layout {
    format: FORMAT,
    root: "Sanctions",
    naming: Naming::Local,
    expand_empty_elements: true,
    refuse_cdata_outside_root: false,
};

/// Elements nested deeper than this inside one record are not kept (the deepest part of
/// the format, a birth date's `Year`, is 7 levels below its `DistinctParty`).
const MAX_DEPTH: usize = 16;

fn malformed(detail: impl Into<String>) -> ReadError {
    xml::malformed(FORMAT, detail)
}

/// Reads a whole file of this format.
pub(crate) fn read(xml: &[u8]) -> Result<ParsedList, ReadError> {
    let mut parser = Parser::default();
    xml::read(xml, &LAYOUT, &mut parser)?;
    for (seen, section) in [
        (parser.seen_reference_values, "ReferenceValueSets"),
        (parser.seen_parties, "DistinctParties"),
    ] {
        if !seen {
            return Err(malformed(format!("no <{section}> section")));
        }
    }
    Ok(parser.reading.finish())
}

/// The top-level sections read record by record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Section {
    ReferenceValues,
    Locations,
    Documents,
    Parties,
    Entries,
    /// `DateOfIssue`, `ProfileRelationships`, `SanctionsEntryLinks`, anything else.
    Other,
}

impl Section {
    fn of(name: &str) -> Section {
        match name {
            "ReferenceValueSets" => Section::ReferenceValues,
            "Locations" => Section::Locations,
            "IDRegDocuments" => Section::Documents,
            "DistinctParties" => Section::Parties,
            "SanctionsEntries" => Section::Entries,
            _ => Section::Other,
        }
    }
}

/// The section and the record being gathered.
#[derive(Default)]
struct Parser {
    seen_reference_values: bool,
    seen_parties: bool,
    /// The section open at depth 1, if any.
    section: Option<Section>,
    record: Option<RecordTree>,
    reading: Reading,
}

impl xml::Handler for Parser {
    fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError> {
        if let Some(builder) = self.record.as_mut() {
            builder.open(start).map_err(malformed)?;
        } else {
            let name = start.local_name();
            let name = name.as_ref();
            match depth {
                0 => {
                    let root = record(start)?.close().unwrap_or_default();
                    if root.attr("DeltaBaseVersion").is_some() {
                        return Err(malformed(
                            "a delta file (DeltaBaseVersion on the root): changes to a list, not a list",
                        ));
                    }
                }
                1 => {
                    let section = Section::of(name);
                    self.seen_reference_values |= section == Section::ReferenceValues;
                    self.seen_parties |= section == Section::Parties;
                    self.section = Some(section);
                    if name == "DateOfIssue" {
                        self.record = Some(record(start)?);
                    }
                }
                2 if self.section.is_some_and(|s| s != Section::Other) => {
                    self.record = Some(record(start)?);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn close(&mut self, depth: usize) {
        if let Some(builder) = self.record.as_mut() {
            if let Some(node) = builder.close() {
                self.record = None;
                match (depth, self.section) {
                    (1, _) => self.reading.issue = Some(node),
                    (_, Some(section)) => self.reading.take(section, node),
                    _ => {}
                }
            }
        }
        if depth == 1 && self.record.is_none() {
            self.section = None;
        }
    }

    fn text(&mut self, _depth: usize, text: &str) {
        if let Some(builder) = self.record.as_mut() {
            builder.text(text);
        }
    }

    fn unreadable(&mut self, why: String) {
        if let Some(builder) = self.record.as_mut() {
            builder.unreadable(why);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Records as small trees (`xml::Element`), and what this format reads off them.

/// The format's numeric IDs and flags, read off an element's attributes.
trait Attributes {
    /// A numeric ID attribute, if present.
    fn id(&self, name: &str) -> Result<Option<u64>, String>;
    fn required_id(&self, name: &str) -> Result<u64, String>;
    /// An `xsd:boolean` attribute; absent is false.
    fn flag(&self, name: &str) -> bool;
}

impl Attributes for Element {
    fn id(&self, name: &str) -> Result<Option<u64>, String> {
        match self.attr(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("unreadable {name} {v:?} in <{}>", self.name)),
        }
    }

    fn required_id(&self, name: &str) -> Result<u64, String> {
        self.id(name)?
            .ok_or_else(|| format!("<{}> without {name}", self.name))
    }

    fn flag(&self, name: &str) -> bool {
        matches!(self.attr(name), Some("true" | "1"))
    }
}

/// A record opened by `start`, or the file refused when its attributes cannot be read.
fn record(start: &BytesStart<'_>) -> Result<RecordTree, ReadError> {
    let (tree, read) = RecordTree::new(start, LAYOUT.naming, MAX_DEPTH);
    read.map_err(malformed)?;
    Ok(tree)
}

// ---------------------------------------------------------------------------------------
// What the records say.

/// A `Location`, as far as the reader uses it.
struct Place {
    /// `LocationCountry/@CountryID`s.
    countries: Vec<u64>,
    /// `LocationAreaCode/@AreaCodeID`s.
    area_codes: Vec<u64>,
    /// The `LocationPart` values, in order.
    words: Vec<String>,
}

/// An `IDRegDocument`, its references not yet resolved.
struct Document {
    id: u64,
    kind: u64,
    number: Option<String>,
    country: Option<u64>,
}

/// How the reader uses a feature type.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Use {
    BirthDate,
    Nationality,
    PlaceOfBirth,
    Country,
    Identifier(String),
    Nothing,
}

impl Use {
    fn of(feature_type: &str) -> Use {
        match feature_type {
            "Birthdate" => Use::BirthDate,
            "Nationality Country" | "Citizenship Country" => Use::Nationality,
            "Place of Birth" => Use::PlaceOfBirth,
            "Location"
            | "Vessel Flag"
            | "Other Vessel Flag"
            | "Nationality of Registration"
            | "Registration Country" => Use::Country,
            "Vessel Call Sign" | "Other Vessel Call Sign" => Use::Identifier("call sign".into()),
            "SWIFT/BIC"
            | "Aircraft Tail Number"
            | "Aircraft Manufacturer's Serial Number (MSN)"
            | "Aircraft Construction Number (also called L/N or S/N or F/N)"
            | "D-U-N-S Number"
            | "BIK (RU)" => Use::Identifier(feature_type.to_lowercase()),
            t if t.starts_with("Digital Currency Address - ") => Use::Identifier(t.to_lowercase()),
            _ => Use::Nothing,
        }
    }
}

/// Everything read so far.
#[derive(Default)]
struct Reading {
    /// The `DateOfIssue` element, read once the calendars are known.
    issue: Option<Element>,
    /// Reference values by element name (`Country`, `FeatureType`, ...) and ID.
    refs: HashMap<String, HashMap<u64, Element>>,
    locations: HashMap<u64, Result<Place, String>>,
    /// Documents by the `IdentityID` they belong to, until their party claims them.
    documents: HashMap<u64, Vec<Result<Document, String>>>,
    entries: Vec<ListEntry>,
    /// Why an entry read whole must be skipped after all (its `SanctionsEntry`), by index.
    doomed: Vec<Option<String>>,
    fixed_refs: HashSet<String>,
    /// Profile ID → index in `entries`.
    profiles: HashMap<u64, usize>,
    /// The profiles of skipped parties: their sanctions entries are not named again.
    skipped_profiles: HashSet<u64>,
    skipped: Vec<String>,
}

impl Reading {
    fn take(&mut self, section: Section, node: Element) {
        match section {
            Section::ReferenceValues => self.take_reference_values(node),
            Section::Locations => self.take_location(node),
            Section::Documents => self.take_document(node),
            Section::Parties => self.take_party(node),
            Section::Entries => self.take_sanctions_entry(node),
            Section::Other => {}
        }
    }

    fn take_reference_values(&mut self, set: Element) {
        for v in set.children {
            let id = v
                .required_id("ID")
                .and_then(|id| v.bad.clone().map_or(Ok(id), Err));
            let id = match id {
                Ok(id) => id,
                Err(why) => {
                    self.skipped.push(format!(
                        "reference value <{}> {:?}: {why}",
                        v.name,
                        v.text.trim()
                    ));
                    continue;
                }
            };
            self.refs
                .entry(v.name.clone())
                .or_default()
                .entry(id)
                .or_insert(v);
        }
    }

    fn take_location(&mut self, node: Element) {
        let id = match node.required_id("ID") {
            Ok(id) => id,
            Err(why) => return self.skipped.push(format!("a Location: {why}")),
        };
        let place = (|| {
            if let Some(why) = node.first_bad() {
                return Err(why.to_owned());
            }
            let mut place = Place {
                countries: Vec::new(),
                area_codes: Vec::new(),
                words: Vec::new(),
            };
            for c in node.children("LocationCountry") {
                place.countries.push(c.required_id("CountryID")?);
            }
            for a in node.children("LocationAreaCode") {
                place.area_codes.push(a.required_id("AreaCodeID")?);
            }
            for part in node.children("LocationPart") {
                for v in part.children("LocationPartValue") {
                    place
                        .words
                        .extend(v.children("Value").filter_map(Element::value));
                }
            }
            Ok(place)
        })();
        self.locations.insert(id, place);
    }

    fn take_document(&mut self, node: Element) {
        let label = format!("IDRegDocument {}", node.attr("ID").unwrap_or("without ID"));
        let identity = match node.required_id("IdentityID") {
            Ok(id) => id,
            Err(why) => return self.skipped.push(format!("{label}: {why}")),
        };
        let document = (|| {
            if let Some(why) = node.first_bad() {
                return Err(why.to_owned());
            }
            Ok(Document {
                id: node.required_id("ID")?,
                kind: node.required_id("IDRegDocTypeID")?,
                number: node.child("IDRegistrationNo").and_then(Element::value),
                country: node.id("IssuedBy-CountryID")?,
            })
        })()
        .map_err(|why| format!("{label}: {why}"));
        self.documents.entry(identity).or_default().push(document);
    }

    fn take_party(&mut self, node: Element) {
        let profile_ids: Vec<u64> = node
            .children("Profile")
            .filter_map(|p| p.id("ID").ok().flatten())
            .collect();
        let documents: Vec<Result<Document, String>> = node
            .children("Profile")
            .flat_map(|p| p.children("Identity"))
            .filter_map(|i| i.id("ID").ok().flatten())
            .filter_map(|i| self.documents.remove(&i))
            .flatten()
            .collect();
        let Some(fixed_ref) = node.attr("FixedRef").and_then(value) else {
            self.skipped_profiles.extend(profile_ids);
            return self
                .skipped
                .push("a DistinctParty without FixedRef".to_owned());
        };
        let read = if self.fixed_refs.contains(&fixed_ref) {
            Err("FixedRef already read".to_owned())
        } else {
            self.party(&node, fixed_ref.clone(), documents)
        };
        match read {
            Ok(entry) => {
                let index = self.entries.len();
                for p in profile_ids {
                    self.profiles.insert(p, index);
                }
                self.fixed_refs.insert(fixed_ref);
                self.entries.push(entry);
                self.doomed.push(None);
            }
            Err(why) => {
                self.skipped_profiles.extend(profile_ids);
                self.skipped
                    .push(format!("DistinctParty {fixed_ref}: {why}"));
            }
        }
    }

    fn take_sanctions_entry(&mut self, node: Element) {
        let label = format!("SanctionsEntry {}", node.attr("ID").unwrap_or("without ID"));
        let profile = match node.required_id("ProfileID") {
            Ok(p) => p,
            Err(why) => return self.skipped.push(format!("{label}: {why}")),
        };
        let Some(&index) = self.profiles.get(&profile) else {
            if !self.skipped_profiles.contains(&profile) {
                self.skipped
                    .push(format!("{label}: no DistinctParty has Profile {profile}"));
            }
            return;
        };
        match self.sanctions_entry(&node) {
            Ok((programs, listed_on)) => {
                let entry = &mut self.entries[index];
                for p in programs {
                    push_unique(&mut entry.programs, p);
                }
                entry.listed_on = match (entry.listed_on, listed_on) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            Err(why) => {
                let id = &self.entries[index].source_entry_id;
                self.doomed[index].get_or_insert(format!("DistinctParty {id}: {label}: {why}"));
            }
        }
    }

    fn finish(mut self) -> ParsedList {
        let published_at = self.issue.take().and_then(|node| self.issue_date(&node));
        let mut skipped = std::mem::take(&mut self.skipped);
        let mut entries = Vec::with_capacity(self.entries.len());
        for (entry, doom) in self.entries.into_iter().zip(self.doomed) {
            match doom {
                None => entries.push(entry),
                Some(why) => skipped.push(why),
            }
        }
        let mut unclaimed: Vec<(u64, String)> = self
            .documents
            .into_iter()
            .flat_map(|(identity, docs)| {
                docs.into_iter().map(move |d| match d {
                    Ok(d) => (
                        d.id,
                        format!("IDRegDocument {}: no party has Identity {identity}", d.id),
                    ),
                    Err(why) => (0, why),
                })
            })
            .collect();
        unclaimed.sort();
        skipped.extend(unclaimed.into_iter().map(|(_, why)| why));
        ParsedList {
            source: ListSource::OfacSdn,
            published_at,
            entries,
            skipped,
            set_aside: Vec::new(),
        }
    }

    // -- Resolving references.

    fn lookup(&self, set: &str, id: u64, attr: &str) -> Result<&Element, String> {
        self.refs
            .get(set)
            .and_then(|values| values.get(&id))
            .ok_or_else(|| format!("unknown {attr} {id}"))
    }

    /// The reference value `node/@attr` names in `set`, which must be given.
    fn required_ref(&self, node: &Element, attr: &str, set: &str) -> Result<&Element, String> {
        self.lookup(set, node.required_id(attr)?, attr)
    }

    /// The reference value `node/@attr` names in `set`, if the attribute is given.
    fn optional_ref(
        &self,
        node: &Element,
        attr: &str,
        set: &str,
    ) -> Result<Option<&Element>, String> {
        match node.id(attr)? {
            None => Ok(None),
            Some(id) => self.lookup(set, id, attr).map(Some),
        }
    }

    /// The text of the reference value `node/@attr` names in `set`.
    fn required_word(&self, node: &Element, attr: &str, set: &str) -> Result<String, String> {
        Ok(self
            .required_ref(node, attr, set)?
            .value()
            .unwrap_or_default())
    }

    fn country(&self, id: u64, attr: &str) -> Result<ListedCountry, String> {
        let c = self.lookup("Country", id, attr)?;
        let name = c.value().unwrap_or_default();
        let iso2 = c
            .attr("ISO2")
            .filter(|v| v.len() == 2 && v.bytes().all(|b| b.is_ascii_uppercase()));
        Ok(ListedCountry {
            code: iso2.or_else(|| code_of(&name)).map(str::to_owned),
            name,
        })
    }

    /// A date's calendar must be the Gregorian (when it is named).
    fn gregorian(&self, node: &Element) -> Result<(), String> {
        match self.optional_ref(node, "CalendarTypeID", "CalendarType")? {
            Some(calendar) => {
                let name = calendar.value().unwrap_or_default();
                if name.eq_ignore_ascii_case("Gregorian") {
                    Ok(())
                } else {
                    Err(format!("a date in the {name:?} calendar"))
                }
            }
            None => Ok(()),
        }
    }

    fn issue_date(&self, node: &Element) -> Option<DateTime<Utc>> {
        self.gregorian(node).ok()?;
        exact_date(node)
            .ok()?
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc())
    }

    // -- Parties.

    fn party(
        &self,
        node: &Element,
        source_entry_id: String,
        documents: Vec<Result<Document, String>>,
    ) -> Result<ListEntry, String> {
        if let Some(why) = node.first_bad() {
            return Err(why.to_owned());
        }
        let profiles: Vec<&Element> = node.children("Profile").collect();
        let first = profiles.first().ok_or("no Profile")?;
        let kind = self.kind(first)?;
        for p in &profiles {
            p.required_id("ID")?;
            self.kind(p)?;
        }

        let names = self.names(&profiles, kind == EntryKind::Person)?;

        let mut birth_dates = Vec::new();
        let mut nationalities = Countries::default();
        let mut countries = Countries::default();
        let mut identifiers = Vec::new();
        for feature in profiles.iter().flat_map(|p| p.children("Feature")) {
            let feature_type = self.required_word(feature, "FeatureTypeID", "FeatureType")?;
            let used = Use::of(&feature_type);
            if used == Use::Nothing {
                continue;
            }
            for version in feature.children("FeatureVersion") {
                match &used {
                    Use::BirthDate => {
                        for period in version.children("DatePeriod") {
                            if let Some(d) = self.period(period)? {
                                push_unique(&mut birth_dates, d);
                            }
                        }
                    }
                    Use::Nationality => {
                        for words in self.details(version)? {
                            nationalities.add(words_country(words));
                        }
                        for c in self.version_locations(version, true)? {
                            nationalities.add(c);
                        }
                    }
                    Use::PlaceOfBirth => {
                        for words in self.details(version)? {
                            countries.extend(place_of_birth(&words));
                        }
                        for c in self.version_locations(version, false)? {
                            countries.add(c);
                        }
                    }
                    Use::Country => {
                        for words in self.details(version)? {
                            countries.add(words_country(words));
                        }
                        for c in self.version_locations(version, false)? {
                            countries.add(c);
                        }
                    }
                    Use::Identifier(kind) => {
                        for value in self.details(version)? {
                            push_unique(
                                &mut identifiers,
                                ListedIdentifier {
                                    kind: kind.clone(),
                                    value,
                                    country: None,
                                },
                            );
                        }
                    }
                    Use::Nothing => {}
                }
            }
        }

        for document in documents {
            let document = document?;
            let kind = self
                .lookup("IDRegDocType", document.kind, "IDRegDocTypeID")?
                .value()
                .unwrap_or_else(|| "document".to_owned())
                .to_lowercase();
            let country = match document.country {
                Some(id) => self.country(id, "IssuedBy-CountryID")?.code,
                None => None,
            };
            if let Some(value) = document.number {
                push_unique(
                    &mut identifiers,
                    ListedIdentifier {
                        kind,
                        value,
                        country,
                    },
                );
            }
        }

        Ok(ListEntry {
            source_entry_id,
            kind,
            names,
            birth_dates,
            nationalities: nationalities.0,
            countries: countries.0,
            identifiers,
            programs: Vec::new(),
            listed_on: None,
            exposure: None,
        })
    }

    fn kind(&self, profile: &Element) -> Result<EntryKind, String> {
        let sub = self.required_ref(profile, "PartySubTypeID", "PartySubType")?;
        let party = self.required_word(sub, "PartyTypeID", "PartyType")?;
        let sub = sub.value().unwrap_or_default();
        let is = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        Ok(if is(&sub, "Vessel") {
            EntryKind::Vessel
        } else if is(&sub, "Aircraft") {
            EntryKind::Aircraft
        } else if is(&party, "Individual") {
            EntryKind::Person
        } else if is(&party, "Entity") {
            EntryKind::Organisation
        } else {
            EntryKind::Other
        })
    }

    fn names(&self, profiles: &[&Element], person: bool) -> Result<Vec<ListedName>, String> {
        let mut primary_latin = Vec::new();
        let mut primary_other = Vec::new();
        let mut aliases = Vec::new();
        let mut primary_seen = false;
        for profile in profiles {
            let mut identities: Vec<&Element> = profile.children("Identity").collect();
            // The primary identity first (the sort is stable).
            identities.sort_by_key(|i| !i.flag("Primary"));
            for identity in identities {
                let groups = self.name_part_groups(identity)?;
                for alias in identity.children("Alias") {
                    self.required_ref(alias, "AliasTypeID", "AliasType")?;
                    let primary = alias.flag("Primary") && !primary_seen;
                    primary_seen |= primary;
                    let quality = if alias.flag("LowQuality") && !primary {
                        NameQuality::Weak
                    } else {
                        NameQuality::Strong
                    };
                    for name in alias.children("DocumentedName") {
                        let (forms, latin) = self.documented_name(name, &groups, person)?;
                        let into = match (primary, latin) {
                            (true, true) => &mut primary_latin,
                            (true, false) => &mut primary_other,
                            (false, _) => &mut aliases,
                        };
                        into.extend(forms.into_iter().map(|full| ListedName { full, quality }));
                    }
                }
            }
        }
        if primary_latin.is_empty() && primary_other.is_empty() {
            return Err("no primary name".to_owned());
        }
        let mut names = Vec::new();
        for name in primary_latin
            .into_iter()
            .chain(primary_other)
            .chain(aliases)
        {
            push_name(&mut names, name);
        }
        Ok(names)
    }

    /// An identity's name part groups: ID → `NamePartType` (`Last Name`, ...).
    fn name_part_groups(&self, identity: &Element) -> Result<HashMap<u64, String>, String> {
        let mut groups = HashMap::new();
        for group in identity
            .children("NamePartGroups")
            .flat_map(|g| g.children("MasterNamePartGroup"))
            .flat_map(|m| m.children("NamePartGroup"))
        {
            let id = group.required_id("ID")?;
            let part_type = self.required_word(group, "NamePartTypeID", "NamePartType")?;
            groups.insert(id, part_type);
        }
        Ok(groups)
    }

    /// A documented name's forms (see the module docs), and whether it is all Latin script.
    fn documented_name(
        &self,
        name: &Element,
        groups: &HashMap<u64, String>,
        person: bool,
    ) -> Result<(Vec<String>, bool), String> {
        let mut parts = Vec::new();
        let mut latin = true;
        for value in name
            .children("DocumentedNamePart")
            .flat_map(|p| p.children("NamePartValue"))
        {
            if let Some(script) = self.optional_ref(value, "ScriptID", "Script")? {
                let is_latin = script
                    .value()
                    .is_some_and(|s| s.eq_ignore_ascii_case("Latin"))
                    || matches!(script.attr("ScriptCode"), Some("Latn" | "Latin"));
                latin &= is_latin;
            }
            let group = value
                .id("NamePartGroupID")?
                .and_then(|g| groups.get(&g))
                .map(String::as_str);
            if let Some(text) = value.value() {
                parts.push((text, group));
            }
        }
        Ok((name_forms(&parts, person), latin))
    }

    /// The values of a feature version's `VersionDetail`s (a `LOOKUP`'s reference value).
    fn details(&self, version: &Element) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for detail in version.children("VersionDetail") {
            let looked_up = match self.optional_ref(detail, "DetailTypeID", "DetailType")? {
                Some(t) if t.value().is_some_and(|v| v.eq_ignore_ascii_case("LOOKUP")) => self
                    .optional_ref(detail, "DetailReferenceID", "DetailReference")?
                    .and_then(Element::value),
                _ => None,
            };
            out.extend(looked_up.or_else(|| detail.value()));
        }
        Ok(out)
    }

    /// The countries of a feature version's `VersionLocation`s.
    fn version_locations(
        &self,
        version: &Element,
        nationality: bool,
    ) -> Result<Vec<ListedCountry>, String> {
        let mut out = Vec::new();
        for at in version.children("VersionLocation") {
            let id = at.required_id("LocationID")?;
            let place = self
                .locations
                .get(&id)
                .ok_or_else(|| format!("unknown LocationID {id}"))?
                .as_ref()
                .map_err(|why| format!("Location {id}: {why}"))?;
            out.extend(self.place_countries(place, nationality)?);
        }
        Ok(out)
    }

    fn place_countries(
        &self,
        place: &Place,
        nationality: bool,
    ) -> Result<Vec<ListedCountry>, String> {
        let mut out = Vec::new();
        for &id in &place.countries {
            out.push(self.country(id, "CountryID")?);
        }
        if out.is_empty() {
            for &id in &place.area_codes {
                let area = self.lookup("AreaCode", id, "AreaCodeID")?;
                match area.id("CountryID")? {
                    Some(country) => out.push(self.country(country, "CountryID")?),
                    None => out.extend(area.attr("Description").and_then(value).map(words_country)),
                }
            }
        }
        if out.is_empty() && !place.words.is_empty() {
            let named = place.words.iter().find_map(|w| {
                code_of(w).map(|code| ListedCountry {
                    code: Some(code.to_owned()),
                    name: w.clone(),
                })
            });
            match named {
                Some(c) => out.push(c),
                None if nationality => out.push(words_country(place.words.join(", "))),
                None => {}
            }
        }
        Ok(out)
    }

    /// A `DatePeriod` as the narrowest [`ListedDate`] covering it; `None` when it has no
    /// point (`<DatePeriod .../>`).
    fn period(&self, period: &Element) -> Result<Option<ListedDate>, String> {
        self.gregorian(period)?;
        let mut span: Option<(NaiveDate, NaiveDate)> = None;
        let mut approximate = false;
        for boundary in ["Start", "End"].iter().filter_map(|b| period.child(b)) {
            approximate |= boundary.flag("Approximate");
            for point in ["From", "To"].iter().filter_map(|p| boundary.child(p)) {
                let (first, last) = date_point(point)?;
                span = Some(match span {
                    None => (first, last),
                    Some((a, b)) => (a.min(first), b.max(last)),
                });
            }
        }
        Ok(span.map(|(first, last)| {
            if approximate {
                ListedDate::Years {
                    from: first.year() - 1,
                    to: last.year() + 1,
                }
            } else {
                narrowest(first, last)
            }
        }))
    }

    // -- Sanctions entries.

    /// A `SanctionsEntry`'s programmes and listing date.
    fn sanctions_entry(&self, node: &Element) -> Result<(Vec<String>, Option<NaiveDate>), String> {
        if let Some(why) = node.first_bad() {
            return Err(why.to_owned());
        }
        let mut programs = Vec::new();
        let mut listed_on: Option<NaiveDate> = None;
        for event in node.children("EntryEvent") {
            let event_type = self.required_word(event, "EntryEventTypeID", "EntryEventType")?;
            if let Some(basis) = self.optional_ref(event, "LegalBasisID", "LegalBasis")? {
                if let Some(program) =
                    self.optional_ref(basis, "SanctionsProgramID", "SanctionsProgram")?
                {
                    if let Some(p) = program
                        .value()
                        .filter(|p| !p.eq_ignore_ascii_case("Unknown"))
                    {
                        push_unique(&mut programs, p);
                    }
                }
            }
            if let Some(date) = event.child("Date") {
                self.gregorian(date)?;
                let day = exact_date(date)?;
                if event_type.eq_ignore_ascii_case("Created") {
                    listed_on = Some(listed_on.map_or(day, |d| d.min(day)));
                }
            }
        }
        for measure in node.children("SanctionsMeasure") {
            let measure_type = self.required_word(measure, "SanctionsTypeID", "SanctionsType")?;
            if measure_type.eq_ignore_ascii_case("Program") {
                if let Some(p) = measure.child("Comment").and_then(Element::value) {
                    push_unique(&mut programs, p);
                }
            }
        }
        Ok((programs, listed_on))
    }
}

// ---------------------------------------------------------------------------------------
// Names, countries, dates.

/// A name's forms from its parts (text, part type): an individual's `Last Name` with other
/// parts gives `Given LAST` and `LAST, Given`; anything else its parts in order.
fn name_forms(parts: &[(String, Option<&str>)], person: bool) -> Vec<String> {
    let all = parts
        .iter()
        .map(|(t, _)| t.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if all.is_empty() {
        return Vec::new();
    }
    let is_surname = |t: &Option<&str>| t.is_some_and(|t| t.eq_ignore_ascii_case("Last Name"));
    let surname: Vec<&str> = parts
        .iter()
        .filter(|(_, t)| is_surname(t))
        .map(|(s, _)| s.as_str())
        .collect();
    let given: Vec<&str> = parts
        .iter()
        .filter(|(_, t)| !is_surname(t))
        .map(|(s, _)| s.as_str())
        .collect();
    if !person || surname.is_empty() || given.is_empty() {
        return vec![all];
    }
    let (surname, given) = (surname.join(" "), given.join(" "));
    vec![format!("{given} {surname}"), format!("{surname}, {given}")]
}

fn name_key(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Adds a name unless it is there already (case and spacing ignored); a strong repeat makes
/// a weak name strong.
fn push_name(names: &mut Vec<ListedName>, name: ListedName) {
    let key = name_key(&name.full);
    match names.iter_mut().find(|n| name_key(&n.full) == key) {
        Some(existing) => {
            if name.quality == NameQuality::Strong {
                existing.quality = NameQuality::Strong;
            }
        }
        None => names.push(name),
    }
}

/// An entry's countries, deduplicated: by code when both have one, else by the words.
#[derive(Default)]
struct Countries(Vec<ListedCountry>);

impl Countries {
    fn add(&mut self, c: ListedCountry) {
        if c.name.is_empty() || no_country(&c.name) {
            return;
        }
        let same = |o: &ListedCountry| match (&o.code, &c.code) {
            (Some(a), Some(b)) => a == b,
            (None, None) => name_key(&o.name) == name_key(&c.name),
            _ => false,
        };
        if !self.0.iter().any(same) {
            self.0.push(c);
        }
    }

    fn extend(&mut self, cs: impl IntoIterator<Item = ListedCountry>) {
        for c in cs {
            self.add(c);
        }
    }
}

/// Words the list writes where it knows no country.
fn no_country(words: &str) -> bool {
    ["undetermined", "none identified", "unknown"]
        .iter()
        .any(|w| words.trim().eq_ignore_ascii_case(w))
}

/// The ISO code of a country's words, also trying `Man, Isle of` as `Isle of Man`.
fn code_of(words: &str) -> Option<&'static str> {
    iso_code(words).or_else(|| {
        let (a, b) = words.split_once(',')?;
        iso_code(&format!("{} {}", b.trim(), a.trim()))
    })
}

/// A country as the list wrote it, with its code when known.
fn words_country(words: String) -> ListedCountry {
    ListedCountry {
        code: code_of(&words).map(str::to_owned),
        name: words,
    }
}

/// A place of birth's country: its last comma-separated part (or last two, for `Korea,
/// North`), or the words in its last parentheses, when they name a country.
fn place_of_birth(place: &str) -> Option<ListedCountry> {
    let parts: Vec<&str> = place.split(',').map(str::trim).collect();
    let last = parts.last().copied().unwrap_or_default();
    let last_two = (parts.len() >= 2).then(|| parts[parts.len() - 2..].join(", "));
    let inner = last
        .rfind('(')
        .and_then(|i| last[i + 1..].split(')').next())
        .map(str::trim);
    let found = [last_two.as_deref(), Some(last), inner]
        .into_iter()
        .flatten()
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            code_of(w).map(|code| ListedCountry {
                code: Some(code.to_owned()),
                name: w.to_owned(),
            })
        });
    found
}

/// The number in a date element's child `name`, if given.
fn date_number(node: &Element, name: &str) -> Result<Option<u32>, String> {
    match node.child(name).and_then(Element::value) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| format!("unreadable date: {name} {v:?}")),
    }
}

/// A `From`/`To` point (`Year`, `Month`, `Day`) as the first and last day it covers: a
/// point without a day covers its month, without a month its year.
fn date_point(point: &Element) -> Result<(NaiveDate, NaiveDate), String> {
    let year = date_number(point, "Year")?
        .filter(|y| (1..=9999).contains(y))
        .ok_or("unreadable date: no Year")? as i32;
    let month = date_number(point, "Month")?;
    let day = date_number(point, "Day")?;
    let bad = || format!("not a date: {year}-{month:?}-{day:?}");
    let ymd = |m: u32, d: u32| NaiveDate::from_ymd_opt(year, m, d).ok_or_else(bad);
    match (month, day) {
        (Some(m), Some(d)) => {
            let date = ymd(m, d)?;
            Ok((date, date))
        }
        (Some(m), None) => {
            let first = ymd(m, 1)?;
            let last = first
                .checked_add_months(chrono::Months::new(1))
                .and_then(|d| d.pred_opt())
                .ok_or_else(bad)?;
            Ok((first, last))
        }
        (None, None) => Ok((ymd(1, 1)?, ymd(12, 31)?)),
        (None, Some(_)) => Err(bad()),
    }
}

/// A date given whole (`Year`, `Month`, `Day`).
fn exact_date(node: &Element) -> Result<NaiveDate, String> {
    match date_point(node)? {
        (a, b) if a == b => Ok(a),
        _ => Err(format!("not a whole date in <{}>", node.name)),
    }
}

/// The narrowest [`ListedDate`] holding every day from `first` to `last`.
fn narrowest(first: NaiveDate, last: NaiveDate) -> ListedDate {
    if first == last {
        ListedDate::Day(first)
    } else {
        covering(first, last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{day, id, is_malformed_as, random_bytes_never_panic, strong, Rng};

    /// Reference values with the real OFAC IDs, and a few more for these tests.
    const REFS: &str = r#"<ReferenceValueSets>
      <AliasTypeValues><AliasType ID="1400">A.K.A.</AliasType><AliasType ID="1401">F.K.A.</AliasType><AliasType ID="1403">Name</AliasType></AliasTypeValues>
      <AreaCodeValues><AreaCode ID="11094" CountryID="11094" Description="Germany" AreaCodeTypeID="1">DE</AreaCode><AreaCode ID="11291" CountryID="11291" Description="undetermined" AreaCodeTypeID="1"/><AreaCode ID="7" Description="Kosovo" AreaCodeTypeID="1"/></AreaCodeValues>
      <CalendarTypeValues><CalendarType ID="1">Gregorian</CalendarType><CalendarType ID="2">Islamic</CalendarType></CalendarTypeValues>
      <CountryValues><Country ID="11094" ISO2="DE">Germany</Country><Country ID="11109" ISO2="IR">Iran</Country><Country ID="11073" ISO2="CU">Cuba</Country><Country ID="11291">undetermined</Country><Country ID="91116">Kosovo</Country></CountryValues>
      <DetailReferenceValues><DetailReference ID="91526">Male</DetailReference><DetailReference ID="5">Iran</DetailReference></DetailReferenceValues>
      <DetailTypeValues><DetailType ID="1430">DATE</DetailType><DetailType ID="1431">LOOKUP</DetailType><DetailType ID="1432">TEXT</DetailType><DetailType ID="1433">COUNTRY</DetailType></DetailTypeValues>
      <EntryEventTypeValues><EntryEventType ID="1">Created</EntryEventType><EntryEventType ID="2">Amended</EntryEventType></EntryEventTypeValues>
      <FeatureTypeValues><FeatureType ID="1" FeatureTypeGroupID="1">Vessel Call Sign</FeatureType><FeatureType ID="3" FeatureTypeGroupID="1">Vessel Flag</FeatureType><FeatureType ID="8" FeatureTypeGroupID="1">Birthdate</FeatureType><FeatureType ID="9" FeatureTypeGroupID="1">Place of Birth</FeatureType><FeatureType ID="10" FeatureTypeGroupID="1">Nationality Country</FeatureType><FeatureType ID="11" FeatureTypeGroupID="1">Citizenship Country</FeatureType><FeatureType ID="13" FeatureTypeGroupID="1">SWIFT/BIC</FeatureType><FeatureType ID="24" FeatureTypeGroupID="1">Former Vessel Flag</FeatureType><FeatureType ID="25" FeatureTypeGroupID="1">Location</FeatureType><FeatureType ID="64" FeatureTypeGroupID="1">Aircraft Tail Number</FeatureType><FeatureType ID="224" FeatureTypeGroupID="1">Gender</FeatureType><FeatureType ID="344" FeatureTypeGroupID="1">Digital Currency Address - XBT</FeatureType></FeatureTypeValues>
      <IDRegDocTypeValues><IDRegDocType ID="1571">Passport</IDRegDocType><IDRegDocType ID="1584">National ID No.</IDRegDocType></IDRegDocTypeValues>
      <LegalBasisValues><LegalBasis ID="1" LegalBasisTypeID="1" SanctionsProgramID="1">Unknown</LegalBasis><LegalBasis ID="1828" LegalBasisTypeID="1" SanctionsProgramID="211">Executive Order 13224 (Terrorism)</LegalBasis></LegalBasisValues>
      <NamePartTypeValues><NamePartType ID="1520">Last Name</NamePartType><NamePartType ID="1521">First Name</NamePartType><NamePartType ID="1522">Middle Name</NamePartType><NamePartType ID="1524">Aircraft Name</NamePartType><NamePartType ID="1525">Entity Name</NamePartType><NamePartType ID="1526">Vessel Name</NamePartType></NamePartTypeValues>
      <PartySubTypeValues><PartySubType ID="1" PartyTypeID="4">Vessel</PartySubType><PartySubType ID="2" PartyTypeID="4">Aircraft</PartySubType><PartySubType ID="3" PartyTypeID="2">Unknown</PartySubType><PartySubType ID="4" PartyTypeID="1">Unknown</PartySubType><PartySubType ID="5" PartyTypeID="3">Unknown</PartySubType><PartySubType ID="6" PartyTypeID="4">Unknown</PartySubType></PartySubTypeValues>
      <PartyTypeValues><PartyType ID="1">Individual</PartyType><PartyType ID="2">Entity</PartyType><PartyType ID="3">Location</PartyType><PartyType ID="4">Transport</PartyType></PartyTypeValues>
      <SanctionsProgramValues><SanctionsProgram ID="1" SubsidiaryBodyID="1">Unknown</SanctionsProgram><SanctionsProgram ID="211" SubsidiaryBodyID="1">SDGT</SanctionsProgram></SanctionsProgramValues>
      <SanctionsTypeValues><SanctionsType ID="1">Program</SanctionsType><SanctionsType ID="1705">Block</SanctionsType></SanctionsTypeValues>
      <ScriptValues><Script ID="160" ScriptCode="Arab">Arabic</Script><Script ID="215" ScriptCode="Latin">Latin</Script></ScriptValues>
      <ValidityValues><Validity ID="1">Valid</Validity></ValidityValues>
    </ReferenceValueSets>"#;

    fn doc(locations: &str, documents: &str, parties: &str, entries: &str) -> Vec<u8> {
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
             <Sanctions xmlns=\"http://www.un.org/sanctions/1.0\" Version=\"1\">\n\
             <DateOfIssue CalendarTypeID=\"1\"><Year>2026</Year><Month>1</Month><Day>2</Day></DateOfIssue>\n\
             {REFS}\n\
             <Locations>{locations}</Locations>\n\
             <IDRegDocuments>{documents}</IDRegDocuments>\n\
             <DistinctParties>{parties}</DistinctParties>\n\
             <ProfileRelationships/>\n\
             <SanctionsEntries>{entries}</SanctionsEntries>\n\
             <SanctionsEntryLinks/>\n\
             </Sanctions>\n"
        )
        .into_bytes()
    }

    /// A name part.
    fn part(group: u32, text: &str) -> String {
        format!(
            "<DocumentedNamePart><NamePartValue NamePartGroupID=\"{group}\" ScriptID=\"215\" \
             ScriptStatusID=\"1\" Acronym=\"false\">{text}</NamePartValue></DocumentedNamePart>"
        )
    }

    /// A party with one identity (ID = 10 × the FixedRef), one profile (ID = FixedRef), its
    /// primary name a single part of `type_id`, and `extra` inside the profile.
    fn party(fixed: u32, sub_type: &str, name: &str, type_id: u32, extra: &str) -> String {
        let identity = fixed * 10;
        format!(
            "<DistinctParty FixedRef=\"{fixed}\"><Comment/><Profile ID=\"{fixed}\" PartySubTypeID=\"{sub_type}\">\
             <Identity ID=\"{identity}\" FixedRef=\"{fixed}\" Primary=\"true\" False=\"false\">\
             <Alias FixedRef=\"{fixed}\" AliasTypeID=\"1403\" Primary=\"true\" LowQuality=\"false\">\
             <DocumentedName ID=\"{identity}\" FixedRef=\"{fixed}\" DocNameStatusID=\"1\">{}</DocumentedName></Alias>\
             <NamePartGroups><MasterNamePartGroup><NamePartGroup ID=\"{identity}\" NamePartTypeID=\"{type_id}\"/></MasterNamePartGroup></NamePartGroups>\
             </Identity>{extra}</Profile></DistinctParty>",
            part(identity, name)
        )
    }

    fn feature(type_id: u32, identity: u32, version: &str) -> String {
        format!(
            "<Feature ID=\"1\" FeatureTypeID=\"{type_id}\"><FeatureVersion ID=\"1\" ReliabilityID=\"1\">\
             <Comment/>{version}</FeatureVersion>\
             <IdentityReference IdentityID=\"{identity}\" IdentityFeatureLinkTypeID=\"1\"/></Feature>"
        )
    }

    fn point(y: &str, m: &str, d: &str) -> String {
        let tag = |t: &str, v: &str| {
            if v.is_empty() {
                String::new()
            } else {
                format!("<{t}>{v}</{t}>")
            }
        };
        format!("{}{}{}", tag("Year", y), tag("Month", m), tag("Day", d))
    }

    /// A `DatePeriod` from `(y, m, d)` to `(y, m, d)` (empty strings leave parts out).
    fn period(from: (&str, &str, &str), to: (&str, &str, &str), approximate: bool) -> String {
        let (a, b) = (point(from.0, from.1, from.2), point(to.0, to.1, to.2));
        format!(
            "<DatePeriod CalendarTypeID=\"1\" YearFixed=\"false\" MonthFixed=\"false\" DayFixed=\"false\">\
             <Start Approximate=\"{approximate}\" YearFixed=\"false\" MonthFixed=\"false\" DayFixed=\"false\"><From>{a}</From><To>{a}</To></Start>\
             <End Approximate=\"{approximate}\" YearFixed=\"false\" MonthFixed=\"false\" DayFixed=\"false\"><From>{b}</From><To>{b}</To></End>\
             </DatePeriod>"
        )
    }

    fn sanctions_entry(id: u32, profile: u32, inner: &str) -> String {
        format!("<SanctionsEntry ID=\"{id}\" ProfileID=\"{profile}\" ListID=\"1550\">{inner}</SanctionsEntry>")
    }

    fn event(type_id: u32, basis: u32, (y, m, d): (u32, u32, u32)) -> String {
        format!(
            "<EntryEvent ID=\"1\" EntryEventTypeID=\"{type_id}\" LegalBasisID=\"{basis}\"><Comment/>\
             <Date CalendarTypeID=\"1\"><Year>{y}</Year><Month>{m}</Month><Day>{d}</Day></Date></EntryEvent>"
        )
    }

    fn measure(type_id: u32, comment: &str) -> String {
        format!(
            "<SanctionsMeasure ID=\"1\" SanctionsTypeID=\"{type_id}\"><Comment>{comment}</Comment>\
             <DatePeriod CalendarTypeID=\"1\" YearFixed=\"true\" MonthFixed=\"true\" DayFixed=\"true\"/></SanctionsMeasure>"
        )
    }

    fn country(code: Option<&str>, name: &str) -> ListedCountry {
        ListedCountry {
            code: code.map(Into::into),
            name: name.into(),
        }
    }

    fn is_malformed(r: Result<ParsedList, ReadError>) -> bool {
        is_malformed_as(r, "ofac-advanced-xml")
    }

    #[test]
    fn an_individual_is_mapped_field_by_field() {
        let identity = 10;
        let names = format!(
            "<Identity ID=\"{identity}\" FixedRef=\"1\" Primary=\"true\" False=\"false\">\
             <Alias FixedRef=\"1\" AliasTypeID=\"1403\" Primary=\"true\" LowQuality=\"false\">\
               <DocumentedName ID=\"1\" FixedRef=\"1\" DocNameStatusID=\"1\">{}{}{}</DocumentedName>\
               <DocumentedName ID=\"2\" FixedRef=\"1\" DocNameStatusID=\"2\">\
                 <DocumentedNamePart><NamePartValue NamePartGroupID=\"104\" ScriptID=\"160\" ScriptStatusID=\"1\" Acronym=\"false\">دو</NamePartValue></DocumentedNamePart>\
                 <DocumentedNamePart><NamePartValue NamePartGroupID=\"105\" ScriptID=\"160\" ScriptStatusID=\"1\" Acronym=\"false\">جون</NamePartValue></DocumentedNamePart>\
               </DocumentedName>\
             </Alias>\
             <Alias FixedRef=\"1\" AliasTypeID=\"1400\" Primary=\"false\" LowQuality=\"true\">\
               <DocumentedName ID=\"3\" FixedRef=\"1\" DocNameStatusID=\"2\">{}</DocumentedName></Alias>\
             <Alias FixedRef=\"1\" AliasTypeID=\"1400\" Primary=\"false\" LowQuality=\"false\">\
               <DocumentedName ID=\"4\" FixedRef=\"1\" DocNameStatusID=\"2\">{}</DocumentedName></Alias>\
             <Alias FixedRef=\"1\" AliasTypeID=\"1400\" Primary=\"false\" LowQuality=\"false\">\
               <DocumentedName ID=\"5\" FixedRef=\"1\" DocNameStatusID=\"2\">{}{}</DocumentedName></Alias>\
             <NamePartGroups>\
               <MasterNamePartGroup><NamePartGroup ID=\"101\" NamePartTypeID=\"1520\"/></MasterNamePartGroup>\
               <MasterNamePartGroup><NamePartGroup ID=\"102\" NamePartTypeID=\"1521\"/></MasterNamePartGroup>\
               <MasterNamePartGroup><NamePartGroup ID=\"103\" NamePartTypeID=\"1522\"/></MasterNamePartGroup>\
               <MasterNamePartGroup><NamePartGroup ID=\"104\" NamePartTypeID=\"1520\"/></MasterNamePartGroup>\
               <MasterNamePartGroup><NamePartGroup ID=\"105\" NamePartTypeID=\"1521\"/></MasterNamePartGroup>\
               <MasterNamePartGroup><NamePartGroup ID=\"106\" NamePartTypeID=\"1521\"/></MasterNamePartGroup>\
             </NamePartGroups></Identity>\
             <Identity ID=\"11\" FixedRef=\"1\" Primary=\"false\" False=\"false\">\
             <Alias FixedRef=\"1\" AliasTypeID=\"1401\" Primary=\"true\" LowQuality=\"false\">\
               <DocumentedName ID=\"6\" FixedRef=\"1\" DocNameStatusID=\"2\">{}</DocumentedName></Alias>\
             <NamePartGroups><MasterNamePartGroup><NamePartGroup ID=\"110\" NamePartTypeID=\"1525\"/></MasterNamePartGroup></NamePartGroups>\
             </Identity>",
            part(101, "DOE &amp; SONS"),
            part(102, " John\n  Quincy "),
            part(103, "Q&#x2019;s"),
            part(106, "Jack"),
            // The weak name again, strong: it becomes strong.
            part(106, "JACK"),
            // Group 107 is not declared: the parts keep document order.
            part(107, "Doe"),
            part(107, "<![CDATA[Johnny]]>"),
            part(110, "John Doe Trading"),
        );
        let dob = [
            period(("1970", "5", "6"), ("1970", "5", "6"), false),
            period(("1971", "5", "1"), ("1971", "5", "31"), false),
            period(("1972", "3", ""), ("1972", "3", ""), false),
            period(("1969", "1", "1"), ("1969", "12", "31"), false),
            period(("1960", "1", "1"), ("1962", "12", "31"), false),
            period(("1950", "1", "1"), ("1950", "12", "31"), true),
            // A repeat, and a period with no point.
            period(("1970", "5", "6"), ("1970", "5", "6"), false),
            "<DatePeriod CalendarTypeID=\"1\" YearFixed=\"true\" MonthFixed=\"true\" DayFixed=\"true\"/>"
                .to_owned(),
        ]
        .concat();
        let features = [
            feature(
                8,
                identity,
                &format!("{dob}<VersionDetail DetailTypeID=\"1430\"/>"),
            ),
            feature(
                10,
                identity,
                "<VersionDetail DetailTypeID=\"1433\"/><VersionLocation LocationID=\"1\"/>",
            ),
            feature(
                10,
                identity,
                "<VersionDetail DetailTypeID=\"1433\"/><VersionLocation LocationID=\"2\"/>",
            ),
            feature(
                10,
                identity,
                "<VersionDetail DetailTypeID=\"1433\"/><VersionLocation LocationID=\"6\"/>",
            ),
            feature(
                11,
                identity,
                "<VersionDetail DetailTypeID=\"1432\">Atlantis</VersionDetail>",
            ),
            feature(
                11,
                identity,
                "<VersionDetail DetailTypeID=\"1431\" DetailReferenceID=\"5\"/>",
            ),
            feature(
                9,
                identity,
                "<VersionDetail DetailTypeID=\"1432\">Lyon, Rhone, France</VersionDetail>",
            ),
            feature(
                9,
                identity,
                "<VersionDetail DetailTypeID=\"1432\">Shati</VersionDetail>",
            ),
            feature(25, identity, "<VersionLocation LocationID=\"3\"/>"),
            feature(25, identity, "<VersionLocation LocationID=\"4\"/>"),
            feature(25, identity, "<VersionLocation LocationID=\"5\"/>"),
            feature(
                224,
                identity,
                "<VersionDetail DetailTypeID=\"1431\" DetailReferenceID=\"91526\"/>",
            ),
            feature(
                13,
                identity,
                "<VersionDetail DetailTypeID=\"1432\">ABCDIRTH</VersionDetail>",
            ),
            feature(
                344,
                identity,
                "<VersionDetail DetailTypeID=\"1432\">1AbC2dEf</VersionDetail>",
            ),
        ]
        .concat();
        let party = format!(
            "<DistinctParty FixedRef=\" 1 \"><Comment/><Profile ID=\"1\" PartySubTypeID=\"4\">{names}{features}</Profile></DistinctParty>"
        );
        let text_place = |id: u32, words: &[&str]| {
            let parts: String = words
                .iter()
                .map(|w| {
                    format!(
                        "<LocationPart LocPartTypeID=\"1\"><LocationPartValue Primary=\"true\" LocPartValueTypeID=\"1\" \
                         LocPartValueStatusID=\"1\"><Comment/><Value>{w}</Value></LocationPartValue></LocationPart>"
                    )
                })
                .collect();
            format!("<Location ID=\"{id}\">{parts}</Location>")
        };
        let locations = [
            "<Location ID=\"1\"><LocationCountry CountryID=\"11109\" CountryRelevanceID=\"1413\"/></Location>".to_owned(),
            text_place(2, &["Stateless"]),
            "<Location ID=\"3\"><LocationAreaCode AreaCodeID=\"11094\"/>\
             <LocationPart LocPartTypeID=\"1454\"><LocationPartValue Primary=\"true\" LocPartValueTypeID=\"1\" LocPartValueStatusID=\"1\"><Value>Berlin</Value></LocationPartValue></LocationPart></Location>"
                .to_owned(),
            text_place(4, &["Bahnhofstrasse 1", "Zurich", "Switzerland"]),
            text_place(5, &["Somewhere"]),
            "<Location ID=\"6\"><LocationCountry CountryID=\"11291\" CountryRelevanceID=\"1413\"/></Location>".to_owned(),
        ]
        .concat();
        let documents = "<IDRegDocument ID=\"1\" IDRegDocTypeID=\"1571\" IdentityID=\"10\" IssuedBy-CountryID=\"11109\" ValidityID=\"1\">\
               <Comment/><IDRegistrationNo> A123 </IDRegistrationNo></IDRegDocument>\
             <IDRegDocument ID=\"2\" IDRegDocTypeID=\"1584\" IdentityID=\"11\"><IDRegistrationNo>99</IDRegistrationNo></IDRegDocument>\
             <IDRegDocument ID=\"3\" IDRegDocTypeID=\"1571\" IdentityID=\"10\"><IssuingAuthority>no number</IssuingAuthority></IDRegDocument>";
        let entries = [
            sanctions_entry(
                1,
                1,
                &[
                    event(1, 1, (2010, 5, 1)),
                    event(2, 1, (2001, 1, 1)),
                    measure(1705, ""),
                    measure(1, "IRAN"),
                ]
                .concat(),
            ),
            sanctions_entry(
                2,
                1,
                &[event(1, 1828, (2005, 1, 2)), measure(1, " SDGT ")].concat(),
            ),
        ]
        .concat();
        let list = read(&doc(&locations, documents, &party, &entries)).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        assert_eq!(
            list.published_at,
            Some(day(2026, 1, 2).and_hms_opt(0, 0, 0).unwrap().and_utc())
        );
        assert_eq!(
            list.entries,
            vec![ListEntry {
                source_entry_id: "1".into(),
                kind: EntryKind::Person,
                names: vec![
                    strong("John Quincy Q’s DOE & SONS"),
                    strong("DOE & SONS, John Quincy Q’s"),
                    strong("جون دو"),
                    strong("دو, جون"),
                    strong("Jack"),
                    strong("Doe Johnny"),
                    strong("John Doe Trading"),
                ],
                birth_dates: vec![
                    ListedDate::Day(day(1970, 5, 6)),
                    ListedDate::Month {
                        year: 1971,
                        month: 5
                    },
                    ListedDate::Month {
                        year: 1972,
                        month: 3
                    },
                    ListedDate::Year(1969),
                    ListedDate::Years {
                        from: 1960,
                        to: 1962
                    },
                    ListedDate::Years {
                        from: 1949,
                        to: 1951
                    },
                ],
                nationalities: vec![
                    country(Some("IR"), "Iran"),
                    country(None, "Stateless"),
                    country(None, "Atlantis"),
                ],
                countries: vec![
                    country(Some("FR"), "France"),
                    country(Some("DE"), "Germany"),
                    country(Some("CH"), "Switzerland"),
                ],
                identifiers: vec![
                    id("swift/bic", "ABCDIRTH", None),
                    id("digital currency address - xbt", "1AbC2dEf", None),
                    id("passport", "A123", Some("IR")),
                    id("national id no.", "99", None),
                ],
                programs: vec!["IRAN".into(), "SDGT".into()],
                listed_on: Some(day(2005, 1, 2)),
                exposure: None,
            }]
        );
    }

    #[test]
    fn vessels_aircraft_and_entities_are_told_apart() {
        let vessel_features = [
            feature(
                1,
                20,
                "<VersionDetail DetailTypeID=\"1432\">CL2192</VersionDetail>",
            ),
            feature(
                3,
                20,
                "<VersionDetail DetailTypeID=\"1432\">Cuba</VersionDetail>",
            ),
            feature(
                24,
                20,
                "<VersionDetail DetailTypeID=\"1432\">Panama</VersionDetail>",
            ),
            feature(25, 20, "<VersionLocation LocationID=\"1\"/>"),
        ]
        .concat();
        let parties = [
            party(2, "1", "MAR AZUL", 1526, &vessel_features),
            party(
                3,
                "2",
                "EP-GOL",
                1524,
                &feature(
                    64,
                    30,
                    "<VersionDetail DetailTypeID=\"1432\">EP-GOL</VersionDetail>",
                ),
            ),
            party(4, "3", "ACME, S.A.", 1525, ""),
            party(5, "5", "A PLACE", 1525, ""),
            party(6, "6", "ODD", 1525, ""),
        ]
        .concat();
        // Location 1: an area code whose country is undetermined ties none.
        let locations = "<Location ID=\"1\"><LocationAreaCode AreaCodeID=\"11291\"/></Location>";
        let list = read(&doc(locations, "", &parties, "")).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        let kinds: Vec<_> = list.entries.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EntryKind::Vessel,
                EntryKind::Aircraft,
                EntryKind::Organisation,
                EntryKind::Other,
                EntryKind::Other
            ]
        );
        let vessel = &list.entries[0];
        assert_eq!(vessel.names, vec![strong("MAR AZUL")]);
        assert_eq!(vessel.countries, vec![country(Some("CU"), "Cuba")]);
        assert_eq!(
            vessel.identifiers,
            vec![ListedIdentifier {
                kind: "call sign".into(),
                value: "CL2192".into(),
                country: None
            }]
        );
        assert_eq!(list.entries[1].identifiers[0].kind, "aircraft tail number");
        // An entity's commas belong to its name.
        assert_eq!(list.entries[2].names, vec![strong("ACME, S.A.")]);
    }

    #[test]
    fn records_that_cannot_be_understood_are_skipped_whole_and_named() {
        let dob = |from: (&str, &str, &str)| {
            feature(8, 0, &period(from, from, false))
                .replace("IdentityID=\"0\"", "IdentityID=\"1\"")
        };
        let parties = [
            party(1, "4", "GOOD", 1520, ""),
            party(2, "99", "X", 1520, ""),
            party(3, "4", "X", 1599, ""),
            party(4, "4", "X", 1520, &feature(999, 40, "")),
            party(5, "4", "X", 1520, &dob(("1970", "13", "1"))),
            party(6, "4", "X", 1520, &dob(("1970", "2", "30"))),
            party(7, "4", "X", 1520, &dob(("70s", "1", "1"))),
            party(8, "4", "X", 1520, &dob(("", "1", "1"))),
            party(
                9,
                "4",
                "X",
                1520,
                &feature(
                    8,
                    90,
                    &period(("1390", "1", "1"), ("1390", "1", "1"), false),
                )
                .replace("CalendarTypeID=\"1\"", "CalendarTypeID=\"2\""),
            ),
            party(10, "4", "X&nbsp;Y", 1520, ""),
            party(11, "4", "X", 1520, "").replace("AliasTypeID=\"1403\"", "AliasTypeID=\"1402\""),
            party(12, "4", "X", 1520, "").replace("ScriptID=\"215\"", "ScriptID=\"999\""),
            party(13, "4", "X", 1520, "").replace(
                "Primary=\"true\" LowQuality",
                "Primary=\"false\" LowQuality",
            ),
            party(
                14,
                "4",
                "X",
                1520,
                &feature(25, 140, "<VersionLocation LocationID=\"404\"/>"),
            ),
            party(
                15,
                "4",
                "X",
                1520,
                &feature(25, 150, "<VersionLocation LocationID=\"2\"/>"),
            ),
            party(16, "4", "X", 1520, "")
                .replace("PartySubTypeID=\"4\"", "PartySubTypeID=\"four\""),
            party(1, "4", "AGAIN", 1520, ""),
            party(17, "4", "X", 1520, "").replace("FixedRef=\"17\"><Comment/>", "><Comment/>"),
            "<DistinctParty FixedRef=\"18\"><Comment/></DistinctParty>".to_owned(),
            party(
                19,
                "4",
                "X",
                1520,
                &feature(25, 190, "<VersionLocation LocationID=\"3\"/>"),
            ),
            party(20, "4", "X", 1520, "").replace("IdentityID", "x"),
            party(21, "4", "LISTED", 1520, ""),
            party(22, "4", "GOOD TOO", 1520, ""),
        ]
        .concat();
        let locations = "<Location ID=\"2\"><LocationCountry CountryID=\"12345\" CountryRelevanceID=\"1\"/></Location>\
             <Location ID=\"3\"><LocationPart LocPartTypeID=\"1\"><LocationPartValue Primary=\"true\" LocPartValueTypeID=\"1\" LocPartValueStatusID=\"1\"><Value>&bogus;</Value></LocationPartValue></LocationPart></Location>\
             <Location><LocationCountry CountryID=\"11094\" CountryRelevanceID=\"1\"/></Location>";
        let documents = "<IDRegDocument ID=\"7\" IDRegDocTypeID=\"1571\" IdentityID=\"220\"><IDRegistrationNo>1</IDRegistrationNo></IDRegDocument>\
             <IDRegDocument ID=\"8\" IDRegDocTypeID=\"1571\" IdentityID=\"999\"><IDRegistrationNo>2</IDRegistrationNo></IDRegDocument>";
        let entries = [
            sanctions_entry(1, 1, &measure(1, "OK")),
            sanctions_entry(2, 21, &event(1, 4242, (2001, 1, 1))),
            sanctions_entry(3, 777, &measure(1, "NOBODY")),
            // A skipped party's entry is not named again.
            sanctions_entry(4, 2, &measure(1, "X")),
            sanctions_entry(5, 22, &event(1, 1, (2001, 2, 29))),
        ]
        .concat();
        let list = read(&doc(locations, documents, &parties, &entries)).unwrap();
        let ids: Vec<_> = list
            .entries
            .iter()
            .map(|e| e.source_entry_id.as_str())
            .collect();
        assert_eq!(ids, ["1", "20"]);
        assert_eq!(list.entries[0].programs, ["OK"]);
        assert_eq!(
            list.skipped,
            [
                "a Location: <Location> without ID",
                "DistinctParty 2: unknown PartySubTypeID 99",
                "DistinctParty 3: unknown NamePartTypeID 1599",
                "DistinctParty 4: unknown FeatureTypeID 999",
                "DistinctParty 5: not a date: 1970-Some(13)-Some(1)",
                "DistinctParty 6: not a date: 1970-Some(2)-Some(30)",
                "DistinctParty 7: unreadable date: Year \"70s\"",
                "DistinctParty 8: unreadable date: no Year",
                "DistinctParty 9: a date in the \"Islamic\" calendar",
                "DistinctParty 10: unknown XML reference &nbsp;",
                "DistinctParty 11: unknown AliasTypeID 1402",
                "DistinctParty 12: unknown ScriptID 999",
                "DistinctParty 13: no primary name",
                "DistinctParty 14: unknown LocationID 404",
                "DistinctParty 15: unknown CountryID 12345",
                "DistinctParty 16: unreadable PartySubTypeID \"four\" in <Profile>",
                "DistinctParty 1: FixedRef already read",
                "a DistinctParty without FixedRef",
                "DistinctParty 18: no Profile",
                "DistinctParty 19: Location 3: unknown XML reference &bogus;",
                "SanctionsEntry 3: no DistinctParty has Profile 777",
                "DistinctParty 21: SanctionsEntry 2: unknown LegalBasisID 4242",
                "DistinctParty 22: SanctionsEntry 5: not a date: 2001-Some(2)-Some(29)",
                "IDRegDocument 8: no party has Identity 999",
            ]
        );
    }

    #[test]
    fn reference_values_without_an_id_are_named() {
        let xml = String::from_utf8(doc("", "", &party(1, "4", "A", 1520, ""), ""))
            .unwrap()
            .replace(
                "<Validity ID=\"1\">Valid</Validity>",
                "<Validity>Valid</Validity><Validity ID=\"x\">Void</Validity>",
            );
        let list = read(xml.as_bytes()).unwrap();
        assert_eq!(list.entries.len(), 1);
        assert_eq!(
            list.skipped,
            [
                "reference value <Validity> \"Valid\": <Validity> without ID",
                "reference value <Validity> \"Void\": unreadable ID \"x\" in <Validity>",
            ]
        );
    }

    #[test]
    fn namespaces_prefixes_and_a_byte_order_mark_read_alike() {
        let plain = doc("", "", &party(1, "4", "A", 1520, ""), "");
        let expected = read(&plain).unwrap();
        assert_eq!(expected.entries.len(), 1);
        let text = String::from_utf8(plain).unwrap();
        let ofac = text.replace(
            "http://www.un.org/sanctions/1.0",
            "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADVANCED_XML",
        );
        assert_eq!(read(ofac.as_bytes()).unwrap(), expected);
        let prefixed = text
            .replace("<Sanctions xmlns=", "<un:Sanctions xmlns:un=")
            .replace("</Sanctions>", "</un:Sanctions>")
            .replace("<DistinctParty ", "<un:DistinctParty ")
            .replace("</DistinctParty>", "</un:DistinctParty>");
        assert_eq!(read(prefixed.as_bytes()).unwrap(), expected);
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(text.as_bytes());
        assert_eq!(read(&bom).unwrap(), expected);
    }

    #[test]
    fn an_empty_list_reads_as_no_entries() {
        let list = read(&doc("", "", "", "")).unwrap();
        assert!(list.entries.is_empty() && list.skipped.is_empty());
        let list = read(b"<Sanctions><ReferenceValueSets/><DistinctParties/></Sanctions>").unwrap();
        assert!(list.entries.is_empty());
        assert_eq!(list.published_at, None);
    }

    #[test]
    fn files_that_are_not_this_format_are_malformed() {
        let good = String::from_utf8(doc("", "", &party(1, "4", "A", 1520, ""), "")).unwrap();
        let delta = good.replace("Version=\"1\"", "Version=\"2\" DeltaBaseVersion=\"1\"");
        let second_root = format!("{good}<Sanctions/>");
        let trailing = format!("{good}trailing");
        for bad in [
            &b""[..],
            b"   \n",
            b"<CONSOLIDATED_LIST/>",
            b"<nope><Sanctions/></nope>",
            b"hello world",
            b"\x00\x01\x02\xff\xfe<\x80",
            b"<Sanctions/>",
            b"<Sanctions><DistinctParties/></Sanctions>",
            b"<Sanctions><ReferenceValueSets/></Sanctions>",
            b"<Sanctions><ReferenceValueSets/><DistinctParties>",
            b"<Sanctions><ReferenceValueSets/><DistinctParties><DistinctParty FixedRef=\"1\"></DistinctParties></Sanctions>",
            b"<Sanctions><ReferenceValueSets/><DistinctParties><DistinctParty a=\"1\" a=\"2\"/></DistinctParties></Sanctions>",
            b"&amp;<Sanctions/>",
            delta.as_bytes(),
            second_root.as_bytes(),
            trailing.as_bytes(),
        ] {
            assert!(
                is_malformed(read(bad)),
                "{:?} should be malformed",
                String::from_utf8_lossy(&bad[..bad.len().min(200)])
            );
        }
    }

    #[test]
    fn odd_input_never_panics() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        random_bytes_never_panic(
            read,
            &mut rng,
            b"<Sanctions><ReferenceValueSets/><DistinctParties><DistinctParty FixedRef=\"1\">",
        );
        // Deep nesting inside a record is not kept in memory as a tree.
        let deep = String::from_utf8(doc(
            "",
            "",
            &party(
                1,
                "4",
                "DEEP",
                1520,
                &format!("{}{}", "<X>".repeat(100_000), "</X>".repeat(100_000)),
            ),
            "",
        ))
        .unwrap();
        let list = read(deep.as_bytes()).unwrap();
        assert_eq!(list.entries[0].names, vec![strong("DEEP")]);
    }

    #[test]
    fn periods_read_as_the_narrowest_date_covering_them() {
        let d = |y, m, dd| day(y, m, dd);
        assert_eq!(
            narrowest(d(1970, 5, 6), d(1970, 5, 6)),
            ListedDate::Day(d(1970, 5, 6))
        );
        assert_eq!(
            narrowest(d(1970, 5, 6), d(1970, 5, 9)),
            ListedDate::Month {
                year: 1970,
                month: 5
            }
        );
        assert_eq!(
            narrowest(d(1970, 1, 1), d(1970, 12, 31)),
            ListedDate::Year(1970)
        );
        assert_eq!(
            narrowest(d(1970, 3, 1), d(1970, 4, 30)),
            ListedDate::Year(1970)
        );
        assert_eq!(
            narrowest(d(1969, 12, 31), d(1970, 1, 1)),
            ListedDate::Years {
                from: 1969,
                to: 1970
            }
        );
        let node = |y: &str, m: &str, dd: &str| {
            let mut n = Element::default();
            for (name, v) in [("Year", y), ("Month", m), ("Day", dd)] {
                if !v.is_empty() {
                    n.children.push(Element {
                        name: name.into(),
                        text: v.into(),
                        ..Element::default()
                    });
                }
            }
            n
        };
        assert_eq!(
            date_point(&node("2024", "2", "")),
            Ok((d(2024, 2, 1), d(2024, 2, 29)))
        );
        assert_eq!(
            date_point(&node("2023", "12", "")),
            Ok((d(2023, 12, 1), d(2023, 12, 31)))
        );
        assert_eq!(
            date_point(&node("2023", "", "")),
            Ok((d(2023, 1, 1), d(2023, 12, 31)))
        );
        assert!(date_point(&node("2023", "", "5")).is_err());
        assert!(date_point(&node("0", "1", "1")).is_err());
        assert!(date_point(&node("2023", "0", "1")).is_err());
        assert!(date_point(&node("2023", "1", "0")).is_err());
        assert!(date_point(&node("2023", "-1", "1")).is_err());
        assert!(exact_date(&node("2023", "1", "")).is_err());
    }

    #[test]
    fn names_are_assembled_from_their_typed_parts() {
        let p = |t: &str, k: Option<&'static str>| (t.to_owned(), k);
        let last = Some("Last Name");
        let first = Some("First Name");
        assert_eq!(
            name_forms(
                &[
                    p("AL-RAWI", last),
                    p("Adnan", first),
                    p("M.", Some("Middle Name"))
                ],
                true
            ),
            ["Adnan M. AL-RAWI", "AL-RAWI, Adnan M."]
        );
        // Given parts before the surname keep their order.
        assert_eq!(
            name_forms(
                &[
                    p("Ivan", first),
                    p("PETROV", last),
                    p("Ivanovich", Some("Patronymic"))
                ],
                true
            ),
            ["Ivan Ivanovich PETROV", "PETROV, Ivan Ivanovich"]
        );
        assert_eq!(
            name_forms(&[p("ABU ZUBAYDAH", last)], true),
            ["ABU ZUBAYDAH"]
        );
        assert_eq!(
            name_forms(&[p("Doe", None), p("John", None)], true),
            ["Doe John"]
        );
        assert_eq!(
            name_forms(&[p("DOE", last), p("John", first)], false),
            ["DOE John"]
        );
        assert!(name_forms(&[], true).is_empty());
        assert_eq!(
            place_of_birth("Pyongyang, Korea, North"),
            Some(country(Some("KP"), "Korea, North"))
        );
        assert_eq!(
            place_of_birth("Tunisi (Tunisia)"),
            Some(country(Some("TN"), "Tunisia"))
        );
        assert_eq!(place_of_birth("Shati"), None);
        assert_eq!(code_of("Man, Isle of"), Some("IM"));
    }
}
