//! The UK Sanctions List (FCDO XML), read into [`ParsedList`].
//!
//! The file is streamed with `quick-xml`; one `Designation` is gathered at a time (its
//! elements as a small tree, `xml::RecordTree`, at most [`MAX_DEPTH`] levels deep inside it)
//! and mapped whole, or skipped
//! whole and named in [`ParsedList::skipped`] (`<UniqueID>: <why>`). A file that is not
//! well-formed XML, whose root is not `Designations`, or that ends before its root closes (a
//! truncated download) is [`ReadError::Malformed`]. Elements are matched by their local
//! names; elements of the root other than `Designation` and `DateGenerated` are not records
//! and are passed over.
//!
//! Mapping decisions:
//!
//! - **Ids.** `source_entry_id` is `UniqueID` (`AFG0006`), the list's stable key. A record
//!   without one is skipped: `OFSIGroupID` belongs to the retired OFSI list, and designations
//!   made since January 2026 (and ships, e.g. `DPR0075`) carry none.
//! - **Kind.** `IndividualEntityShip` (any case) `Individual` is [`EntryKind::Person`],
//!   `Entity` [`EntryKind::Organisation`], `Ship` [`EntryKind::Vessel`]; anything else (or
//!   nothing) is [`EntryKind::Other`].
//! - **Names.** Each `Names/Name` is its non-empty `Name1` .. `Name5` (given and middle
//!   names) then `Name6` (the family name, or an entity's or ship's whole name), joined by
//!   single spaces in that order, as the list reads (`MOHAMMAD HASSAN AKHUND`, matching its
//!   non-Latin `محمد حسن آخوند`); a `Name` with no part is ignored. The first `Name` whose
//!   `NameType` is `Primary Name` (any case) comes first, else the first name; then every
//!   `NonLatinNames/NonLatinName/NameNonLatinScript` ([`NameQuality::Strong`]); then the
//!   other names in file order (`Primary Name Variation`, `Alias`, any other type: all
//!   names of the entry). A name's `AliasStrength` `Good quality a.k.a` is strong, `Low
//!   quality a.k.a` is [`NameQuality::Weak`] (matched on `good quality`/`low quality`, any
//!   case); no strength is strong; any other strength skips the record (the reader cannot
//!   know how far to trust the name). The primary name is strong whatever it says. Names
//!   are deduplicated on (text, quality), the first kept. A record without a name is
//!   skipped. `Titles` are not read.
//! - **Text.** Every value has its whitespace collapsed to single spaces and trimmed; the
//!   five XML entities and character references are resolved (another entity, or an
//!   attribute that cannot be read, skips its record); CDATA is text; comments and processing instructions are not read.
//! - **Dates.** `IndividualDetails/Individual/DOBs/DOB` is `dd/mm/yyyy`: a full date is a
//!   day; the list writes an unknown part as `dd`/`mm` (or `00`), so `dd/mm/1945` is the
//!   year 1945, `dd/07/1978` July 1978, and a day without a month the year; a bare `yyyy` is
//!   a year. A year with unknown trailing digits (`19yy`, `197y`) is the span it allows
//!   (`1900..1999`), whatever day and month it gives; an all-unknown year (`yyyy`) is no
//!   date. Any other DOB skips the record. `DateDesignated` (`dd/mm/yyyy`) is `listed_on`
//!   (present but unreadable skips the record); `DateGenerated` is `published_at`, at
//!   midnight UTC of that day (unreadable gives `None`).
//! - **Countries.** `Nationalities/Nationality` are the nationalities; `Addresses/Address/
//!   AddressCountry`, `BirthDetails/Location/CountryOfBirth` and a ship's
//!   `CurrentBelievedFlagOfShip` are the other countries (previous flags are not). The list
//!   names countries in words: each keeps them, with the ISO code
//!   [`crate::countries::iso_code`] knows. Both lists are deduplicated by code, else by the
//!   words.
//! - **Identifiers.** `PassportDetails/*/PassportNumber` (kind `passport`),
//!   `NationalIdentifierDetails/*/NationalIdentifierNumber` (`national identifier`),
//!   `EntityDetails/Entity/BusinessRegistrationNumbers/BusinessRegistrationNumber`
//!   (`business registration number`, kept as written, labels and all: `UK Company no.
//!   06527449`) and a ship's `IMONumbers/IMONumber` (`imo number`, the digits: the list
//!   writes both `IMO9562233` and `9562233`, and the kind already says IMO). The list names
//!   a document's country only in free text (`PassportAdditionalInformation`), which is not
//!   parsed: the identifiers carry no country. Repeats (the list repeats a passport) are
//!   kept once.
//! - **Programs.** `RegimeName` (the regulations, e.g. `The Afghanistan (Sanctions) (EU
//!   Exit) Regulations 2020`), deduplicated.
//! - **Not read.** `OtherInformation`, `UKStatementofReasons`, `DesignationSource`,
//!   `SanctionsImposed*`, `LastUpdated`, `OFSIGroupID`, `UNReferenceNumber`, address lines,
//!   phones, e-mails, websites, genders, positions, towns of birth, entity types, parent
//!   companies, subsidiaries, ship owners, types, tonnage and length: free text or
//!   bookkeeping the matcher does not use.

