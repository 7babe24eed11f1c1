//! The EU's consolidated financial sanctions file (FSF XML 1.1), read into [`ParsedList`].
//!
//! The file is streamed with `quick-xml`; one `sanctionEntity` is gathered at a time (as a
//! tree of its elements three levels deep, `xml::RecordTree`: its attributes, its children's
//! attributes and the `remark` texts of its children are what is read) and mapped whole, or
//! skipped whole and named in [`ParsedList::skipped`]
//! (`<euReferenceNumber> (logicalId <n>): <why>`). A file that is not well-formed XML, whose
//! root is not `export` in the namespace `http://eu.europa.ec/fpi/fsd/export`, or that ends
//! before its root closes (a truncated download) is [`ReadError::Malformed`]. The retired
//! v1.0 layout (`<WHOLE>` root, `ENTITY`/`NAME`/`BIRTH` elements, no namespace) is therefore
//! malformed too: it is another format, and this reader does not guess its way through it.
//!
//! Mapping decisions:
//!
//! - **Ids.** `source_entry_id` is `sanctionEntity/@euReferenceNumber` (`EU.502.12`), or the
//!   record's `@logicalId` when that is empty (the FSF's own record id); a record with
//!   neither is skipped.
//! - **Kind.** `subjectType/@code` `person` is [`EntryKind::Person`], `enterprise`
//!   [`EntryKind::Organisation`]; without a known code `@classificationCode` `P`/`E` says the
//!   same; anything else (or no `subjectType`) is [`EntryKind::Other`].
//! - **Names.** Every `nameAlias`: `@wholeName`, or `@firstName @middleName @lastName`
//!   joined when the whole name is empty; a `nameAlias` without any is ignored. The FSF
//!   marks no name as the primary one, so the name entered first — the strong name with the
//!   lowest `@logicalId`, which in the sample is each designation's original name (`Khalid
//!   Sheikh MOHAMMED`, `Ibrahim Hassan Tali Al-Asiri`, `Parchin Chemical Industries (PCI)`) —
//!   comes first, then every other name in file order. `@strong="false"`, or a `remark`
//!   saying `low quality` (case-insensitive, so the list's `low quality aliias` too), is
//!   [`NameQuality::Weak`]; every other name (including `good quality alias`) is
//!   [`NameQuality::Strong`]. A `@strong` other than `true`/`false`/`1`/`0` skips the record.
//!   When every name is weak, the first in file order leads and stays weak (the list vouches
//!   for none). A record without a name is skipped. Names in every script and language are
//!   kept; they are deduplicated on (text, quality), the first kept. `@title`, `@function`,
//!   `@gender` and `@nameLanguage` are not read.
//! - **Text.** Attribute values are unescaped (the five XML entities and character
//!   references) and every value has its whitespace collapsed to single spaces and trimmed.
//!   An attribute that cannot be read, or an undeclared entity in a record's text, skips the
//!   record. Comments and processing instructions are not read.
//! - **Birth dates.** `birthdate` in the Gregorian calendar (`@calendarType` `GREGORIAN` or
//!   absent): `@birthdate` (`YYYY-MM-DD`) is a day; otherwise `@year` with `@monthOfYear`
//!   and `@dayOfMonth` is a year, month or day as far as given (a day without a month gives
//!   the year); `@yearRangeFrom`+`@yearRangeTo` is a [`ListedDate::Years`] span. **Circa**:
//!   `@circa="true"` on a day, month or year widens it to the span of the year before to the
//!   year after (`circa 1965` is `1964..1966`): the list does not vouch for the year, and a
//!   span is how the domain keeps an approximate date. A range is already the list's
//!   approximation (`circa` with `1953`–`1958`, remark `between 1953 and 1958`) and is kept
//!   as given. **Other calendars** are never read as Gregorian. An `ISLAMIC` date is converted
//!   from its `@year`/`@monthOfYear`/`@dayOfMonth` (or its year range) with the arithmetic
//!   (tabular) Islamic calendar, widened by three days either side for the months that
//!   start on a sighted moon, and kept as the narrowest month, year or span of years that
//!   holds the whole window (24/6/1402 AH is April 1982; a Hijri year alone is two Gregorian
//!   years): never as a day, which the conversion cannot promise. Its `@birthdate` is not
//!   read (the format does not say in which calendar it is written). A date in any other
//!   calendar is left out (the rest of the record is read). A `birthdate` with both a date
//!   and a range gives both. A date present but unreadable (a Gregorian or Islamic one), a
//!   range with one end or `from > to`, or a `@circa` other than `true`/`false` skips the
//!   record. A `birthdate` without a date gives none (its place still counts below).
//! - **Countries.** The FSF gives ISO 3166-1 alpha-2 codes: `citizenship/@countryIso2Code`
//!   are the nationalities; `address` and `birthdate` (place of birth) `@countryIso2Code`
//!   are the other countries, in file order. Each is `ListedCountry { code, name }` with the
//!   list's `@countryDescription` as the name (`AFGHANISTAN`; the code itself when there is
//!   no description). `00` (description `UNKNOWN`) is no country; a code that is not two
//!   letters falls back to [`crate::countries::iso_code`] of the description. Both lists are
//!   deduplicated by code (else by name).
//! - **Identifiers.** `identification` with a `@number`: kind is
//!   `@identificationTypeDescription` lower case (`national passport`, `registration
//!   number`), else `@identificationTypeCode`, else `document`; the value the number as
//!   written; the country its `@countryIso2Code` (none for `00`). A different `@latinNumber`
//!   (the number transliterated) is a second identifier of the same kind; with no `@number`
//!   the latin number alone is used. Documents known to be expired or false are kept: the
//!   number is still evidence of who used it.
//! - **Programs.** `regulation/@programme` (`TERR`, `AFG`, `IRN`, ...), deduplicated.
//! - **Dates of the list.** `sanctionEntity/@designationDate` is `listed_on` (`None` when
//!   absent; present but unreadable skips the record); `export/@generationDate` is
//!   `published_at` (RFC 3339; without a zone taken as UTC; unreadable gives `None`).
//! - **Not read.** `remark`s (other than a name's quality), `@designationDetails`,
//!   `@unitedNationId`, `regulationSummary`, publication URLs, cities, streets, `contactInfo`,
//!   issue and validity dates: free text or bookkeeping the matcher does not use. Elements
//!   of the root other than `sanctionEntity` are not records and are passed over.

