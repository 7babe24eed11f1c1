//! The Swedish Riksdag's open member data (`personlista` as JSON), read into a PEP list
//! ([`ListSource::Riksdagen`]): members of parliament, ministers, the Speakers and party
//! leaders, each with the offices and terms the Riksdag records.
//!
//! The file is what `https://data.riksdagen.se/personlista/?utformat=json` answers
//! (`rdlstatus=samtliga` for every member since 1991): `{"personlista": {"@systemdatum",
//! "@hits", "person": [...]}}`, every scalar a string, XML attributes as `@` keys, and a
//! single element written as an object rather than a list of one. Terms of use: free reuse,
//! commercial too, crediting "Source: The Swedish Parliament"; no photos are read.
//!
//! Mapping decisions:
//!
//! - **Entries.** One per `person`, keyed by its `intressent_id` (the Riksdag's stable id of
//!   a member). A person without an `intressent_id`, or without a name, is skipped and named
//!   in `skipped`. A person whose `status` says the member has died (`Avliden ...`) is set
//!   aside as `deceased`: the list no longer describes a living office holder.
//! - **Names.** `tilltalsnamn` and `efternamn` (the name used and the surname), in that
//!   order; no other forms (`sorteringsnamn` is the same name sorted).
//! - **Birth date.** `fodd_ar`, a year ([`ListedDate::Year`]); the Riksdag publishes no more.
//! - **Countries.** Sweden (`SE`), for the person and for every office.
//! - **Offices** ([`HeldPosition`]), from `personuppdrag.uppdrag`, each with its own `from`
//!   and `tom` (`YYYY-MM-DD`, with or without a time):
//!   - the chamber (`organ_kod` `kam`): a seat (`roll_kod` `Riksdagsledamot`, or a
//!     substitute's `Ersättare` / `Statsrådsersättare`), titled `Member of the Riksdag
//!     (<roll_kod>)`, and the Speakers (a `roll_kod` naming `talman`), titled as written;
//!   - the government: a `roll_kod` naming a minister (`...minister`, `Statsråd`), titled
//!     with the ministry (`uppgift`) when given;
//!   - a party's leadership (`Partiledare`, `Partisekreterare`, `Språkrör`), titled with the
//!     party.
//!
//!   Committee seats and other assignments of a member are not offices of their own. Each
//!   term's status is read against the file's own date (`@systemdatum`): `current` when its
//!   `tom` is after it (a running term's `tom` is the term's scheduled end) or absent,
//!   `ended` otherwise. Terms are deduplicated, newest first. A person whose record holds
//!   no such office is still a member the Riksdag lists: kept, with the `status` text as
//!   its office of unknown dates.
//! - **Published at.** `@systemdatum`, Swedish time; absent, `None`.

use crate::ReadError;
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use domain::screening::sanctions::{
    EntryKind, Exposure, ExposureRole, HeldPosition, ListEntry, ListSource, ListedCountry,
    ListedDate, ListedName, NameQuality, ParsedList, SetAside, TermStatus,
};
use serde_json::Value;

const FORMAT: &str = "riksdagen-json";

fn malformed(detail: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        format: FORMAT,
        detail: detail.into(),
    }
}

/// Reads a whole `personlista` answer.
pub(crate) fn read(bytes: &[u8]) -> Result<ParsedList, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let root: Value =
        serde_json::from_slice(bytes).map_err(|e| malformed(format!("not JSON ({e})")))?;
    let list = root
        .get("personlista")
        .and_then(Value::as_object)
        .ok_or_else(|| malformed("no `personlista` object at the top"))?;
    let published = list
        .get("@systemdatum")
        .and_then(Value::as_str)
        .and_then(swedish_time);
    // Terms are current or ended as of the file's own date (the day it was generated).
    let as_of = published.map(|t| t.date_naive());
    let people: Vec<&Value> = match list.get("person") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one @ Value::Object(_)) => vec![one],
        Some(_) => return Err(malformed("`person` is neither a list nor an object")),
    };
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut deceased = 0u32;
    for (n, person) in people.iter().enumerate() {
        let at = format!("person {}", n + 1);
        match member(person, as_of) {
            Ok(Some(entry)) => {
                if !entries
                    .iter()
                    .any(|e: &ListEntry| e.source_entry_id == entry.source_entry_id)
                {
                    entries.push(entry);
                } else {
                    skipped.push(format!(
                        "{at} ({}): the id is listed before",
                        entry.source_entry_id
                    ));
                }
            }
            Ok(None) => deceased += 1,
            Err(why) => skipped.push(format!("{at}: {why}")),
        }
    }
    Ok(ParsedList {
        source: ListSource::Riksdagen,
        published_at: published,
        entries,
        skipped,
        set_aside: if deceased > 0 {
            vec![SetAside {
                what: "deceased".into(),
                count: deceased,
            }]
        } else {
            Vec::new()
        },
    })
}