use crate::text::{country, day_or_month, parse_timestamp, push_country, push_unique, value};
use crate::xml::{self, Element, Layout, Naming, RecordTree};
use crate::ReadError;
use chrono::{DateTime, NaiveDate, Utc};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedDate, ListedIdentifier, ListedName, NameQuality,
    ParsedList,
};
use quick_xml::events::BytesStart;

const RECORD: &str = "Designation";
const GENERATED: &str = "DateGenerated";

const LAYOUT: Layout = Layout {
    format: "uk-xml",
    root: "Designations",
    naming: Naming::AfterLastPrefix,
    expand_empty_elements: false,
    refuse_cdata_outside_root: true,
};

/// How many levels of elements inside a `Designation` are kept (the format uses five:
/// `IndividualDetails/Individual/BirthDetails/Location/CountryOfBirth`); deeper ones are
/// no part of the format and their text is not read.
const MAX_DEPTH: usize = 6;

/// Reads a whole UK Sanctions List XML file.
pub(crate) fn read(xml: &[u8]) -> Result<ParsedList, ReadError> {
    let mut state = State {
        list: ParsedList {
            source: ListSource::UkSanctionsList,
            published_at: None,
            entries: Vec::new(),
            skipped: Vec::new(),
            set_aside: Vec::new(),
        },
        record: None,
        generated: None,
    };
    xml::read(xml, &LAYOUT, &mut state)?;
    Ok(state.list)
}

/// What the reader has gathered. The open elements' depth is 1 inside the root, 2 inside a
/// record (or `DateGenerated`), 3 inside a record's field, ...
struct State {
    list: ParsedList,
    record: Option<RecordTree>,
    /// The text of an open `DateGenerated`.
    generated: Option<String>,
}

impl xml::Handler for State {
    /// Handles a start tag (`depth` elements are open around it).
    fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError> {
        if let Some(tree) = self.record.as_mut() {
            // An attribute that cannot be read is noted on its element: it skips the record.
            let _ = tree.open(start);
            return Ok(());
        }
        if depth == 1 {
            match LAYOUT.naming.of(start.name().as_ref()) {
                RECORD => {
                    self.record = Some(RecordTree::new(start, LAYOUT.naming, MAX_DEPTH + 1).0)
                }
                GENERATED => self.generated = Some(String::new()),
                _ => {}
            }
        }
        Ok(())
    }

    /// Handles the end of an element; `depth` elements stay open.
    fn close(&mut self, depth: usize) {
        if let Some(tree) = self.record.as_mut() {
            if let Some(designation) = tree.close() {
                self.record = None;
                match (Record { root: designation }).into_entry() {
                    Ok(entry) => self.list.entries.push(entry),
                    Err(why) => self.list.skipped.push(why),
                }
            }
        } else if depth == 1 {
            if let Some(g) = self.generated.take() {
                if self.list.published_at.is_none() {
                    self.list.published_at = value(&g).and_then(|g| parse_generated(&g));
                }
            }
        }
    }