use crate::countries::iso_code;
use crate::text::{covering, day_or_month, parse_timestamp, parse_xs_date, parse_year};
use crate::text::{push_country, push_unique, value};
use crate::xml::{self, Element, Layout, Naming, RecordTree};
use crate::ReadError;
use chrono::{Datelike, Duration, NaiveDate};
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality, ParsedList,
};
use quick_xml::events::BytesStart;
use quick_xml::XmlVersion;

const FORMAT: &str = "eu-xml";
const NAMESPACE: &str = "http://eu.europa.ec/fpi/fsd/export";
const RECORD: &str = "sanctionEntity";
/// Levels of a record kept: the record, its children, and theirs (a name's `remark`); the
/// format reads nothing deeper.
const MAX_DEPTH: usize = 3;

const LAYOUT: Layout = Layout {
    format: FORMAT,
    root: "export",
    naming: Naming::AfterLastPrefix,
    expand_empty_elements: false,
    refuse_cdata_outside_root: true,
};

/// Days a converted Islamic date is widened by either side: the arithmetic calendar and the
/// sighted one differ by a day or two.
const HIJRI_DRIFT_DAYS: i64 = 3;

fn malformed(detail: impl Into<String>) -> ReadError {
    xml::malformed(FORMAT, detail)
}

/// Reads a whole FSF XML 1.1 file.
pub(crate) fn read(xml: &[u8]) -> Result<ParsedList, ReadError> {
    let mut state = State {
        list: ParsedList {
            source: ListSource::EuFinancialSanctions,
            published_at: None,
            entries: Vec::new(),
            skipped: Vec::new(),
            set_aside: Vec::new(),
        },
        record: None,
    };
    xml::read(xml, &LAYOUT, &mut state)?;
    Ok(state.list)
}

/// What the reader has gathered. The open elements' depth is 1 inside the root, 2 inside a
/// record, 3 inside a record's child, 4 inside a child's child.
struct State {
    list: ParsedList,
    record: Option<RecordTree>,
}

impl xml::Handler for State {
    /// Handles a start tag (`depth` elements are open around it).
    fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError> {
        if let Some(tree) = self.record.as_mut() {
            let _ = tree.open(start);
            return Ok(());
        }
        let qname = start.name();
        let raw = qname.as_ref();
        let local = raw.rsplit_once(':').map_or(raw, |(_, l)| l);
        match depth {
            0 => {
                let attrs = attributes(start).map_err(malformed)?;
                // The root's namespace can only be declared on the root itself.
                let declaration = match raw.rsplit_once(':') {
                    Some((prefix, _)) => format!("xmlns:{prefix}"),
                    None => "xmlns".to_owned(),
                };
                let namespace = attrs
                    .iter()
                    .find(|(k, _)| *k == declaration)
                    .map(|(_, v)| v.trim());
                if namespace != Some(NAMESPACE) {
                    return Err(malformed(format!(
                        "the root <{raw}> is not in the FSF namespace {NAMESPACE}"
                    )));
                }
                self.list.published_at = attrs
                    .iter()
                    .find(|(k, _)| k == "generationDate")
                    .and_then(|(_, v)| parse_timestamp(v));
            }
            1 if local == RECORD => {
                // An attribute that cannot be read is noted on its element: it skips the record.
                self.record = Some(RecordTree::new(start, LAYOUT.naming, MAX_DEPTH).0);
            }
            // Other elements of the root are not records; deeper elements are no part of
            // what is read.
            _ => {}
        }
        Ok(())
    }

    /// Handles the end of an element.
    fn close(&mut self, _depth: usize) {
        if let Some(tree) = self.record.as_mut() {
            if let Some(root) = tree.close() {
                self.record = None;
                match (Record { root }).into_entry() {
                    Ok(entry) => self.list.entries.push(entry),
                    Err(why) => self.list.skipped.push(why),
                }
            }
        }
    }

