//! The UN Security Council Consolidated List (XML), read into [`ParsedList`].
//!
//! The file is streamed with `quick-xml`; one record (`INDIVIDUALS/INDIVIDUAL` or
//! `ENTITIES/ENTITY`) is gathered at a time and mapped whole, or skipped whole and named in
//! [`ParsedList::skipped`] (`<REFERENCE_NUMBER> (DATAID <n>): <why>`). A file that is not
//! well-formed XML, whose root is not `CONSOLIDATED_LIST`, or that ends before its root
//! closes (a truncated download) is [`ReadError::Malformed`].
//!
//! Mapping decisions:
//!
//! - **Ids.** `source_entry_id` is `REFERENCE_NUMBER` (`CDi.001`), or `DATAID` when that is
//!   empty; a record with neither is skipped.
//! - **Kind.** `INDIVIDUAL` is [`EntryKind::Person`], `ENTITY` [`EntryKind::Organisation`].
//! - **Names.** The primary name comes first: for an individual the non-empty `FIRST_NAME`,
//!   `SECOND_NAME`, `THIRD_NAME`, `FOURTH_NAME` joined by single spaces in that order; for an
//!   entity its `FIRST_NAME`. A record without a primary name is skipped. Then
//!   `NAME_ORIGINAL_SCRIPT` (strong), then the aliases in file order. Alias `QUALITY` `Good`,
//!   `a.k.a.` and `f.k.a.` (a former name, still a name of the entry) are
//!   [`NameQuality::Strong`], `Low` is [`NameQuality::Weak`]; an alias with a name but no
//!   quality mark is strong; any other mark skips the record (the reader cannot know how far
//!   to trust it). Aliases without a name (`<ALIAS_NAME/>`) are ignored. Names are
//!   deduplicated on (text, quality), the first kept.
//! - **Text.** Every value has its whitespace (newlines, runs of spaces, tabs) collapsed to
//!   single spaces and trimmed; the five XML entities and character references are resolved
//!   (another entity, undeclared in this format, or an attribute that cannot be read skips
//!   its record); CDATA is text; XML
//!   comments and processing instructions are not read. The placeholder `na`/`n/a` (the list's "not available", e.g. `<FOURTH_NAME>na`, a
//!   nationality `na`) counts as empty.
//! - **Dates.** `INDIVIDUAL_DATE_OF_BIRTH`: `DATE` (`YYYY-MM-DD`; `YYYY-MM` and `YYYY` are
//!   accepted too) is a day (or month, or year), `YEAR` a [`ListedDate::Year`] whatever
//!   `TYPE_OF_DATE` says (`APPROXIMATELY 1965` stays `1965`), `FROM_YEAR`+`TO_YEAR` a
//!   [`ListedDate::Years`] span. A date element with only a `NOTE` (free text) or nothing
//!   gives no date. An alias's own `DATE_OF_BIRTH` is a birth date of the entry as well. A
//!   date present but unreadable (or a span with one end or `from > to`) skips the record.
//!   `LISTED_ON` is a day; a trailing zone (`2015-04-07-04:00`, the `xs:date` form) is
//!   dropped. `dateGenerated` on the root is `published_at` (RFC 3339; without a zone it is
//!   taken as UTC; unreadable or absent gives `None`).
//! - **Countries.** `NATIONALITY/VALUE` are the nationalities; address `COUNTRY`, place of
//!   birth `COUNTRY` and an alias's `COUNTRY_OF_BIRTH` are the other countries. Each keeps
//!   the list's words and the ISO code [`crate::countries::iso_code`] knows (or none, e.g.
//!   `former Soviet Union`). Both lists are deduplicated: by code when there is one, else by
//!   the words.
//! - **Identifiers.** `INDIVIDUAL_DOCUMENT` with a `NUMBER`: kind is `TYPE_OF_DOCUMENT` lower
//!   case (`passport`, `national identification number`; `TYPE_OF_DOCUMENT2` when the first
//!   is empty, else `document`), the value the number as written, the country the ISO code
//!   of `ISSUING_COUNTRY`, else of `COUNTRY_OF_ISSUE`. Documents without a number are
//!   ignored, even when a `NOTE` spells one out. Entities carry no structured identifiers in
//!   this format (registration numbers appear only in comments).
//! - **Programs.** `UN_LIST_TYPE` (`DRC`, `Al-Qaida`, `DPRK`, ...).
//! - **Not read.** `COMMENTS1`, `NOTE`s, `DESIGNATION`, `TITLE`, `GENDER`, cities, streets,
//!   `LIST_TYPE`, `LAST_DAY_UPDATED`, `VERSIONNUM`, `SORT_KEY*`, dates and places of issue:
//!   free text or bookkeeping the matcher does not use.