    /// Adds text read while `depth` elements are open.
    fn text(&mut self, depth: usize, text: &str) {
        if let Some(tree) = self.record.as_mut() {
            tree.text(text);
        } else if depth == 2 {
            if let Some(g) = self.generated.as_mut() {
                g.push_str(text);
            }
        }
    }

    fn unreadable(&mut self, why: String) {
        if let Some(tree) = self.record.as_mut() {
            tree.unreadable(why);
        }
    }
}

/// `DateGenerated`: `dd/mm/yyyy` (midnight UTC), or an RFC 3339 time should the list
/// change.
fn parse_generated(s: &str) -> Option<DateTime<Utc>> {
    if let Some(day) = parse_day(s) {
        return day.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    }
    parse_timestamp(s)
}

/// A day or month number of one or two digits, or `None` for the list's unknown (`dd`,
/// `mm`, `0`, `00`); `Err` when it is neither.
fn date_part(s: &str, unknown: &str, max: u32) -> Result<Option<u32>, ()> {
    if s.eq_ignore_ascii_case(unknown) {
        return Ok(None);
    }
    day_or_month(s, max)
}

/// A year: four digits, or digits followed by unknown ones (`19yy`: 1900 to 1999); `None`
/// when no digit is known (`yyyy`).
fn year_part(s: &str) -> Result<Option<(i32, i32)>, ()> {
    if s.len() != 4 || !s.is_ascii() {
        return Err(());
    }
    let known = s.bytes().take_while(u8::is_ascii_digit).count();
    if !s[known..].bytes().all(|b| b == b'y' || b == b'Y') {
        return Err(());
    }
    if known == 0 {
        return Ok(None);
    }
    let prefix: i32 = s[..known].parse().map_err(|_| ())?;
    let scale = 10_i32.pow(4 - known as u32);
    Ok(Some((prefix * scale, prefix * scale + scale - 1)))
}

/// A `DOB`: `dd/mm/yyyy` with `dd`/`mm`/`00` for unknown parts, or a bare year; `Ok(None)`
/// when it says nothing (`dd/mm/yyyy`).
fn parse_dob(s: &str) -> Result<Option<ListedDate>, ()> {
    let parts: Vec<&str> = s.split('/').map(str::trim).collect();
    let (day, month, year) = match parts.as_slice() {
        [y] => (None, None, year_part(y)?),
        [d, m, y] => (
            date_part(d, "dd", 31)?,
            date_part(m, "mm", 12)?,
            year_part(y)?,
        ),
        _ => return Err(()),
    };
    let Some((from, to)) = year else {
        return Ok(None);
    };
    if from != to {
        return Ok(Some(ListedDate::Years { from, to }));
    }
    Ok(Some(match (month, day) {
        (None, _) => ListedDate::Year(from),
        (Some(month), None) => ListedDate::Month { year: from, month },
        (Some(m), Some(d)) => ListedDate::Day(NaiveDate::from_ymd_opt(from, m, d).ok_or(())?),
    }))
}

/// A full `dd/mm/yyyy` day.
fn parse_day(s: &str) -> Option<NaiveDate> {
    match parse_dob(s) {
        Ok(Some(ListedDate::Day(d))) if s.len() == 10 => Some(d),
        _ => None,
    }
}

/// A `Designation` as read, before it is understood: its elements as a tree.
struct Record {
    root: Element,
}

impl Record {
    /// The elements at `path` below `from` (the record itself when `None`), in file order.
    fn at<'a>(&'a self, from: Option<&'a Element>, path: &[&str]) -> Vec<&'a Element> {
        from.unwrap_or(&self.root).at(path)
    }

    /// The collapsed, non-empty texts of the elements at `path`.
    fn values(&self, from: Option<&Element>, path: &[&str]) -> Vec<String> {
        self.at(from, path)
            .into_iter()
            .filter_map(Element::value)
            .collect()
    }

    fn first(&self, from: Option<&Element>, path: &[&str]) -> Option<String> {
        self.values(from, path).into_iter().next()
    }