    fn text(&mut self, _depth: usize, text: &str) {
        if let Some(tree) = self.record.as_mut() {
            tree.text(text);
        }
    }

    fn unreadable(&mut self, why: String) {
        if let Some(tree) = self.record.as_mut() {
            tree.unreadable(why);
        }
    }
}

/// The root's attributes, unescaped and normalised, by their raw names (its namespace
/// declaration is `xmlns` or `xmlns:<prefix>` as written).
fn attributes(start: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for attr in start.attributes() {
        let attr =
            attr.map_err(|e| format!("unreadable attributes on <{}>: {e}", start.name().0))?;
        let key = attr.key.as_ref().to_owned();
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("unreadable attribute {key} on <{}>: {e}", start.name().0))?;
        out.push((key, value.into_owned()));
    }
    Ok(out)
}

/// A month or day number; `0` (and an empty value) is no number.
fn parse_part(s: Option<&str>, max: u32) -> Result<Option<u32>, ()> {
    s.map_or(Ok(None), |s| day_or_month(s, max))
}

/// `YYYY-MM-DD`, with an optional `xs:date` zone (`Z`, `+HH:MM`, `-HH:MM`).
fn parse_day(s: &str) -> Option<NaiveDate> {
    let day = s.get(..10)?.as_bytes();
    if day[4] != b'-' || day[7] != b'-' {
        return None;
    }
    parse_xs_date(s)
}

/// An `xs:boolean`.
fn parse_flag(s: Option<&str>) -> Result<Option<bool>, ()> {
    match s {
        None => Ok(None),
        Some("true") | Some("1") => Ok(Some(true)),
        Some("false") | Some("0") => Ok(Some(false)),
        Some(_) => Err(()),
    }
}

/// A country as the FSF gives it: an ISO code (`00` unknown) and its description.
fn country(code: Option<String>, description: Option<String>) -> Option<ListedCountry> {
    let code = code
        .map(|c| c.to_ascii_uppercase())
        .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()));
    let description = description.filter(|d| !d.eq_ignore_ascii_case("UNKNOWN"));
    match (code, description) {
        (Some(code), name) => Some(ListedCountry {
            name: name.unwrap_or_else(|| code.clone()),
            code: Some(code),
        }),
        (None, Some(name)) => Some(ListedCountry {
            code: iso_code(&name).map(str::to_owned),
            name,
        }),
        (None, None) => None,
    }
}

/// A date made approximate: the years around it.
fn widen(date: ListedDate) -> ListedDate {
    let (from, to) = match date {
        ListedDate::Day(d) => (d.year(), d.year()),
        ListedDate::Month { year, .. } | ListedDate::Year(year) => (year, year),
        ListedDate::Years { from, to } => (from, to),
    };
    ListedDate::Years {
        from: from - 1,
        to: to + 1,
    }
}

/// The day a date of the arithmetic Islamic calendar falls on (month 13 is the first month
/// of the next year), or `None` out of range.
fn from_hijri(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
    let (year, month) = if month == 13 {
        (i64::from(year) + 1, 1)
    } else {
        (i64::from(year), i64::from(month))
    };
    // Days since 0001-01-01 (day 1), the calendar's epoch being 622-07-16 (Julian).
    const EPOCH: i64 = 227_015;
    let fixed = EPOCH - 1
        + (year - 1) * 354
        + (3 + 11 * year).div_euclid(30)
        + 29 * (month - 1)
        + month / 2
        + i64::from(day);
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(fixed).ok()?)
}

/// The Gregorian days an Islamic year, month or day may fall on, drift included.
fn hijri_window(year: i32, month: Option<u32>, day: Option<u32>) -> Option<ListedDate> {
    let (first, last) = match (month, day) {
        (Some(m), Some(d)) => {
            let day = from_hijri(year, m, d)?;
            (day, day)
        }
        (Some(m), None) => (
            from_hijri(year, m, 1)?,
            from_hijri(year, m + 1, 1)?.pred_opt()?,
        ),
        (None, _) => (
            from_hijri(year, 1, 1)?,
            from_hijri(year, 13, 1)?.pred_opt()?,
        ),
    };
    let drift = Duration::days(HIJRI_DRIFT_DAYS);
    Some(covering(
        first.checked_sub_signed(drift)?,
        last.checked_add_signed(drift)?,
    ))
}

/// One element directly inside a record: its attributes, and its `remark`s' text.
#[derive(Clone, Copy)]
struct Child<'a>(&'a Element);

impl<'a> Child<'a> {
    fn name(self) -> &'a str {
        &self.0.name
    }

    /// The collapsed value of the attribute named `key`, if it has one.
    fn attr(self, key: &str) -> Option<String> {
        self.0.attr(key).and_then(value)
    }

    /// The texts of its `remark`s.
    fn remarks(self) -> impl Iterator<Item = &'a str> {
        self.0.children("remark").map(|r| r.text.as_str())
    }

    fn country(self) -> Option<ListedCountry> {
        country(
            self.attr("countryIso2Code"),
            self.attr("countryDescription"),
        )
    }
}

/// A `sanctionEntity` as read, before it is understood: its elements as a tree.
struct Record {
    root: Element,
}

/// A name of a record, with what decides its place.
struct Name {
    name: ListedName,
    logical_id: Option<u64>,
}

