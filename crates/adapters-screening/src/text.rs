//! Small readings the XML readers share: values with their whitespace collapsed, lists kept
//! without repeats, countries by their words, and the date and time forms the lists write.

use crate::countries::iso_code;
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Utc};
use domain::screening::sanctions::{ListedCountry, ListedDate};

/// A value as the list means it: whitespace collapsed, trimmed; `None` when empty.
pub(crate) fn value(raw: &str) -> Option<String> {
    let v = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    (!v.is_empty()).then_some(v)
}

/// Adds `v` unless it is there already.
pub(crate) fn push_unique<T: PartialEq>(list: &mut Vec<T>, v: T) {
    if !list.contains(&v) {
        list.push(v);
    }
}

/// A country as the list wrote it, with the ISO code [`iso_code`] knows for the words.
pub(crate) fn country(name: String) -> ListedCountry {
    ListedCountry {
        code: iso_code(&name).map(str::to_owned),
        name,
    }
}

/// Adds a country unless it is there already: by code when both have one, else by the words.
pub(crate) fn push_country(list: &mut Vec<ListedCountry>, c: ListedCountry) {
    let seen = list.iter().any(|o| match (&o.code, &c.code) {
        (Some(a), Some(b)) => a == b,
        _ => o.name == c.name,
    });
    if !seen {
        list.push(c);
    }
}

/// A four-digit year.
pub(crate) fn parse_year(s: &str) -> Option<i32> {
    (s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A month or day number of one or two digits up to `max`; `0` is no number (`Ok(None)`),
/// anything else (an empty value too) `Err`.
pub(crate) fn day_or_month(s: &str, max: u32) -> Result<Option<u32>, ()> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(());
    }
    match s.parse::<u32>() {
        Ok(0) => Ok(None),
        Ok(n) if n <= max => Ok(Some(n)),
        _ => Err(()),
    }
}

/// An `xs:date`: `YYYY-MM-DD`, with an optional zone (`Z`, `+HH:MM`, `-HH:MM`) that is
/// dropped.
pub(crate) fn parse_xs_date(s: &str) -> Option<NaiveDate> {
    let (day, zone) = (s.get(..10)?, s.get(10..)?);
    let zone_ok = zone.is_empty()
        || zone == "Z"
        || (zone.len() == 6
            && (zone.starts_with('+') || zone.starts_with('-'))
            && zone.as_bytes()[3] == b':'
            && zone[1..3].bytes().all(|b| b.is_ascii_digit())
            && zone[4..].bytes().all(|b| b.is_ascii_digit()));
    if !zone_ok {
        return None;
    }
    NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

/// An RFC 3339 time (`2026-02-27T00:00:09.554Z`, `2026-08-05T16:47:04.449+02:00`); without
/// a zone the time is taken as UTC.
pub(crate) fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc())
}

/// The narrowest month, year or span of years that holds every day from `first` to `last`
/// (never a day).
pub(crate) fn covering(first: NaiveDate, last: NaiveDate) -> ListedDate {
    if first.year() != last.year() {
        ListedDate::Years {
            from: first.year(),
            to: last.year(),
        }
    } else if first.month() != last.month() {
        ListedDate::Year(first.year())
    } else {
        ListedDate::Month {
            year: first.year(),
            month: first.month(),
        }
    }
}