use crate::countries::iso_code;
use crate::text::{country, parse_timestamp, parse_xs_date, parse_year, push_country, push_unique};
use crate::xml::{self, Element, Layout, Naming, RecordTree};
use crate::ReadError;
use chrono::NaiveDate;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedDate, ListedIdentifier, ListedName, NameQuality,
    ParsedList,
};
use quick_xml::events::BytesStart;
use quick_xml::XmlVersion;

/// Levels of a record kept: the record, its fields and their parts; the format has nothing
/// deeper, and deeper text is not read.
const MAX_DEPTH: usize = 3;

const LAYOUT: Layout = Layout {
    format: "un-xml",
    root: "CONSOLIDATED_LIST",
    naming: Naming::Qualified,
    expand_empty_elements: false,
    refuse_cdata_outside_root: true,
};

/// Reads a whole UN Consolidated List file.
pub(crate) fn read(xml: &[u8]) -> Result<ParsedList, ReadError> {
    let mut reading = Reading {
        list: ParsedList {
            source: ListSource::UnConsolidated,
            published_at: None,
            entries: Vec::new(),
            skipped: Vec::new(),
            set_aside: Vec::new(),
        },
        container: None,
        record: None,
    };
    xml::read(xml, &LAYOUT, &mut reading)?;
    Ok(reading.list)
}

/// What has been read, and the record being gathered. The open elements' depth is 1 inside
/// the root, 2 inside INDIVIDUALS/ENTITIES, 3 inside a record, 4 inside a record's field, 5
/// inside a field's part.
struct Reading {
    list: ParsedList,
    container: Option<EntryKind>,
    /// The record being gathered (a record and its fields and their parts are kept; deeper
    /// elements are no part of the format).
    record: Option<(EntryKind, RecordTree)>,
}