impl Record {
    fn attr(&self, key: &str) -> Option<String> {
        self.root.attr(key).and_then(value)
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = Child<'a>> + 'a {
        self.root.children(name).map(Child)
    }

    /// The entry, or why the record is skipped (naming it).
    fn into_entry(self) -> Result<ListEntry, String> {
        let reference = self.attr("euReferenceNumber");
        let logical = self.attr("logicalId");
        let label = match (&reference, &logical) {
            (Some(r), Some(l)) => format!("{r} (logicalId {l})"),
            (Some(r), None) => r.clone(),
            (None, Some(l)) => format!("logicalId {l}"),
            (None, None) => {
                let first = self
                    .names()
                    .ok()
                    .and_then(|n| n.into_iter().next())
                    .map(|n| n.name.full)
                    .unwrap_or_default();
                return Err(format!(
                    "a record without euReferenceNumber or logicalId ({first}): no id"
                ));
            }
        };
        self.entry(reference.or(logical).unwrap_or_default())
            .map_err(|why| format!("{label}: {why}"))
    }

    /// Every name in file order.
    fn names(&self) -> Result<Vec<Name>, String> {
        let mut names = Vec::new();
        for alias in self.children("nameAlias") {
            let full = alias.attr("wholeName").or_else(|| {
                let parts: Vec<_> = ["firstName", "middleName", "lastName"]
                    .iter()
                    .filter_map(|p| alias.attr(p))
                    .collect();
                value(&parts.join(" "))
            });
            let Some(full) = full else { continue };
            let strong = parse_flag(alias.attr("strong").as_deref())
                .map_err(|()| format!("name {full:?} has an unknown strong mark"))?;
            let low = alias
                .remarks()
                .filter_map(value)
                .any(|r| r.to_lowercase().contains("low quality"));
            let quality = if strong == Some(false) || low {
                NameQuality::Weak
            } else {
                NameQuality::Strong
            };
            names.push(Name {
                name: ListedName { full, quality },
                logical_id: alias.attr("logicalId").and_then(|l| l.parse().ok()),
            });
        }
        Ok(names)
    }

    fn entry(&self, source_entry_id: String) -> Result<ListEntry, String> {
        if let Some(why) = self.root.first_bad() {
            return Err(why.to_owned());
        }

        // Kind.
        let subject = self.children("subjectType").next();
        let kind = match (
            subject.and_then(|s| s.attr("code")).as_deref(),
            subject
                .and_then(|s| s.attr("classificationCode"))
                .as_deref(),
        ) {
            (Some("person"), _) | (_, Some("P")) => EntryKind::Person,
            (Some("enterprise"), _) | (_, Some("E")) => EntryKind::Organisation,
            _ => EntryKind::Other,
        };

        // Names: the first entered strong name, then the others in file order.
        let mut all = self.names()?;
        if all.is_empty() {
            return Err("no name".into());
        }
        let lead = all
            .iter()
            .enumerate()
            .filter(|(_, n)| n.name.quality == NameQuality::Strong)
            .min_by_key(|(i, n)| (n.logical_id.is_none(), n.logical_id, *i))
            .map_or(0, |(i, _)| i);
        let first = all.remove(lead);
        let mut names = vec![first.name];
        for n in all {
            push_unique(&mut names, n.name);
        }

        // Birth dates and the other countries, in file order.
        let mut birth_dates = Vec::new();
        let mut countries = Vec::new();
        for child in self.root.children.iter().map(Child) {
            match child.name() {
                "birthdate" => {
                    for d in birth_dates_of(child)? {
                        push_unique(&mut birth_dates, d);
                    }
                    if let Some(c) = child.country() {
                        push_country(&mut countries, c);
                    }
                }
                "address" => {
                    if let Some(c) = child.country() {
                        push_country(&mut countries, c);
                    }
                }
                _ => {}
            }
        }
        let mut nationalities = Vec::new();
        for c in self.children("citizenship").filter_map(Child::country) {
            push_country(&mut nationalities, c);
        }

        // Identifiers.
        let mut identifiers = Vec::new();
        for doc in self.children("identification") {
            let kind = doc
                .attr("identificationTypeDescription")
                .or_else(|| doc.attr("identificationTypeCode"))
                .map(|k| k.to_lowercase())
                .unwrap_or_else(|| "document".to_owned());
            let country = doc.country().and_then(|c| c.code);
            for number in [doc.attr("number"), doc.attr("latinNumber")]
                .into_iter()
                .flatten()
            {
                push_unique(
                    &mut identifiers,
                    ListedIdentifier {
                        kind: kind.clone(),
                        value: number,
                        country: country.clone(),
                    },
                );
            }
        }

        // Programmes and the listing date.
        let mut programs = Vec::new();
        for p in self
            .children("regulation")
            .filter_map(|r| r.attr("programme"))
        {
            push_unique(&mut programs, p);
        }
        let listed_on = match self.attr("designationDate") {
            None => None,
            Some(s) => {
                Some(parse_day(&s).ok_or_else(|| format!("unreadable designationDate {s:?}"))?)
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

/// The dates of one `birthdate` element (see the module's notes), or why the record is
/// skipped.
fn birth_dates_of(b: Child<'_>) -> Result<Vec<ListedDate>, String> {
    let unreadable = |what: &str| {
        let attrs: Vec<_> = [
            "calendarType",
            "birthdate",
            "year",
            "monthOfYear",
            "dayOfMonth",
            "yearRangeFrom",
            "yearRangeTo",
            "circa",
        ]
        .iter()
        .filter_map(|k| b.attr(k).map(|v| format!("{k}={v:?}")))
        .collect();
        format!("unreadable {what} ({})", attrs.join(" "))
    };
    let circa = parse_flag(b.attr("circa").as_deref())
        .map_err(|()| unreadable("circa mark of a birthdate"))?
        .unwrap_or(false);
    let islamic = match b
        .attr("calendarType")
        .map(|c| c.to_ascii_uppercase())
        .as_deref()
    {
        None | Some("GREGORIAN") => false,
        Some("ISLAMIC") | Some("HIJRI") => true,
        // A calendar this reader cannot convert: the date is left out.
        Some(_) => return Ok(Vec::new()),
    };

    // The date itself. `parts` gives the year, month and day as far as given (`Some(None)`
    // without a year), or `None` when they are unreadable.
    type Parts = Option<(i32, Option<u32>, Option<u32>)>;
    let parts = || -> Option<Parts> {
        let Some(y) = b.attr("year") else {
            return Some(None);
        };
        let y = parse_year(&y)?;
        let m = parse_part(b.attr("monthOfYear").as_deref(), 12).ok()?;
        let d = parse_part(b.attr("dayOfMonth").as_deref(), 31).ok()?;
        // A day without its month says nothing more than the year.
        Some(Some((y, m, m.and(d))))
    };
    let date = if islamic {
        match parts().ok_or_else(|| unreadable("Islamic birthdate"))? {
            None => None,
            Some((y, m, d)) => {
                Some(hijri_window(y, m, d).ok_or_else(|| unreadable("Islamic birthdate"))?)
            }
        }
    } else if let Some(full) = b.attr("birthdate") {
        Some(ListedDate::Day(
            parse_day(&full).ok_or_else(|| unreadable("birthdate"))?,
        ))
    } else {
        match parts().ok_or_else(|| unreadable("birthdate"))? {
            None => None,
            Some((y, None, _)) => Some(ListedDate::Year(y)),
            Some((y, Some(m), None)) => Some(ListedDate::Month { year: y, month: m }),
            Some((y, Some(m), Some(d))) => Some(ListedDate::Day(
                NaiveDate::from_ymd_opt(y, m, d).ok_or_else(|| unreadable("birthdate"))?,
            )),
        }
    };
    let mut dates = Vec::new();
    if let Some(date) = date {
        dates.push(if circa { widen(date) } else { date });
    }

    // The range, kept as given (circa or not).
    match (b.attr("yearRangeFrom"), b.attr("yearRangeTo")) {
        (None, None) => {}
        (Some(f), Some(t)) => {
            let (from, to) = parse_year(&f)
                .zip(parse_year(&t))
                .filter(|(f, t)| f <= t)
                .ok_or_else(|| unreadable("birthdate year range"))?;
            let span = if islamic {
                hijri_window(from, None, None)
                    .zip(hijri_window(to, None, None))
                    .map(|(a, b)| ListedDate::Years {
                        from: years_of(a).0,
                        to: years_of(b).1,
                    })
                    .ok_or_else(|| unreadable("Islamic birthdate year range"))?
            } else {
                ListedDate::Years { from, to }
            };
            push_unique(&mut dates, span);
        }
        _ => return Err(unreadable("one-ended birthdate year range")),
    }
    Ok(dates)
}

/// The first and last year a date covers.
fn years_of(date: ListedDate) -> (i32, i32) {
    match date {
        ListedDate::Day(d) => (d.year(), d.year()),
        ListedDate::Month { year, .. } | ListedDate::Year(year) => (year, year),
        ListedDate::Years { from, to } => (from, to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_cuts_malformed, day, is_malformed_as, strong, testdata, weak};
    use crate::testing::{assert_skipped, id, mutants_never_panic, random_bytes_never_panic, Rng};
    use chrono::{DateTime, Utc};

    fn doc(records: &str) -> Vec<u8> {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
             <export xmlns=\"{NAMESPACE}\" generationDate=\"2026-01-02T03:04:05+02:00\" globalFileId=\"1\">\n\
             {records}\n</export>\n"
        )
        .into_bytes()
    }

    fn is_malformed(r: Result<ParsedList, ReadError>) -> bool {
        is_malformed_as(r, "eu-xml")
    }

    fn birth(attrs: &str) -> Result<Vec<ListedDate>, String> {
        let xml = doc(&format!(
            "<sanctionEntity euReferenceNumber=\"EU.1\"><nameAlias wholeName=\"X\"/>\
             <birthdate {attrs}/></sanctionEntity>"
        ));
        let list = read(&xml).unwrap();
        match list.entries.first() {
            Some(e) => Ok(e.birth_dates.clone()),
            None => Err(list.skipped[0].clone()),
        }
    }

    #[test]
    fn a_record_is_mapped_field_by_field() {
        use crate::testing::country;
        let xml = doc(
            r#"<sanctionEntity designationDate="2020-01-02" euReferenceNumber=" EU.1.2 " logicalId="9">
              <remark>not read</remark>
              <regulation programme="TEST" logicalId="1"><publicationUrl>u</publicationUrl></regulation>
              <regulation programme="TEST"/>
              <regulation programme="OTHER"/>
              <subjectType code="person" classificationCode="P"/>
              <nameAlias wholeName="Later &amp; Name" strong="true" logicalId="50"/>
              <nameAlias wholeName="" firstName="John" middleName="" lastName="  O&apos;Brien
                 Jr" logicalId="10"><regulationSummary numberTitle="x"/></nameAlias>
              <nameAlias wholeName="Weak One" strong="false" logicalId="5"/>
              <nameAlias wholeName="Low One" logicalId="6"><remark>Low  Quality
                alias</remark></nameAlias>
              <nameAlias wholeName="Good One" logicalId="7"><remark>good quality alias</remark></nameAlias>
              <nameAlias wholeName="Later &#38; Name" logicalId="51"/>
              <nameAlias wholeName="" firstName="" logicalId="1"/>
              <birthdate circa="false" calendarType="GREGORIAN" birthdate="1970-05-06" year="1970" monthOfYear="5" dayOfMonth="6" countryIso2Code="fr" countryDescription="FRANCE"/>
              <birthdate year="1969" monthOfYear="7" countryIso2Code="00" countryDescription="UNKNOWN"/>
              <birthdate year="1968" dayOfMonth="3"/>
              <birthdate circa="true" year="1965"/>
              <birthdate circa="true" yearRangeFrom="1953" yearRangeTo="1958"/>
              <birthdate calendarType="JULIAN" birthdate="1960-01-01" year="1960"/>
              <birthdate city="Nowhere"/>
              <citizenship countryIso2Code="IR" countryDescription="IRAN (ISLAMIC REPUBLIC OF)"/>
              <citizenship countryIso2Code="00" countryDescription="UNKNOWN"/>
              <citizenship countryDescription="Atlantis"/>
              <citizenship countryDescription="Germany"/>
              <address countryIso2Code="FR" countryDescription="France"><contactInfo key="PHONE" value="1"/></address>
              <address countryIso2Code="BE"/>
              <identification number=" A 123 " identificationTypeDescription="National passport" identificationTypeCode="passport" countryIso2Code="DE" countryDescription="GERMANY" knownFalse="true"/>
              <identification number="99" identificationTypeCode="id" countryIso2Code="00" countryDescription="UNKNOWN"/>
              <identification number="77" latinNumber="77L"/>
              <identification latinNumber="88"/>
              <identification identificationTypeDescription="Registration Number"/>
            </sanctionEntity>"#,
        );
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        assert_eq!(
            list.published_at,
            Some(
                DateTime::parse_from_rfc3339("2026-01-02T01:04:05Z")
                    .unwrap()
                    .with_timezone(&Utc)
            )
        );
        assert_eq!(
            list.entries,
            vec![ListEntry {
                source_entry_id: "EU.1.2".into(),
                kind: EntryKind::Person,
                names: vec![
                    // The strong name with the lowest logicalId leads.
                    strong("Good One"),
                    strong("Later & Name"),
                    strong("John O'Brien Jr"),
                    weak("Weak One"),
                    weak("Low One"),
                ],
                birth_dates: vec![
                    ListedDate::Day(day(1970, 5, 6)),
                    ListedDate::Month {
                        year: 1969,
                        month: 7
                    },
                    ListedDate::Year(1968),
                    ListedDate::Years {
                        from: 1964,
                        to: 1966
                    },
                    ListedDate::Years {
                        from: 1953,
                        to: 1958
                    },
                ],
                nationalities: vec![
                    country(Some("IR"), "IRAN (ISLAMIC REPUBLIC OF)"),
                    country(None, "Atlantis"),
                    country(Some("DE"), "Germany"),
                ],
                countries: vec![country(Some("FR"), "FRANCE"), country(Some("BE"), "BE")],
                identifiers: vec![
                    id("national passport", "A 123", Some("DE")),
                    id("id", "99", None),
                    id("document", "77", None),
                    id("document", "77L", None),
                    id("document", "88", None),
                ],
                programs: vec!["TEST".into(), "OTHER".into()],
                listed_on: NaiveDate::from_ymd_opt(2020, 1, 2),
                exposure: None,
            }]
        );
    }

    #[test]
    fn kinds_and_ids() {
        let xml = doc(
            r#"<sanctionEntity logicalId="7"><subjectType code="enterprise"/><nameAlias wholeName="A"/></sanctionEntity>
               <sanctionEntity euReferenceNumber="EU.2"><subjectType classificationCode="E"/><nameAlias wholeName="B"/></sanctionEntity>
               <sanctionEntity euReferenceNumber="EU.3"><subjectType code="vessel"/><nameAlias wholeName="C"/></sanctionEntity>
               <sanctionEntity euReferenceNumber="EU.4"><nameAlias wholeName="D" strong="false"/><nameAlias wholeName="E" strong="false"/></sanctionEntity>
               <notARecord><nameAlias wholeName="F"/></notARecord>"#,
        );
        let list = read(&xml).unwrap();
        assert_eq!(list.skipped, Vec::<String>::new());
        let got: Vec<_> = list
            .entries
            .iter()
            .map(|e| (e.source_entry_id.as_str(), e.kind, e.names[0].clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("7", EntryKind::Organisation, strong("A")),
                ("EU.2", EntryKind::Organisation, strong("B")),
                ("EU.3", EntryKind::Other, strong("C")),
                // All weak: the first in file order leads, still weak.
                ("EU.4", EntryKind::Other, weak("D")),
            ]
        );
        assert_eq!(list.entries[0].listed_on, None);
    }

    #[test]
    fn islamic_dates_are_converted_honestly() {
        // 24 Jumada al-Akhirah 1402 AH is 1982-04-19 (±3 days): April 1982, not a day.
        assert_eq!(from_hijri(1402, 6, 24), Some(day(1982, 4, 19)));
        assert_eq!(from_hijri(1, 1, 1), Some(day(622, 7, 19)));
        // The arithmetic calendar starts 1446 AH on 2024-07-08; Saudi Arabia's Umm al-Qura
        // calendar started it on 2024-07-07: the drift the window allows for.
        assert_eq!(from_hijri(1446, 1, 1), Some(day(2024, 7, 8)));
        assert_eq!(
            hijri_window(1446, Some(1), Some(1)),
            Some(ListedDate::Month {
                year: 2024,
                month: 7
            })
        );
        assert_eq!(
            birth(
                r#"calendarType="ISLAMIC" birthdate="1982-04-19" dayOfMonth="24" monthOfYear="6" year="1402""#
            ),
            Ok(vec![ListedDate::Month {
                year: 1982,
                month: 4
            }])
        );
        // A Hijri year spans two Gregorian years; a month near a month's end spans two
        // months.
        assert_eq!(
            birth(r#"calendarType="ISLAMIC" year="1402""#),
            Ok(vec![ListedDate::Years {
                from: 1981,
                to: 1982
            }])
        );
        assert_eq!(
            birth(r#"calendarType="ISLAMIC" year="1402" monthOfYear="6""#),
            Ok(vec![ListedDate::Year(1982)])
        );
        assert_eq!(
            birth(
                r#"calendarType="ISLAMIC" year="1402" monthOfYear="6" dayOfMonth="24" circa="true""#
            ),
            Ok(vec![ListedDate::Years {
                from: 1981,
                to: 1983
            }])
        );
        assert_eq!(
            birth(r#"calendarType="ISLAMIC" yearRangeFrom="1400" yearRangeTo="1402""#),
            Ok(vec![ListedDate::Years {
                from: 1979,
                to: 1982
            }])
        );
        // Only a Gregorian-looking date, in an Islamic element: nothing can be said.
        assert_eq!(
            birth(r#"calendarType="ISLAMIC" birthdate="1982-04-19""#),
            Ok(vec![])
        );
        // Another calendar: left out, the record kept.
        assert_eq!(birth(r#"calendarType="PERSIAN" year="1361""#), Ok(vec![]));
        assert!(birth(r#"calendarType="ISLAMIC" year="1402" monthOfYear="13""#).is_err());
    }

    #[test]
    fn unreadable_records_are_skipped_whole_and_named() {
        let person = |id: &str, extra: &str| {
            format!(
                "<sanctionEntity euReferenceNumber=\"EU.{id}\" logicalId=\"{id}\">\
                 <nameAlias wholeName=\"P {id}\"/>{extra}</sanctionEntity>"
            )
        };
        let records = [
            person("1", ""),
            person("2", "<nameAlias wholeName=\"X\" strong=\"maybe\"/>"),
            person("3", "<birthdate birthdate=\"1970-13-01\"/>"),
            person("4", "<birthdate yearRangeFrom=\"1970\"/>"),
            person("5", "<birthdate yearRangeFrom=\"1972\" yearRangeTo=\"1970\"/>"),
            person("6", "<birthdate year=\"70\"/>"),
            person("7", "<birthdate year=\"1970\" monthOfYear=\"2\" dayOfMonth=\"30\"/>"),
            person("8", "<birthdate circa=\"perhaps\" year=\"1970\"/>"),
            person("9", "<remark>&nbsp;</remark>"),
            person("10", "<address a=\"1\" a=\"2\"/>"),
            person("11", "<nameAlias wholeName=\"&bogus;\"/>"),
            "<sanctionEntity euReferenceNumber=\"EU.12\"><nameAlias wholeName=\"\"/></sanctionEntity>"
                .to_owned(),
            "<sanctionEntity><nameAlias wholeName=\"Nobody\"/></sanctionEntity>".to_owned(),
            "<sanctionEntity/>".to_owned(),
            "<sanctionEntity designationDate=\"yesterday\" euReferenceNumber=\"EU.13\"><nameAlias wholeName=\"Q\"/></sanctionEntity>".to_owned(),
            person("14", ""),
        ]
        .concat();
        let list = read(&doc(&records)).unwrap();
        let ids: Vec<_> = list
            .entries
            .iter()
            .map(|e| e.source_entry_id.as_str())
            .collect();
        assert_eq!(ids, ["EU.1", "EU.14"]);
        assert_skipped(
            &list.skipped,
            &[
                "EU.2 (logicalId 2): name \"X\" has an unknown strong mark",
                "EU.3 (logicalId 3): unreadable birthdate (birthdate=\"1970-13-01\")",
                "EU.4 (logicalId 4): unreadable one-ended birthdate year range",
                "EU.5 (logicalId 5): unreadable birthdate year range",
                "EU.6 (logicalId 6): unreadable birthdate (year=\"70\")",
                "EU.7 (logicalId 7): unreadable birthdate",
                "EU.8 (logicalId 8): unreadable circa mark",
                "EU.9 (logicalId 9): unknown XML reference &nbsp;",
                "EU.10 (logicalId 10): unreadable attributes on <address>",
                "EU.11 (logicalId 11): unreadable attribute wholeName",
                "EU.12: no name",
                "a record without euReferenceNumber or logicalId (Nobody): no id",
                "a record without euReferenceNumber or logicalId (): no id",
                "EU.13: unreadable designationDate \"yesterday\"",
            ],
        );
    }

    #[test]
    fn an_empty_list_reads_as_no_entries() {
        let list = read(format!("<export xmlns=\"{NAMESPACE}\"/>").as_bytes()).unwrap();
        assert!(list.entries.is_empty() && list.skipped.is_empty());
        assert_eq!(list.published_at, None);
        // A prefixed root in the namespace is the same format.
        let list = read(
            format!(
                "<fsd:export xmlns:fsd=\"{NAMESPACE}\" generationDate=\"2026-01-02T03:04:05\">\
                 <fsd:sanctionEntity euReferenceNumber=\"EU.1\"><fsd:nameAlias wholeName=\"A\"/>\
                 </fsd:sanctionEntity></fsd:export>"
            )
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(list.entries.len(), 1);
        assert!(list.published_at.is_some());
    }

    #[test]
    fn files_that_are_not_this_format_are_malformed() {
        let wrong_ns = b"<export xmlns=\"http://example.com/\"></export>".to_vec();
        let no_ns = b"<export></export>".to_vec();
        let other_prefix =
            format!("<a:export xmlns=\"{NAMESPACE}\" xmlns:a=\"urn:x\"></a:export>").into_bytes();
        let twice =
            format!("<export xmlns=\"{NAMESPACE}\"/><export xmlns=\"{NAMESPACE}\"/>").into_bytes();
        let trailing = format!("<export xmlns=\"{NAMESPACE}\"/>trailing").into_bytes();
        let open = format!("<export xmlns=\"{NAMESPACE}\"><sanctionEntity>").into_bytes();
        let bad_root_attr = format!("<export xmlns=\"{NAMESPACE}\" a=\"1\" a=\"2\"/>").into_bytes();
        for bad in [
            &b""[..],
            b"   \n",
            b"<nope/>",
            b"hello world",
            b"\x00\x01\x02\xff\xfe<\x80",
            b"<WHOLE Date=\"11/02/2016\"><ENTITY Id=\"1\" Type=\"P\"></ENTITY></WHOLE>",
            &wrong_ns,
            &no_ns,
            &other_prefix,
            &twice,
            &trailing,
            &open,
            &bad_root_attr,
        ] {
            assert!(
                is_malformed(read(bad)),
                "{:?} should be malformed",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn parts_and_days() {
        assert_eq!(parse_day("2015-04-07+02:00"), Some(day(2015, 4, 7)));
        assert_eq!(parse_day("2015-04-07Z"), Some(day(2015, 4, 7)));
        assert_eq!(parse_day("2015-04-07T00"), None);
        assert_eq!(parse_day("2015/04/07"), None);
        assert_eq!(parse_day("2015-04-0é"), None);
        assert_eq!(parse_part(Some("0"), 12), Ok(None));
        assert_eq!(parse_part(Some("07"), 12), Ok(Some(7)));
        assert_eq!(parse_part(Some("13"), 12), Err(()));
        assert_eq!(parse_part(Some("-1"), 12), Err(()));
        assert_eq!(country(Some("00".into()), Some("UNKNOWN".into())), None);
        assert_eq!(
            country(Some("X1".into()), Some("France".into())),
            Some(ListedCountry {
                code: Some("FR".into()),
                name: "France".into()
            })
        );
    }

    fn sample() -> Vec<u8> {
        testdata("eu/fsf_xml_1_1_excerpt_2026-08-05.xml")
    }

    #[test]
    fn a_truncated_copy_of_the_sample_is_malformed() {
        let full = sample();
        assert_eq!(read(&full).unwrap().entries.len(), 5);
        assert_cuts_malformed(read, "eu-xml", &full, (60, 1), 2);
    }

    #[test]
    fn odd_input_never_panics() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Random bytes, with and without a plausible root.
        random_bytes_never_panic(
            read,
            &mut rng,
            format!("<export xmlns=\"{NAMESPACE}\"><sanctionEntity>").as_bytes(),
        );
        // The sample with bytes flipped, dropped and markup characters sprayed in.
        mutants_never_panic(read, &mut rng, &sample(), 5);
    }
}