    /// The entry, or why the record is skipped (naming it).
    fn into_entry(self) -> Result<ListEntry, String> {
        let Some(id) = self.first(None, &["UniqueID"]) else {
            let name = self
                .names()
                .ok()
                .and_then(|n| n.into_iter().next())
                .map(|n| n.full)
                .unwrap_or_default();
            return Err(format!("a record without UniqueID ({name}): no id"));
        };
        self.entry(id.clone()).map_err(|why| format!("{id}: {why}"))
    }

    /// Every name, in the order the entry keeps them.
    fn names(&self) -> Result<Vec<ListedName>, String> {
        let mut primary = None;
        let mut others = Vec::new();
        for name in self.at(None, &["Names", "Name"]) {
            let parts: Vec<String> = ["Name1", "Name2", "Name3", "Name4", "Name5", "Name6"]
                .iter()
                .flat_map(|p| self.values(Some(name), &[p]))
                .collect();
            let Some(full) = value(&parts.join(" ")) else {
                continue;
            };
            let kind = self
                .first(Some(name), &["NameType"])
                .unwrap_or_default()
                .to_lowercase();
            if kind == "primary name" && primary.is_none() {
                primary = Some(ListedName {
                    full,
                    quality: NameQuality::Strong,
                });
                continue;
            }
            let quality = match self.first(Some(name), &["AliasStrength"]) {
                None => NameQuality::Strong,
                Some(s) if s.to_lowercase().starts_with("good quality") => NameQuality::Strong,
                Some(s) if s.to_lowercase().starts_with("low quality") => NameQuality::Weak,
                Some(s) => return Err(format!("name {full:?} has an unknown AliasStrength {s:?}")),
            };
            others.push(ListedName { full, quality });
        }
        let mut names = Vec::new();
        let mut rest = others.into_iter();
        match primary {
            Some(p) => names.push(p),
            None => names.extend(rest.next()),
        }
        for full in self.values(
            None,
            &["NonLatinNames", "NonLatinName", "NameNonLatinScript"],
        ) {
            push_unique(
                &mut names,
                ListedName {
                    full,
                    quality: NameQuality::Strong,
                },
            );
        }
        for n in rest {
            push_unique(&mut names, n);
        }
        Ok(names)
    }

    fn entry(&self, source_entry_id: String) -> Result<ListEntry, String> {
        if let Some(why) = self.root.first_bad() {
            return Err(why.to_owned());
        }

        let kind = match self
            .first(None, &["IndividualEntityShip"])
            .map(|k| k.to_lowercase())
            .as_deref()
        {
            Some("individual") => EntryKind::Person,
            Some("entity") => EntryKind::Organisation,
            Some("ship") => EntryKind::Vessel,
            _ => EntryKind::Other,
        };

        let names = self.names()?;
        if names.is_empty() {
            return Err("no name".into());
        }

        let individual = self.at(None, &["IndividualDetails", "Individual"]);
        let ship = self.at(None, &["ShipDetails", "Ship"]);

        // Birth dates.
        let mut birth_dates = Vec::new();
        for &i in &individual {
            for dob in self.values(Some(i), &["DOBs", "DOB"]) {
                if let Some(d) = parse_dob(&dob).map_err(|()| format!("unreadable DOB {dob:?}"))? {
                    push_unique(&mut birth_dates, d);
                }
            }
        }

        // Countries.
        let mut nationalities = Vec::new();
        for &i in &individual {
            for n in self.values(Some(i), &["Nationalities", "Nationality"]) {
                push_country(&mut nationalities, country(n));
            }
        }
        let mut countries = Vec::new();
        for c in self.values(None, &["Addresses", "Address", "AddressCountry"]) {
            push_country(&mut countries, country(c));
        }
        for &i in &individual {
            for c in self.values(Some(i), &["BirthDetails", "Location", "CountryOfBirth"]) {
                push_country(&mut countries, country(c));
            }
        }
        for &s in &ship {
            for c in self.values(
                Some(s),
                &["CurrentBelievedFlagOfShips", "CurrentBelievedFlagOfShip"],
            ) {
                push_country(&mut countries, country(c));
            }
        }

        // Identifiers.
        let mut identifiers = Vec::new();
        let mut add = |kind: &str, value: String| {
            push_unique(
                &mut identifiers,
                ListedIdentifier {
                    kind: kind.to_owned(),
                    value,
                    country: None,
                },
            );
        };
        for &i in &individual {
            for v in self.values(Some(i), &["PassportDetails", "*", "PassportNumber"]) {
                add("passport", v);
            }
            for v in self.values(
                Some(i),
                &["NationalIdentifierDetails", "*", "NationalIdentifierNumber"],
            ) {
                add("national identifier", v);
            }
        }
        for v in self.values(
            None,
            &[
                "EntityDetails",
                "Entity",
                "BusinessRegistrationNumbers",
                "BusinessRegistrationNumber",
            ],
        ) {
            add("business registration number", v);
        }
        for &s in &ship {
            for v in self.values(Some(s), &["IMONumbers", "IMONumber"]) {
                add("imo number", imo_digits(v));
            }
        }

        // Programmes and the designation date.
        let mut programs = Vec::new();
        for p in self.values(None, &["RegimeName"]) {
            push_unique(&mut programs, p);
        }
        let listed_on = match self.first(None, &["DateDesignated"]) {
            None => None,
            Some(s) => {
                Some(parse_day(&s).ok_or_else(|| format!("unreadable DateDesignated {s:?}"))?)
            }
        };

        Ok(ListEntry {
            source_entry_id,
            kind,
            names,
            birth_dates,
            nationalities,
            countries,
            identifiers,
            programs,
            listed_on,
            exposure: None,
        })
    }
}