impl xml::Handler for Reading {
    /// Handles a start tag at `depth` (the number of elements already open).
    fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError> {
        if let Some((_, tree)) = self.record.as_mut() {
            // An attribute that cannot be read is noted on its element: it skips the record.
            let _ = tree.open(start);
            return Ok(());
        }
        let name = start.name();
        let name = name.as_ref();
        match depth {
            0 => {
                self.list.published_at = start
                    .try_get_attribute("dateGenerated")
                    .ok()
                    .flatten()
                    .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok())
                    .and_then(|v| parse_timestamp(&v));
            }
            1 => {
                self.container = match name {
                    "INDIVIDUALS" => Some(EntryKind::Person),
                    "ENTITIES" => Some(EntryKind::Organisation),
                    _ => None,
                };
            }
            2 => {
                let Some(kind) = self.container else {
                    return Ok(());
                };
                let expected = match kind {
                    EntryKind::Person => "INDIVIDUAL",
                    _ => "ENTITY",
                };
                if name == expected {
                    let (tree, _) = RecordTree::new(start, LAYOUT.naming, MAX_DEPTH);
                    self.record = Some((kind, tree));
                } else {
                    let list = &mut self.list;
                    let n = list.skipped.len() + list.entries.len() + 1;
                    list.skipped.push(format!(
                        "record {n}: unexpected <{name}> among the {expected} records"
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Handles an end tag that leaves `depth` elements open.
    fn close(&mut self, depth: usize) {
        if let Some((kind, tree)) = self.record.as_mut() {
            if let Some(root) = tree.close() {
                let record = Record { kind: *kind, root };
                self.record = None;
                match record.into_entry() {
                    Ok(entry) => self.list.entries.push(entry),
                    Err(why) => self.list.skipped.push(why),
                }
            }
        } else if depth == 1 {
            self.container = None;
        }
    }

    fn text(&mut self, _depth: usize, text: &str) {
        if let Some((_, tree)) = self.record.as_mut() {
            tree.text(text);
        }
    }

    fn unreadable(&mut self, why: String) {
        if let Some((_, tree)) = self.record.as_mut() {
            tree.unreadable(why);
        }
    }
}

/// What a record's field (an element directly inside the record) gives: its parts' values.
trait Parts {
    /// The value of the first part named `name` that has one.
    fn part(&self, name: &str) -> Option<String>;
    /// The values of the parts named `name`.
    fn parts<'a>(&'a self, name: &'a str) -> impl Iterator<Item = String> + 'a;
}

impl Parts for Element {
    fn part(&self, name: &str) -> Option<String> {
        self.children(name).find_map(|p| value(&p.text))
    }

    fn parts<'a>(&'a self, name: &'a str) -> impl Iterator<Item = String> + 'a {
        self.children(name).filter_map(|p| value(&p.text))
    }
}

/// A record's elements as read (its fields, and their parts), before they are understood.
struct Record {
    kind: EntryKind,
    root: Element,
}

/// A value as the list means it: whitespace collapsed, trimmed; `None` when empty or `na`.
fn value(raw: &str) -> Option<String> {
    crate::text::value(raw).filter(|v| v != "na" && !v.eq_ignore_ascii_case("n/a"))
}

/// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
fn parse_date(s: &str) -> Option<ListedDate> {
    let mut it = s.split('-');
    let year = parse_year(it.next()?)?;
    let month = match it.next() {
        None => return Some(ListedDate::Year(year)),
        Some(m) if m.len() == 2 => m.parse::<u32>().ok().filter(|m| (1..=12).contains(m))?,
        Some(_) => return None,
    };
    let day = match it.next() {
        None => return Some(ListedDate::Month { year, month }),
        Some(d) if d.len() == 2 => d.parse::<u32>().ok()?,
        Some(_) => return None,
    };
    if it.next().is_some() {
        return None;
    }
    NaiveDate::from_ymd_opt(year, month, day).map(ListedDate::Day)
}

impl Record {
    /// The collapsed text of the first field named `name` that has any.
    fn text(&self, name: &str) -> Option<String> {
        self.root.children(name).find_map(|f| value(&f.text))
    }

    fn fields<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.root.children(name)
    }

    /// The entry, or why the record is skipped (naming it).
    fn into_entry(self) -> Result<ListEntry, String> {
        let reference = self.text("REFERENCE_NUMBER");
        let dataid = self.text("DATAID");
        let label = match (&reference, &dataid) {
            (Some(r), Some(d)) => format!("{r} (DATAID {d})"),
            (Some(r), None) => r.clone(),
            (None, Some(d)) => format!("DATAID {d}"),
            (None, None) => {
                let name = self.primary_name().unwrap_or_default();
                return Err(format!(
                    "a record without REFERENCE_NUMBER or DATAID ({name}): no id"
                ));
            }
        };
        self.entry(reference.or(dataid).unwrap_or_default())
            .map_err(|why| format!("{label}: {why}"))
    }

    fn primary_name(&self) -> Option<String> {
        let parts: &[&str] = match self.kind {
            EntryKind::Person => &["FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME"],
            _ => &["FIRST_NAME"],
        };
        let joined = parts
            .iter()
            .filter_map(|p| self.text(p))
            .collect::<Vec<_>>()
            .join(" ");
        (!joined.is_empty()).then_some(joined)
    }

    fn entry(&self, source_entry_id: String) -> Result<ListEntry, String> {
        if let Some(why) = self.root.first_bad() {
            return Err(why.to_owned());
        }
        let (alias_tag, address_tag) = match self.kind {
            EntryKind::Person => ("INDIVIDUAL_ALIAS", "INDIVIDUAL_ADDRESS"),
            _ => ("ENTITY_ALIAS", "ENTITY_ADDRESS"),
        };

        // Names.
        let primary = self.primary_name().ok_or("no name")?;
        let mut names = vec![ListedName {
            full: primary,
            quality: NameQuality::Strong,
        }];
        for f in self.fields("NAME_ORIGINAL_SCRIPT") {
            if let Some(full) = value(&f.text) {
                push_unique(
                    &mut names,
                    ListedName {
                        full,
                        quality: NameQuality::Strong,
                    },
                );
            }
        }
        for alias in self.fields(alias_tag) {
            let Some(full) = alias.part("ALIAS_NAME") else {
                continue;
            };
            let quality = match alias.part("QUALITY").as_deref() {
                None | Some("Good") | Some("a.k.a.") | Some("f.k.a.") => NameQuality::Strong,
                Some("Low") => NameQuality::Weak,
                Some(other) => {
                    return Err(format!("alias {full:?} has an unknown QUALITY {other:?}"));
                }
            };
            push_unique(&mut names, ListedName { full, quality });
        }

        // Birth dates.
        let mut birth_dates = Vec::new();
        for dob in self.fields("INDIVIDUAL_DATE_OF_BIRTH") {
            let date = dob.part("DATE");
            let year = dob.part("YEAR");
            let from = dob.part("FROM_YEAR");
            let to = dob.part("TO_YEAR");
            if let Some(d) = date {
                let parsed =
                    parse_date(&d).ok_or_else(|| format!("unreadable birth DATE {d:?}"))?;
                push_unique(&mut birth_dates, parsed);
            }
            if let Some(y) = year {
                let parsed =
                    parse_year(&y).ok_or_else(|| format!("unreadable birth YEAR {y:?}"))?;
                push_unique(&mut birth_dates, ListedDate::Year(parsed));
            }
            match (from, to) {
                (None, None) => {}
                (Some(f), Some(t)) => {
                    let span = parse_year(&f)
                        .zip(parse_year(&t))
                        .filter(|(f, t)| f <= t)
                        .ok_or_else(|| format!("unreadable birth years {f:?} to {t:?}"))?;
                    push_unique(
                        &mut birth_dates,
                        ListedDate::Years {
                            from: span.0,
                            to: span.1,
                        },
                    );
                }
                (f, t) => {
                    return Err(format!(
                        "a birth-year span with one end (FROM_YEAR {f:?}, TO_YEAR {t:?})"
                    ));
                }
            }
        }
        for alias in self.fields(alias_tag) {
            for d in alias.parts("DATE_OF_BIRTH") {
                let parsed = parse_date(&d)
                    .ok_or_else(|| format!("unreadable alias DATE_OF_BIRTH {d:?}"))?;
                push_unique(&mut birth_dates, parsed);
            }
        }

        // Countries.
        let mut nationalities = Vec::new();
        for f in self.fields("NATIONALITY") {
            for v in f.parts("VALUE") {
                push_country(&mut nationalities, country(v));
            }
        }
        let mut countries = Vec::new();
        for f in self.fields(address_tag) {
            for v in f.parts("COUNTRY") {
                push_country(&mut countries, country(v));
            }
        }
        for f in self.fields("INDIVIDUAL_PLACE_OF_BIRTH") {
            for v in f.parts("COUNTRY") {
                push_country(&mut countries, country(v));
            }
        }
        for alias in self.fields(alias_tag) {
            for v in alias.parts("COUNTRY_OF_BIRTH") {
                push_country(&mut countries, country(v));
            }
        }

        // Identifiers.
        let mut identifiers = Vec::new();
        for doc in self.fields("INDIVIDUAL_DOCUMENT") {
            let Some(number) = doc.part("NUMBER") else {
                continue;
            };
            let kind = doc
                .part("TYPE_OF_DOCUMENT")
                .or_else(|| doc.part("TYPE_OF_DOCUMENT2"))
                .map(|k| k.to_lowercase())
                .unwrap_or_else(|| "document".to_owned());
            let country = doc
                .parts("ISSUING_COUNTRY")
                .chain(doc.parts("COUNTRY_OF_ISSUE"))
                .find_map(|c| iso_code(&c))
                .map(str::to_owned);
            push_unique(
                &mut identifiers,
                ListedIdentifier {
                    kind,
                    value: number,
                    country,
                },
            );
        }

        // Programmes and the listing date.
        let mut programs = Vec::new();
        for f in self.fields("UN_LIST_TYPE") {
            if let Some(p) = value(&f.text) {
                push_unique(&mut programs, p);
            }
        }
        let listed_on = match self.text("LISTED_ON") {
            None => None,
            Some(s) => {
                Some(parse_xs_date(&s).ok_or_else(|| format!("unreadable LISTED_ON {s:?}"))?)
            }
        };

        Ok(ListEntry {
            source_entry_id,
            kind: self.kind,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_cuts_malformed, is_malformed_as, random_bytes_never_panic};
    use crate::testing::{assert_skipped, country, id, strong, testdata, weak, Rng};
    use chrono::{DateTime, Utc};
    use domain::screening::sanctions::ListedCountry;

    fn doc(individuals: &str, entities: &str) -> Vec<u8> {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <CONSOLIDATED_LIST dateGenerated=\"2026-01-02T03:04:05\">\n\
             <INDIVIDUALS>{individuals}</INDIVIDUALS>\n\
             <ENTITIES>{entities}</ENTITIES>\n\
             </CONSOLIDATED_LIST>\n"
        )
        .into_bytes()
    }

    fn is_malformed(r: Result<ParsedList, ReadError>) -> bool {
        is_malformed_as(r, "un-xml")
    }

    #[test]
    fn an_individual_is_mapped_field_by_field() {
        let xml = doc(
            r#"<INDIVIDUAL>
              <DATAID>1</DATAID>
              <FIRST_NAME>  JOHN
                 PAUL </FIRST_NAME>
              <SECOND_NAME/>
              <THIRD_NAME>O&apos;BRIEN &amp; SONS</THIRD_NAME>
              <FOURTH_NAME>na</FOURTH_NAME>
              <UN_LIST_TYPE>Test</UN_LIST_TYPE>
              <REFERENCE_NUMBER> XXi.001 </REFERENCE_NUMBER>
              <LISTED_ON>2020-01-02Z</LISTED_ON>
              <NAME_ORIGINAL_SCRIPT><![CDATA[Jöhn  Päul]]></NAME_ORIGINAL_SCRIPT>
              <!-- a comment is not read -->
              <COMMENTS1>Passport 123 (not read)</COMMENTS1>
              <NATIONALITY><VALUE>Iran (Islamic Republic of)</VALUE><VALUE>Iran</VALUE><VALUE>Atlantis</VALUE></NATIONALITY>
              <INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>Johnny&#32;Dee&#x2019;s</ALIAS_NAME></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ALIAS><QUALITY>Low</QUALITY><ALIAS_NAME>JD</ALIAS_NAME></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ALIAS><QUALITY>Low</QUALITY><ALIAS_NAME> JD </ALIAS_NAME></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>JD</ALIAS_NAME></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ALIAS><QUALITY/><ALIAS_NAME/></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ALIAS><QUALITY/><ALIAS_NAME>Unmarked</ALIAS_NAME><DATE_OF_BIRTH>1970-05</DATE_OF_BIRTH><COUNTRY_OF_BIRTH>France</COUNTRY_OF_BIRTH></INDIVIDUAL_ALIAS>
              <INDIVIDUAL_ADDRESS><CITY>Paris</CITY><COUNTRY>France</COUNTRY></INDIVIDUAL_ADDRESS>
              <INDIVIDUAL_ADDRESS><COUNTRY/></INDIVIDUAL_ADDRESS>
              <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><DATE>1970-05-06</DATE></INDIVIDUAL_DATE_OF_BIRTH>
              <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>APPROXIMATELY</TYPE_OF_DATE><YEAR>1969</YEAR></INDIVIDUAL_DATE_OF_BIRTH>
              <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE><FROM_YEAR>1968</FROM_YEAR><TO_YEAR>1971</TO_YEAR></INDIVIDUAL_DATE_OF_BIRTH>
              <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><NOTE>possibly 1950</NOTE></INDIVIDUAL_DATE_OF_BIRTH>
              <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE/></INDIVIDUAL_DATE_OF_BIRTH>
              <INDIVIDUAL_PLACE_OF_BIRTH><COUNTRY>Germany</COUNTRY></INDIVIDUAL_PLACE_OF_BIRTH>
              <INDIVIDUAL_DOCUMENT><TYPE_OF_DOCUMENT>Passport</TYPE_OF_DOCUMENT><NUMBER> A 123 </NUMBER><ISSUING_COUNTRY>Atlantis</ISSUING_COUNTRY><COUNTRY_OF_ISSUE>Germany</COUNTRY_OF_ISSUE></INDIVIDUAL_DOCUMENT>
              <INDIVIDUAL_DOCUMENT><TYPE_OF_DOCUMENT>National Identification
                 Number</TYPE_OF_DOCUMENT><NUMBER>99</NUMBER><ISSUING_COUNTRY>Syrian Arab Republic</ISSUING_COUNTRY></INDIVIDUAL_DOCUMENT>
              <INDIVIDUAL_DOCUMENT><TYPE_OF_DOCUMENT>Passport</TYPE_OF_DOCUMENT><NOTE>passport 777</NOTE></INDIVIDUAL_DOCUMENT>
              <INDIVIDUAL_DOCUMENT><TYPE_OF_DOCUMENT2>Ration card</TYPE_OF_DOCUMENT2><NUMBER>5</NUMBER></INDIVIDUAL_DOCUMENT>
              <INDIVIDUAL_DOCUMENT><NUMBER>6</NUMBER></INDIVIDUAL_DOCUMENT>
              <INDIVIDUAL_DOCUMENT/>
            </INDIVIDUAL>"#,
            "",
        );
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        assert_eq!(
            list.published_at,
            Some(
                DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
                    .unwrap()
                    .with_timezone(&Utc)
            )
        );
        assert_eq!(
            list.entries,
            vec![ListEntry {
                source_entry_id: "XXi.001".into(),
                kind: EntryKind::Person,
                names: vec![
                    strong("JOHN PAUL O'BRIEN & SONS"),
                    strong("Jöhn Päul"),
                    strong("Johnny Dee’s"),
                    weak("JD"),
                    strong("JD"),
                    strong("Unmarked"),
                ],
                birth_dates: vec![
                    ListedDate::Day(NaiveDate::from_ymd_opt(1970, 5, 6).unwrap()),
                    ListedDate::Year(1969),
                    ListedDate::Years {
                        from: 1968,
                        to: 1971
                    },
                    ListedDate::Month {
                        year: 1970,
                        month: 5
                    },
                ],
                nationalities: vec![
                    country(Some("IR"), "Iran (Islamic Republic of)"),
                    country(None, "Atlantis"),
                ],
                countries: vec![
                    country(Some("FR"), "France"),
                    country(Some("DE"), "Germany"),
                ],
                identifiers: vec![
                    id("passport", "A 123", Some("DE")),
                    id("national identification number", "99", Some("SY")),
                    id("ration card", "5", None),
                    id("document", "6", None),
                ],
                programs: vec!["Test".into()],
                listed_on: NaiveDate::from_ymd_opt(2020, 1, 2),
                exposure: None,
            }]
        );
    }

    #[test]
    fn an_entity_is_named_by_its_first_name_and_low_aliases_are_weak() {
        let xml = doc(
            "",
            r#"<ENTITY>
              <DATAID>77</DATAID>
              <FIRST_NAME>ACME
                TRADING</FIRST_NAME>
              <REFERENCE_NUMBER/>
              <UN_LIST_TYPE>Test</UN_LIST_TYPE>
              <LISTED_ON>2001-02-03-04:00</LISTED_ON>
              <ENTITY_ALIAS><QUALITY>a.k.a.</QUALITY><ALIAS_NAME>ACME</ALIAS_NAME></ENTITY_ALIAS>
              <ENTITY_ALIAS><QUALITY>f.k.a.</QUALITY><ALIAS_NAME>OLD ACME</ALIAS_NAME></ENTITY_ALIAS>
              <ENTITY_ALIAS><QUALITY>Low</QUALITY><ALIAS_NAME>The Company</ALIAS_NAME></ENTITY_ALIAS>
              <ENTITY_ADDRESS><COUNTRY>Türkiye</COUNTRY></ENTITY_ADDRESS>
              <ENTITY_ADDRESS><COUNTRY>Turkey</COUNTRY></ENTITY_ADDRESS>
              <ENTITY_ADDRESS><COUNTRY>former Soviet Union</COUNTRY></ENTITY_ADDRESS>
            </ENTITY>"#,
        );
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        let e = &list.entries[0];
        // No REFERENCE_NUMBER: the DATAID is the id.
        assert_eq!(e.source_entry_id, "77");
        assert_eq!(e.kind, EntryKind::Organisation);
        assert_eq!(
            e.names,
            vec![
                strong("ACME TRADING"),
                strong("ACME"),
                strong("OLD ACME"),
                weak("The Company")
            ]
        );
        assert_eq!(
            e.countries,
            vec![
                ListedCountry {
                    code: Some("TR".into()),
                    name: "Türkiye".into()
                },
                ListedCountry {
                    code: None,
                    name: "former Soviet Union".into()
                },
            ]
        );
        assert_eq!(e.listed_on, NaiveDate::from_ymd_opt(2001, 2, 3));
    }

    #[test]
    fn records_that_cannot_be_understood_are_skipped_whole_and_named() {
        let person = |id: &str, extra: &str| {
            format!(
                "<INDIVIDUAL><DATAID>{id}</DATAID><FIRST_NAME>P {id}</FIRST_NAME>\
                 <REFERENCE_NUMBER>R.{id}</REFERENCE_NUMBER>{extra}</INDIVIDUAL>"
            )
        };
        let individuals = [
            person("1", ""),
            person(
                "2",
                "<INDIVIDUAL_ALIAS><QUALITY>Medium</QUALITY><ALIAS_NAME>X</ALIAS_NAME></INDIVIDUAL_ALIAS>",
            ),
            person(
                "3",
                "<INDIVIDUAL_DATE_OF_BIRTH><DATE>1970-13-01</DATE></INDIVIDUAL_DATE_OF_BIRTH>",
            ),
            person(
                "4",
                "<INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE><FROM_YEAR>1970</FROM_YEAR></INDIVIDUAL_DATE_OF_BIRTH>",
            ),
            person(
                "5",
                "<INDIVIDUAL_DATE_OF_BIRTH><FROM_YEAR>1972</FROM_YEAR><TO_YEAR>1970</TO_YEAR></INDIVIDUAL_DATE_OF_BIRTH>",
            ),
            person("6", "<LISTED_ON>yesterday</LISTED_ON>"),
            person("7", "<COMMENTS1>&nbsp;</COMMENTS1>"),
            person("8", "<INDIVIDUAL_DATE_OF_BIRTH><YEAR>70</YEAR></INDIVIDUAL_DATE_OF_BIRTH>"),
            "<INDIVIDUAL><DATAID>9</DATAID><REFERENCE_NUMBER>R.9</REFERENCE_NUMBER>\
             <INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>Alias only</ALIAS_NAME></INDIVIDUAL_ALIAS></INDIVIDUAL>"
                .to_owned(),
            "<INDIVIDUAL><FIRST_NAME>Nobody</FIRST_NAME></INDIVIDUAL>".to_owned(),
            "<INDIVIDUAL/>".to_owned(),
            "<ENTITY><FIRST_NAME>Misplaced</FIRST_NAME></ENTITY>".to_owned(),
            person("10", ""),
        ]
        .concat();
        let list = read(&doc(&individuals, "")).unwrap();
        let ids: Vec<_> = list
            .entries
            .iter()
            .map(|e| e.source_entry_id.as_str())
            .collect();
        assert_eq!(ids, ["R.1", "R.10"]);
        assert_eq!(list.skipped.len(), 11, "{:#?}", list.skipped);
        assert_skipped(
            &list.skipped,
            &[
                "R.2 (DATAID 2): alias \"X\" has an unknown QUALITY \"Medium\"",
                "R.3 (DATAID 3): unreadable birth DATE",
                "R.4 (DATAID 4): a birth-year span with one end",
                "R.5 (DATAID 5): unreadable birth years",
                "R.6 (DATAID 6): unreadable LISTED_ON",
                "R.7 (DATAID 7): unknown XML reference &nbsp;",
                "R.8 (DATAID 8): unreadable birth YEAR",
                "R.9 (DATAID 9): no name",
                "a record without REFERENCE_NUMBER or DATAID (Nobody): no id",
                "a record without REFERENCE_NUMBER or DATAID (): no id",
                "record 12: unexpected <ENTITY> among the INDIVIDUAL records",
            ],
        );
    }

    #[test]
    fn an_empty_list_reads_as_no_entries() {
        let list = read(b"<CONSOLIDATED_LIST/>").unwrap();
        assert!(list.entries.is_empty() && list.skipped.is_empty());
        assert_eq!(list.published_at, None);
        let list = read(&doc("", "")).unwrap();
        assert!(list.entries.is_empty());
    }

    #[test]
    fn files_that_are_not_this_format_are_malformed() {
        for bad in [
            &b""[..],
            b"   \n",
            b"<nope/>",
            b"<nope><CONSOLIDATED_LIST/></nope>",
            b"hello world",
            b"\x00\x01\x02\xff\xfe<\x80",
            b"<CONSOLIDATED_LIST>",
            b"<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>",
            b"<CONSOLIDATED_LIST></CONSOLIDATED_LIST><CONSOLIDATED_LIST/>",
            b"<CONSOLIDATED_LIST/>trailing",
            b"<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><FIRST_NAME>A</FIRST_NAME>",
            b"<CONSOLIDATED_LIST a=\"1\" a=\"2\"></CONSOLIDATED_LIST><",
        ] {
            assert!(
                is_malformed(read(bad)),
                "{:?} should be malformed",
                String::from_utf8_lossy(bad)
            );
        }
    }

    fn sample() -> Vec<u8> {
        testdata("un/un_sc_consolidated_2026-02-27.xml")
    }

    #[test]
    fn a_truncated_copy_of_the_sample_is_malformed() {
        assert_cuts_malformed(read, "un-xml", &sample(), (40, 7), 1);
    }

    #[test]
    fn odd_input_never_panics() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Random bytes, with and without a plausible root.
        random_bytes_never_panic(
            read,
            &mut rng,
            b"<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL>",
        );
        // A real record with bytes flipped, dropped and markup characters sprayed in.
        let full = sample();
        let end = full
            .windows(b"</INDIVIDUAL>".len())
            .position(|w| w == b"</INDIVIDUAL>")
            .unwrap();
        let record = &full[..end + "</INDIVIDUAL>".len()];
        let tail = b"</INDIVIDUALS></CONSOLIDATED_LIST>";
        for _ in 0..300 {
            let mut bytes = record.to_vec();
            for _ in 0..(1 + rng.next() % 8) {
                let at = (rng.next() as usize) % bytes.len();
                match rng.next() % 4 {
                    0 => bytes[at] = rng.next() as u8,
                    1 => {
                        bytes.remove(at);
                    }
                    2 => bytes[at] = b"<>&/;\"'="[(rng.next() % 8) as usize],
                    _ => bytes.insert(at, b'&'),
                }
            }
            bytes.extend_from_slice(tail);
            let _ = read(&bytes);
        }
        // Deep nesting inside a record is not kept in memory as a tree.
        let deep = format!(
            "<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><FIRST_NAME>Deep</FIRST_NAME>\
             <REFERENCE_NUMBER>D.1</REFERENCE_NUMBER>{}{}</INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>",
            "<X>".repeat(100_000),
            "</X>".repeat(100_000)
        );
        let list = read(deep.as_bytes()).unwrap();
        assert_eq!(list.entries.len(), 1);
    }

    #[test]
    fn dates_read_as_precisely_as_written() {
        assert_eq!(
            parse_date("1971-05-02"),
            NaiveDate::from_ymd_opt(1971, 5, 2).map(ListedDate::Day)
        );
        assert_eq!(
            parse_date("1971-05"),
            Some(ListedDate::Month {
                year: 1971,
                month: 5
            })
        );
        assert_eq!(parse_date("1971"), Some(ListedDate::Year(1971)));
        for bad in [
            "",
            "71",
            "1971-5-2",
            "1971-02-30",
            "1971-00",
            "1971-05-02-01",
            "19x1",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert_eq!(
            parse_xs_date("2015-04-07-04:00"),
            NaiveDate::from_ymd_opt(2015, 4, 7)
        );
        assert_eq!(
            parse_xs_date("2015-04-07+05:30"),
            NaiveDate::from_ymd_opt(2015, 4, 7)
        );
        assert_eq!(parse_xs_date("2015-04-07T00:00"), None);
        assert_eq!(parse_xs_date("2015-04-07-04:0é"), None);
        assert_eq!(parse_xs_date("2015-04-0é"), None);
        assert!(parse_timestamp("2026-02-27T00:00:09.554Z").is_some());
        assert!(parse_timestamp("27/02/2026").is_none());
    }
}