/// A `YYYY-MM-DD hh:mm:ss` time in Sweden's zone.
fn swedish_time(s: &str) -> Option<DateTime<Utc>> {
    let naive = NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S").ok()?;
    chrono_tz::Europe::Stockholm
        .from_local_datetime(&naive)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// A `from`/`tom` day (`YYYY-MM-DD`, a time after it ignored); empty is `None`.
fn day(s: &str) -> Result<Option<NaiveDate>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    let d = s.get(..10).unwrap_or(s);
    NaiveDate::parse_from_str(d, "%Y-%m-%d")
        .map(Some)
        .map_err(|_| format!("{s:?} is not a date"))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).map_or("", str::trim)
}

/// An `uppgift` naming an organ: a list whose first item is a string.
fn organ_name(u: &Value) -> Option<String> {
    match u.get("uppgift") {
        Some(Value::Array(items)) => items
            .first()
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    }
}

/// The office an assignment is, if it is a prominent public function.
fn office(u: &Value) -> Option<String> {
    let organ = text(u, "organ_kod");
    let role = text(u, "roll_kod");
    let lower = role.to_lowercase();
    if organ == "kam" && ["Riksdagsledamot", "Ersättare", "Statsrådsersättare"].contains(&role) {
        return Some(format!("Member of the Riksdag ({role})"));
    }
    if lower.contains("talman") {
        return Some(role.to_owned());
    }
    if lower.contains("minister") || lower == "statsråd" {
        return Some(match organ_name(u) {
            Some(ministry) => format!("{role}, {ministry}"),
            None => role.to_owned(),
        });
    }
    if ["Partiledare", "Partisekreterare", "Språkrör"].contains(&role) {
        return Some(match organ_name(u) {
            Some(party) => format!("{role}, {party}"),
            None => role.to_owned(),
        });
    }
    None
}

/// One member, or `None` for a member who has died.
fn member(p: &Value, as_of: Option<NaiveDate>) -> Result<Option<ListEntry>, String> {
    if !p.is_object() {
        return Err("not an object".into());
    }
    let id = text(p, "intressent_id");
    if id.is_empty() {
        return Err("no intressent_id".into());
    }
    let status = text(p, "status");
    if status.starts_with("Avliden") {
        return Ok(None);
    }
    let name = [text(p, "tilltalsnamn"), text(p, "efternamn")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(format!("{id}: no name"));
    }
    let birth = match text(p, "fodd_ar") {
        "" => Vec::new(),
        y => vec![y
            .parse::<i32>()
            .ok()
            .filter(|y| (1850..=2100).contains(y))
            .map(ListedDate::Year)
            .ok_or_else(|| format!("{id}: fodd_ar {y:?} is not a year"))?],
    };

    let assignments: Vec<&Value> = match p.get("personuppdrag").and_then(|u| u.get("uppdrag")) {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one @ Value::Object(_)) => vec![one],
        _ => Vec::new(),
    };
    let mut positions: Vec<HeldPosition> = Vec::new();
    for u in assignments {
        let Some(title) = office(u) else { continue };
        let from = day(text(u, "from")).map_err(|why| format!("{id}: from {why}"))?;
        let tom = day(text(u, "tom")).map_err(|why| format!("{id}: tom {why}"))?;
        let status = match (tom, as_of) {
            (None, _) => TermStatus::Current,
            (Some(end), Some(today)) if end > today => TermStatus::Current,
            (Some(_), Some(_)) => TermStatus::Ended,
            (Some(_), None) => TermStatus::Unknown,
        };
        let held = HeldPosition {
            title,
            country: Some("SE".into()),
            start: from.map(ListedDate::Day),
            end: tom.map(ListedDate::Day),
            status,
        };
        if !positions.contains(&held) {
            positions.push(held);
        }
    }
    // Newest first: by start, the undated last.
    positions.sort_by_key(|p| std::cmp::Reverse(date_key(p.start)));
    if positions.is_empty() {
        positions.push(HeldPosition {
            title: if status.is_empty() {
                "Member of the Riksdag".to_owned()
            } else {
                status.to_owned()
            },
            country: Some("SE".into()),
            start: None,
            end: None,
            status: TermStatus::Unknown,
        });
    }
    let sweden = ListedCountry {
        code: Some("SE".into()),
        name: "Sverige".into(),
    };
    Ok(Some(ListEntry {
        source_entry_id: id.to_owned(),
        kind: EntryKind::Person,
        names: vec![ListedName {
            full: name,
            quality: NameQuality::Strong,
        }],
        birth_dates: birth,
        nationalities: Vec::new(),
        countries: vec![sweden],
        identifiers: Vec::new(),
        programs: Vec::new(),
        listed_on: None,
        exposure: Some(Exposure {
            roles: vec![ExposureRole::Pep],
            positions,
            relations: Vec::new(),
        }),
    }))
}

fn date_key(d: Option<ListedDate>) -> Option<String> {
    d.map(ListedDate::to_wire)
}