/// `IMO9562233`, `IMO 9562233` and `9562233` are one number: its digits. Anything else is
/// kept as written.
fn imo_digits(v: String) -> String {
    let rest = match v.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("IMO") => v[3..].trim_start_matches([' ', ':', '.']),
        _ => v.as_str(),
    };
    if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
        rest.to_owned()
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_cuts_malformed, day, is_malformed_as, strong, testdata, weak};
    use crate::testing::{
        assert_skipped, country, mutants_never_panic, random_bytes_never_panic, Rng,
    };
    use domain::screening::sanctions::ListedCountry;

    fn doc(records: &str) -> Vec<u8> {
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
             <Designations xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n\
             <DateGenerated>02/01/2026</DateGenerated>\n{records}\n</Designations>\n"
        )
        .into_bytes()
    }

    fn is_malformed(r: Result<ParsedList, ReadError>) -> bool {
        is_malformed_as(r, "uk-xml")
    }

    #[test]
    fn a_designation_is_mapped_field_by_field() {
        let xml = doc(r#"<Designation>
              <LastUpdated>04/08/2026</LastUpdated>
              <DateDesignated>29/06/2012</DateDesignated>
              <UniqueID> TST0001 </UniqueID>
              <Names>
                <Name><Name6>Varied</Name6><NameType>Primary Name Variation</NameType></Name>
                <Name><Name1>JOHN</Name1><Name3>PAUL</Name3><Name6>O&apos;BRIEN
                   &amp; SONS</Name6><NameType>primary name</NameType></Name>
                <Name><NameType>Alias</NameType></Name>
                <Name><Name6>Weak</Name6><NameType>ALias</NameType><AliasStrength>Low quality a.k.a</AliasStrength></Name>
                <Name><Name6>Good</Name6><NameType>Alias</NameType><AliasStrength>Good quality a.k.a</AliasStrength></Name>
                <Name><Name6>Second Primary</Name6><NameType>Primary Name</NameType></Name>
                <Name><Name2>Only</Name2><Name5>Middle</Name5></Name>
                <Name><Name6>Good</Name6></Name>
              </Names>
              <NonLatinNames><NonLatinName><NameNonLatinScript><![CDATA[Jöhn  Päul]]></NameNonLatinScript></NonLatinName></NonLatinNames>
              <RegimeName>Regime A</RegimeName>
              <RegimeName>Regime A</RegimeName>
              <IndividualEntityShip>INDIVIDUAL</IndividualEntityShip>
              <!-- a comment is not read -->
              <OtherInformation>Passport 123 (not read)</OtherInformation>
              <Addresses>
                <Address><AddressLine1>x</AddressLine1><AddressCountry>France</AddressCountry></Address>
                <Address><AddressCountry>Atlantis</AddressCountry></Address>
                <Address><AddressCountry/></Address>
              </Addresses>
              <IndividualDetails>
                <Individual>
                  <DOBs>
                    <DOB>12/05/1958</DOB><DOB>dd/mm/1945</DOB><DOB>1946</DOB><DOB>dd/07/1978</DOB>
                    <DOB>00/00/1975</DOB><DOB>15/08/19yy</DOB><DOB>dd/mm/yyyy</DOB><DOB>3/4/1960</DOB>
                    <DOB>12/mm/1961</DOB><DOB>12/05/1958</DOB>
                  </DOBs>
                  <Nationalities><Nationality>Iran</Nationality><Nationality>Iran (Islamic Republic of)</Nationality></Nationalities>
                  <PassportDetails>
                    <Passport><PassportNumber>P1</PassportNumber><PassportAdditionalInformation>Iran passport</PassportAdditionalInformation></Passport>
                    <PassportDetail><PassportNumber>P1</PassportNumber></PassportDetail>
                    <Passport><PassportAdditionalInformation>no number</PassportAdditionalInformation></Passport>
                  </PassportDetails>
                  <NationalIdentifierDetails><NationalIdentifier><NationalIdentifierNumber>N 2</NationalIdentifierNumber></NationalIdentifier></NationalIdentifierDetails>
                  <BirthDetails><Location><TownOfBirth>T</TownOfBirth><CountryOfBirth>Germany</CountryOfBirth></Location></BirthDetails>
                </Individual>
              </IndividualDetails>
            </Designation>"#);
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        assert_eq!(
            list.published_at,
            Some(day(2026, 1, 2).and_hms_opt(0, 0, 0).unwrap().and_utc())
        );
        let id = |kind: &str, value: &str| ListedIdentifier {
            kind: kind.into(),
            value: value.into(),
            country: None,
        };
        assert_eq!(
            list.entries,
            vec![ListEntry {
                source_entry_id: "TST0001".into(),
                kind: EntryKind::Person,
                names: vec![
                    strong("JOHN PAUL O'BRIEN & SONS"),
                    strong("Jöhn Päul"),
                    strong("Varied"),
                    weak("Weak"),
                    strong("Good"),
                    strong("Second Primary"),
                    strong("Only Middle"),
                ],
                birth_dates: vec![
                    ListedDate::Day(day(1958, 5, 12)),
                    ListedDate::Year(1945),
                    ListedDate::Year(1946),
                    ListedDate::Month {
                        year: 1978,
                        month: 7
                    },
                    ListedDate::Year(1975),
                    ListedDate::Years {
                        from: 1900,
                        to: 1999
                    },
                    ListedDate::Day(day(1960, 4, 3)),
                    ListedDate::Year(1961),
                ],
                nationalities: vec![country(Some("IR"), "Iran")],
                countries: vec![
                    country(Some("FR"), "France"),
                    country(None, "Atlantis"),
                    country(Some("DE"), "Germany"),
                ],
                identifiers: vec![id("passport", "P1"), id("national identifier", "N 2")],
                programs: vec!["Regime A".into()],
                listed_on: Some(day(2012, 6, 29)),
                exposure: None,
            }]
        );
    }

    #[test]
    fn entities_ships_and_kinds() {
        let xml = doc(
            r#"<Designation><UniqueID>E1</UniqueID><IndividualEntityShip>Entity</IndividualEntityShip>
                 <Names><Name><Name6>Acme</Name6><NameType>Alias</NameType></Name></Names>
                 <EntityDetails><Entity><BusinessRegistrationNumbers><BusinessRegistrationNumber>INN: 77</BusinessRegistrationNumber></BusinessRegistrationNumbers></Entity></EntityDetails>
               </Designation>
               <Designation><UniqueID>S1</UniqueID><IndividualEntityShip>Ship</IndividualEntityShip>
                 <Names><Name><Name6>Boat</Name6><NameType>Primary Name</NameType></Name></Names>
                 <ShipDetails><Ship>
                   <IMONumbers><IMONumber>IMO9562233</IMONumber><IMONumber>9562233</IMONumber><IMONumber>imo 1234567</IMONumber><IMONumber>IMO-X</IMONumber></IMONumbers>
                   <CurrentBelievedFlagOfShips><CurrentBelievedFlagOfShip>Comoros</CurrentBelievedFlagOfShip></CurrentBelievedFlagOfShips>
                   <PreviousFlags><PreviousFlag>India</PreviousFlag></PreviousFlags>
                 </Ship></ShipDetails>
               </Designation>
               <Designation><UniqueID>X1</UniqueID><IndividualEntityShip>Aircraft</IndividualEntityShip>
                 <Names><Name><Name6>Plane</Name6></Name></Names></Designation>
               <Designation><UniqueID>X2</UniqueID><Names><Name><Name6>Thing</Name6></Name></Names></Designation>
               <NotADesignation><UniqueID>X3</UniqueID></NotADesignation>"#,
        );
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        let kinds: Vec<_> = list
            .entries
            .iter()
            .map(|e| (e.source_entry_id.as_str(), e.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("E1", EntryKind::Organisation),
                ("S1", EntryKind::Vessel),
                ("X1", EntryKind::Other),
                ("X2", EntryKind::Other),
            ]
        );
        let e = &list.entries[0];
        // No primary name: the first name leads.
        assert_eq!(e.names, vec![strong("Acme")]);
        assert_eq!(
            e.identifiers,
            vec![ListedIdentifier {
                kind: "business registration number".into(),
                value: "INN: 77".into(),
                country: None
            }]
        );
        let s = &list.entries[1];
        let imo: Vec<_> = s.identifiers.iter().map(|i| i.value.as_str()).collect();
        assert_eq!(imo, ["9562233", "1234567", "IMO-X"]);
        assert!(s.identifiers.iter().all(|i| i.kind == "imo number"));
        assert_eq!(
            s.countries,
            vec![ListedCountry {
                code: Some("KM".into()),
                name: "Comoros".into()
            }]
        );
        assert_eq!(s.listed_on, None);
    }

    #[test]
    fn unreadable_records_are_skipped_whole_and_named() {
        let person = |id: &str, extra: &str| {
            format!(
                "<Designation><UniqueID>{id}</UniqueID>\
                 <Names><Name><Name6>P {id}</Name6><NameType>Primary Name</NameType></Name></Names>\
                 {extra}</Designation>"
            )
        };
        let dob = |d: &str| {
            format!("<IndividualDetails><Individual><DOBs><DOB>{d}</DOB></DOBs></Individual></IndividualDetails>")
        };
        let records = [
            person("R1", ""),
            person(
                "R2",
                "<Names><Name><Name6>X</Name6><AliasStrength>Medium</AliasStrength></Name></Names>",
            ),
            person("R3", &dob("31/02/1970")),
            person("R4", &dob("1970-01-01")),
            person("R5", &dob("12/13/1970")),
            person("R6", &dob("y9yy")),
            person("R7", "<DateDesignated>2012-06-29</DateDesignated>"),
            person("R8", "<OtherInformation>&nbsp;</OtherInformation>"),
            "<Designation><UniqueID>R9</UniqueID><Names><Name><NameType>Primary Name</NameType></Name></Names></Designation>"
                .to_owned(),
            "<Designation><Names><Name><Name6>Nobody</Name6></Name></Names></Designation>"
                .to_owned(),
            "<Designation/>".to_owned(),
            person("R10", ""),
        ]
        .concat();
        let list = read(&doc(&records)).unwrap();
        let ids: Vec<_> = list
            .entries
            .iter()
            .map(|e| e.source_entry_id.as_str())
            .collect();
        assert_eq!(ids, ["R1", "R10"]);
        assert_skipped(
            &list.skipped,
            &[
                "R2: name \"X\" has an unknown AliasStrength \"Medium\"",
                "R3: unreadable DOB \"31/02/1970\"",
                "R4: unreadable DOB \"1970-01-01\"",
                "R5: unreadable DOB \"12/13/1970\"",
                "R6: unreadable DOB \"y9yy\"",
                "R7: unreadable DateDesignated \"2012-06-29\"",
                "R8: unknown XML reference &nbsp;",
                "R9: no name",
                "a record without UniqueID (Nobody): no id",
                "a record without UniqueID (): no id",
            ],
        );
    }

    #[test]
    fn an_empty_list_reads_as_no_entries() {
        let list = read(b"<Designations/>").unwrap();
        assert!(list.entries.is_empty() && list.skipped.is_empty());
        assert_eq!(list.published_at, None);
        let list =
            read(b"<Designations><DateGenerated>soon</DateGenerated></Designations>").unwrap();
        assert_eq!(list.published_at, None);
    }

    #[test]
    fn files_that_are_not_this_format_are_malformed() {
        for bad in [
            &b""[..],
            b"   \n",
            b"<nope/>",
            b"<nope><Designations/></nope>",
            b"hello world",
            b"\x00\x01\x02\xff\xfe<\x80",
            b"<Designations>",
            b"<Designations><Designation><UniqueID>A</Designation></Designations>",
            b"<Designations></Designations><Designations/>",
            b"<Designations/>trailing",
            b"<Designations><Designation><UniqueID>A</UniqueID>",
            b"<CONSOLIDATED_LIST></CONSOLIDATED_LIST>",
        ] {
            assert!(
                is_malformed(read(bad)),
                "{:?} should be malformed",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn deep_nesting_is_not_kept() {
        let deep = format!(
            "<Designations><Designation><UniqueID>D1</UniqueID>\
             <Names><Name><Name6>Deep</Name6></Name></Names>{}{}</Designation></Designations>",
            "<X>".repeat(100_000),
            "</X>".repeat(100_000)
        );
        let list = read(deep.as_bytes()).unwrap();
        assert_eq!(list.entries.len(), 1);
    }

    #[test]
    fn dates_read_as_precisely_as_written() {
        assert_eq!(
            parse_dob("12/05/1958"),
            Ok(Some(ListedDate::Day(day(1958, 5, 12))))
        );
        assert_eq!(parse_dob("DD/MM/1958"), Ok(Some(ListedDate::Year(1958))));
        assert_eq!(
            parse_dob("197y"),
            Ok(Some(ListedDate::Years {
                from: 1970,
                to: 1979
            }))
        );
        assert_eq!(parse_dob("yyyy"), Ok(None));
        for bad in [
            "",
            "58",
            "1/2/3/1958",
            "12/05/58",
            "aa/05/1958",
            "12/05/19x8",
        ] {
            assert_eq!(parse_dob(bad), Err(()), "{bad}");
        }
        assert_eq!(parse_day("29/06/2012"), Some(day(2012, 6, 29)));
        assert_eq!(parse_day("dd/06/2012"), None);
        assert_eq!(parse_day("1/6/2012"), None);
        assert!(parse_generated("2026-09-10T00:00:00Z").is_some());
    }

    fn sample() -> Vec<u8> {
        testdata("uk/fcdo_uk_sanctions_list_excerpt_2026-09-10.xml")
    }

    #[test]
    fn a_truncated_copy_of_the_sample_is_malformed() {
        let full = sample();
        assert_eq!(read(&full).unwrap().entries.len(), 5);
        assert_cuts_malformed(read, "uk-xml", &full, (60, 1), 2);
    }

    #[test]
    fn odd_input_never_panics() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Random bytes, with and without a plausible root.
        random_bytes_never_panic(read, &mut rng, b"<Designations><Designation>");
        // The sample with bytes flipped, dropped and markup characters sprayed in.
        mutants_never_panic(read, &mut rng, &sample(), 5);
    }
}
