//! OpenSanctions' FollowTheMoney (FtM) JSON export, read into [`ParsedList`].
//!
//! The file holds one JSON object per line, each an FtM entity: `{"id", "caption", "schema",
//! "properties": {prop: [strings]}, "referents", "datasets", "first_seen", "last_seen",
//! "last_change", "target"}`. An export holds the listed entities *and* the entities around
//! them (their addresses, the sanctions that list them, owners, relatives, directorships,
//! identity documents); references between them are entity ids, resolved within the file.
//!
//! Records and files:
//!
//! - Blank lines are ignored; a line ending `\r\n` is read as ending `\n`; a UTF-8 byte-order
//!   mark before the first line is dropped.
//! - A line that is not JSON, not a JSON object, or an object without a `schema` is skipped
//!   and named in [`ParsedList::skipped`] (`line 12: not JSON (...)`). So is an entity whose
//!   `id` is missing or empty, whose `target` is neither `true` nor `false`, whose
//!   `caption`/`referents`/`properties` have the wrong JSON type, or one of whose properties
//!   this reader uses (listed below) is not a list of strings (`line 12 (<id>, Person):
//!   ...`); properties the reader does not use are not checked. The second entity with an id
//!   already seen is skipped (the first is kept).
//! - The file is [`ReadError::Malformed`] (format `opensanctions-json`) when no line is an FtM
//!   entity (an empty file, an XML list, a single JSON document, garbage), when more lines are
//!   unreadable than are entities (not an export with a few damaged lines but some other
//!   file), or when any line is a **delta** operation (`{"op": "ADD"|"MOD"|"DEL", "entity":
//!   {...}}`): a delta file changes an earlier export (it may delete entries) and is not a
//!   list version on its own; the full export is what must be imported.
//!
//! Mapping decisions:
//!
//! - **Which entities are entries.** Only the schemas a name screening can match: `Person`
//!   ([`EntryKind::Person`]), `Organization`, `Company`, `LegalEntity`, `PublicBody`
//!   ([`EntryKind::Organisation`]), `Vessel` ([`EntryKind::Vessel`]) and `Airplane`
//!   ([`EntryKind::Aircraft`]). When an entity carries `target`, it is an entry only if
//!   `target` is `true`: a screening list wants the designated targets, and the export's
//!   non-target entities (a company a target owns, a relative's record, an address, a
//!   `Sanction`, an `Ownership`, a `Family` link, a `Directorship`, a `Passport`) are context
//!   about them, not listings. An entity without `target` (exports that do not mark targets)
//!   of a screenable schema is an entry. A *target* of any other schema (`Security`,
//!   `CryptoWallet`, `Vehicle`, ...) is listed by the publisher but not screenable by name:
//!   it is named in `skipped` so the version shows what it leaves out.
//! - **Sanctioned, or something else.** An export may mix sanctioned entities with
//!   politically exposed persons and their relatives, wanted persons, debarred companies
//!   (OpenSanctions' `default` collection does). FtM's `topics` say which is which, and a
//!   sanctions list holds only the entities a topic of [`SANCTION_TOPICS`] marks
//!   (`sanction`, `sanction.linked`, `export.control`, `asset.frozen`). The others are set
//!   aside and counted under their principal topic ([`ParsedList::set_aside`]: `role.pep`,
//!   `role.rca`, else the first topic alphabetically; `(no topic)` for one without topics in
//!   an export that marks the others): never stored as sanctions, and not skipped records
//!   either (the version is complete without them). PEPs and their relatives are read by
//!   [`pep`] into a PEP list instead. An export that marks no entity with topics at all (an
//!   older export of sanctions alone) is read as before. A `Sanction` entity naming an
//!   entity does not decide: debarments and disqualifications are written as `Sanction`s
//!   too.
//! - **Ids.** `source_entry_id` is the entity's `id` (`NK-aU5ybkbRFJucf8YMwsJvDw`).
//! - **Names.** The primary name is the `caption` when it is one of the entity's `name`
//!   values (OpenSanctions' choice of display name), else the first `name`. A `Person` without
//!   any `name` gets its primary name from its first `firstName`, `secondName`, `middleName`,
//!   `fatherName` (unless it repeats a part already taken) and `lastName`, in that order,
//!   joined by spaces; an entity still without a name is skipped. Then the other `name`s,
//!   `alias` and `previousName` (a former name is still a name of the entry), all
//!   [`NameQuality::Strong`]; then `weakAlias` and `abbreviation` ([`NameQuality::Weak`]: too
//!   short or broad to identify alone). Every value keeps its script (Cyrillic, Japanese, ...)
//!   and has its whitespace collapsed; names are deduplicated on their text, the first (so
//!   the strongest) kept.
//! - **Birth dates.** `birthDate` values are ISO 8601 prefixes: `1975` is a
//!   [`ListedDate::Year`], `1975-04` a [`ListedDate::Month`], `1975-04-21` (or a longer
//!   timestamp starting so) a [`ListedDate::Day`]. A value that is none of these skips the
//!   entity.
//! - **Countries.** FtM writes countries as lower-case ISO 3166-1 alpha-2 codes (`ru`). A
//!   code that is one (or `xk`, Kosovo) keeps the upper-case code and the value as written
//!   ([`ListedCountry`] `{code: "RU", name: "ru"}`). FtM's own territory codes that are not
//!   ISO codes keep no code and FtM's English label as their words (`suhh` Soviet Union,
//!   `yucs` Yugoslavia, `csxx` Serbia and Montenegro, `ge-ab` Abkhazia, `x-so` South Ossetia,
//!   `so-som` Somaliland, `md-pmr` Transnistria, `cy-trnc` Northern Cyprus, `gb-eng`/`gb-sct`/
//!   `gb-wls`/`gb-nir` England/Scotland/Wales/Northern Ireland, `eu` European Union); `zz`
//!   ("global", no country) is dropped. Any other value (older exports, free text such as
//!   `pastFlags`) is taken as words, with the code [`crate::countries::iso_code`] knows.
//!   `nationality` and `citizenship` are the nationalities; `country`, `jurisdiction`,
//!   `mainCountry`, `birthCountry`, a vessel's `flag` and `pastFlags`, and the `country` of
//!   every `Address` entity the entry's `addressEntity` names are the other countries (a
//!   reference to an address not in the file gives nothing; the free-text `address` and
//!   `birthPlace` are not read). Each list is deduplicated: by code when there is one, else
//!   by the words.
//! - **Identifiers.** Each value of these properties, kind the property in plain words:
//!   `registrationNumber` (`registration number`), `idNumber` (`id number`), `passportNumber`
//!   (`passport number`), `socialSecurityNumber` (`social security number`), `taxNumber`
//!   (`tax number`), `vatCode` (`vat`), `innCode` (`inn`), `ogrnCode` (`ogrn`), `okpoCode`
//!   (`okpo`), `leiCode` (`lei`), `dunsCode` (`duns`), `swiftBic` (`swift bic`), `imoNumber`
//!   (`imo number`), `mmsi` (`mmsi`), `callSign` (`call sign`), `serialNumber` (`serial
//!   number`); no country (the property does not give one). Then every `Identification` or
//!   `Passport` entity of the file whose `holder` is the entry and which has a `number`: kind
//!   `passport` for a `Passport`, else its `type` in lower case, else `identification`; the
//!   country the ISO code of its `country`. Deduplicated on (kind, value). Not read: `kppCode`
//!   (a tax office's reason code, shared by many companies), `permId`, `uniqueEntityId` and
//!   other data-provider keys.
//! - **Programs.** The entry's own `programId` values (OpenSanctions' programme codes,
//!   `EU-UKR`, `US-RUSHAR`), then, for every `Sanction` entity of the file whose `entity` is
//!   the entry (by id, or by one of the entry's `referents`), in file order: its `programId`
//!   values; if it has none, its `program` (the publisher's words, e.g. `RUSSIA-EO14024`);
//!   if it has neither, its `authority` (who listed it, e.g. `La Principauté de Monaco`).
//!   Deduplicated, the first kept. A `Sanction` with an `endDate` still counts: the file
//!   says it happened, and the matcher does not judge currency.
//! - **Listed on.** The earliest `startDate` of those `Sanction` entities (its `listingDate`
//!   when it has no `startDate`), among full days: a year or month alone gives no day. A
//!   `Sanction` whose `startDate` or `listingDate` is not an ISO date prefix is skipped (and
//!   gives no program either). An entry without sanctions in the file has none.
//! - **Published at.** `None`: an entity export does not say when it was generated.
//!   `last_change` is when an entity's data last changed and `last_seen` when a crawler last
//!   saw it; the latest of either is only a bound on the export's time, and passing it off
//!   as the publication time would misstate how fresh a version is.
//! - **Not read.** `notes`, `summary`, `position`, `gender`, `address`, `birthPlace`,
//!   `sourceUrl`, `datasets`, `first_seen`/`last_seen`/`last_change`, relationships other than
//!   addresses, sanctions and identity documents (`Ownership`, `Family`, `Directorship`,
//!   `UnknownLink`, ...): free text or graph context the matcher does not use.

use crate::countries::iso_code;
use crate::ReadError;
use chrono::NaiveDate;
use domain::screening::sanctions::{
    EntryKind, ListEntry, ListSource, ListedCountry, ListedDate, ListedIdentifier, ListedName,
    NameQuality, ParsedList, SetAside,
};

pub(crate) mod pep;
use serde_json::{Map, Value};
use std::collections::HashMap;

const FORMAT: &str = "opensanctions-json";

fn malformed(detail: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        format: FORMAT,
        detail: detail.into(),
    }
}

/// The schemas that become entries.
fn entry_kind(schema: &str) -> Option<EntryKind> {
    match schema {
        "Person" => Some(EntryKind::Person),
        "Organization" | "Company" | "LegalEntity" | "PublicBody" => Some(EntryKind::Organisation),
        "Vessel" => Some(EntryKind::Vessel),
        "Airplane" => Some(EntryKind::Aircraft),
        _ => None,
    }
}

const STRONG_NAMES: [&str; 3] = ["name", "alias", "previousName"];
const WEAK_NAMES: [&str; 2] = ["weakAlias", "abbreviation"];
const NAME_PARTS: [&str; 5] = [
    "firstName",
    "secondName",
    "middleName",
    "fatherName",
    "lastName",
];
const NATIONALITY: [&str; 2] = ["nationality", "citizenship"];
const COUNTRY: [&str; 6] = [
    "country",
    "jurisdiction",
    "mainCountry",
    "birthCountry",
    "flag",
    "pastFlags",
];
/// Identifier properties and the kind each gives.
const IDENTIFIERS: [(&str, &str); 16] = [
    ("registrationNumber", "registration number"),
    ("idNumber", "id number"),
    ("passportNumber", "passport number"),
    ("socialSecurityNumber", "social security number"),
    ("taxNumber", "tax number"),
    ("vatCode", "vat"),
    ("innCode", "inn"),
    ("ogrnCode", "ogrn"),
    ("okpoCode", "okpo"),
    ("leiCode", "lei"),
    ("dunsCode", "duns"),
    ("swiftBic", "swift bic"),
    ("imoNumber", "imo number"),
    ("mmsi", "mmsi"),
    ("callSign", "call sign"),
    ("serialNumber", "serial number"),
];
/// The properties that tie an entry to its context: its addresses, the `Sanction`s naming it
/// and the identity documents it holds.
const CONTEXT: [&str; 10] = [
    "entity",
    "program",
    "programId",
    "authority",
    "startDate",
    "listingDate",
    "holder",
    "number",
    "type",
    "addressEntity",
];

/// What an entity is said to be (`sanction`, `role.pep`, `crime.fraud`, ...), and the
/// properties of offices, terms and ties that PEP data uses.
const PEP_CONTEXT: [&str; 9] = [
    "topics",
    "position",
    "post",
    "status",
    "endDate",
    "periodEnd",
    "person",
    "relative",
    "associate",
];

/// The topics that make an entity a sanctions listing: designated (or owned or controlled
/// by a designated party), an export control, an asset freeze. Every other topic
/// (`role.pep`, `role.rca`, `sanction.counter`, `crime.*`, `wanted`, `debarment`, `poi`,
/// ...) says something else about the entity.
pub(crate) const SANCTION_TOPICS: [&str; 4] = [
    "sanction",
    "sanction.linked",
    "export.control",
    "asset.frozen",
];

/// The properties this reader uses, whatever the schema; the others are neither kept nor
/// checked.
fn used(prop: &str) -> Option<&'static str> {
    STRONG_NAMES
        .iter()
        .chain(&WEAK_NAMES)
        .chain(&NAME_PARTS)
        .chain(&NATIONALITY)
        .chain(&COUNTRY)
        .chain(IDENTIFIERS.iter().map(|(p, _)| p))
        .chain(&CONTEXT)
        .chain(&PEP_CONTEXT)
        .chain(&["birthDate", "relationship"])
        .find(|p| **p == prop)
        .copied()
}

/// One entity of the file, with the properties the reader uses.
struct Entity {
    line: usize,
    id: String,
    schema: String,
    caption: Option<String>,
    target: Option<bool>,
    referents: Vec<String>,
    props: HashMap<&'static str, Vec<String>>,
}

impl Entity {
    fn values(&self, prop: &str) -> &[String] {
        self.props.get(prop).map_or(&[], Vec::as_slice)
    }

    fn at(&self) -> String {
        format!("line {} ({}, {})", self.line, self.id, self.schema)
    }
}

/// What one non-blank line is.
enum Line {
    Entity(Box<Entity>),
    /// An FtM entity (it names a schema) the reader cannot use, with why.
    Broken(String),
    /// Not an FtM entity at all, with why.
    Unreadable(String),
    /// A delta file's operation, with its `op`.
    Delta(String),
}

/// An export's entities, read line by line, with the records skipped so far.
struct Export {
    entities: Vec<Entity>,
    skipped: Vec<(usize, String)>,
}

/// Reads a whole FtM entity export as a sanctions list: the sanctioned entities only.
pub(crate) fn read(bytes: &[u8]) -> Result<ParsedList, ReadError> {
    let Export {
        entities,
        mut skipped,
    } = entities(bytes)?;
    let file = File::index(&entities, &mut skipped);
    let uses_topics = entities.iter().any(|e| !e.values("topics").is_empty());
    let mut entries = Vec::new();
    let mut set_aside = Tally::default();
    for (i, e) in entities.iter().enumerate() {
        match (entry_kind(&e.schema), e.target) {
            (_, Some(false)) => {}
            (Some(kind), _) => match not_sanctioned(e, uses_topics) {
                Some(what) => set_aside.add(what),
                None => match file.entry(i, kind) {
                    Ok(entry) => entries.push(entry),
                    Err(why) => skipped.push((e.line, format!("{}: {why}", e.at()))),
                },
            },
            (None, Some(true)) => skipped.push((
                e.line,
                format!(
                    "{}: a target of a schema name screening does not cover",
                    e.at()
                ),
            )),
            (None, None) => {}
        }
    }
    skipped.sort_by_key(|(line, _)| *line);
    Ok(ParsedList {
        source: ListSource::OpenSanctions,
        published_at: None,
        entries,
        skipped: skipped.into_iter().map(|(_, why)| why).collect(),
        set_aside: set_aside.into_list(),
    })
}

/// Why a screenable entity is not a sanctions listing, as its principal topic: `None` when
/// a topic of [`SANCTION_TOPICS`] marks it, or when the export marks no entity with topics
/// at all (an older export of sanctions alone); `(no topic)` for an entity without topics in
/// an export that marks the others.
fn not_sanctioned(e: &Entity, uses_topics: bool) -> Option<String> {
    let topics = e.values("topics");
    if topics.iter().any(|t| SANCTION_TOPICS.contains(&t.as_str())) {
        return None;
    }
    if topics.is_empty() {
        return uses_topics.then(|| "(no topic)".to_owned());
    }
    Some(principal_topic(topics))
}

/// The topic an entity is counted under: `role.pep`, then `role.rca`, then the first of
/// its topics in alphabetical order (so the count does not depend on the file's order).
fn principal_topic(topics: &[String]) -> String {
    for first in ["role.pep", "role.rca"] {
        if topics
            .iter()
            .any(|t| t == first || t.starts_with(&format!("{first}.")))
        {
            return first.to_owned();
        }
    }
    topics.iter().min().cloned().unwrap_or_default()
}

/// Records counted by what they are, reported in a fixed order.
#[derive(Default)]
struct Tally(std::collections::BTreeMap<String, u32>);

impl Tally {
    fn add(&mut self, what: String) {
        *self.0.entry(what).or_default() += 1;
    }

    fn into_list(self) -> Vec<SetAside> {
        self.0
            .into_iter()
            .map(|(what, count)| SetAside { what, count })
            .collect()
    }
}

/// Reads every line of an export into entities; refuses what is not an export.
fn entities(bytes: &[u8]) -> Result<Export, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut entities: Vec<Entity> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    // Skips with the line they concern, sorted by it at the end.
    let mut skipped: Vec<(usize, String)> = Vec::new();
    let (mut lines, mut ftm_lines, mut unreadable) = (0usize, 0usize, 0usize);
    let mut first_unreadable: Option<String> = None;

    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let n = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        lines += 1;
        match line(n, raw) {
            Line::Entity(e) => {
                ftm_lines += 1;
                if let Some(first) = by_id.get(&e.id) {
                    let first = entities[*first].line;
                    skipped.push((n, format!("{}: the id is on line {first} too", e.at())));
                } else {
                    by_id.insert(e.id.clone(), entities.len());
                    entities.push(*e);
                }
            }
            Line::Broken(why) => {
                ftm_lines += 1;
                skipped.push((n, why));
            }
            Line::Unreadable(why) => {
                unreadable += 1;
                let why = format!("line {n}: {why}");
                first_unreadable.get_or_insert_with(|| why.clone());
                skipped.push((n, why));
            }
            Line::Delta(op) => {
                return Err(malformed(format!(
                    "line {n} is a delta operation (\"op\": {op:?}): this is an OpenSanctions \
                     delta file, which changes an earlier export, not a full export; import \
                     the full entity export (entities.ftm.json)"
                )))
            }
        }
    }
    if lines == 0 {
        return Err(malformed("the file is empty"));
    }
    let first_unreadable = first_unreadable.unwrap_or_default();
    if ftm_lines == 0 {
        return Err(malformed(format!(
            "no line is a FollowTheMoney entity ({first_unreadable})"
        )));
    }
    if unreadable > ftm_lines {
        return Err(malformed(format!(
            "only {ftm_lines} of {lines} lines are FollowTheMoney entities ({first_unreadable})"
        )));
    }
    Ok(Export { entities, skipped })
}

/// Reads one non-blank line.
fn line(n: usize, raw: &[u8]) -> Line {
    let value: Value = match serde_json::from_slice(raw) {
        Ok(v) => v,
        Err(e) => {
            let text = e.to_string();
            let what = text.split(" at line ").next().unwrap_or(&text);
            return Line::Unreadable(format!("not JSON ({what} at column {})", e.column()));
        }
    };
    let Value::Object(obj) = value else {
        return Line::Unreadable(format!("a JSON {}, not an object", json_type(&value)));
    };
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    };
    let schema = match obj.get("schema") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(_) => {
            return Line::Unreadable(format!(
                "{}a schema that is not a name",
                id.map(|id| format!("{id}: ")).unwrap_or_default()
            ))
        }
        None => {
            if obj.contains_key("op") && obj.contains_key("entity") {
                let op = obj.get("op").and_then(Value::as_str).unwrap_or("?");
                return Line::Delta(op.to_owned());
            }
            return Line::Unreadable(match id {
                Some(id) => format!("{id}: a JSON object without a schema"),
                None => "a JSON object without a schema".into(),
            });
        }
    };
    let Some(id) = id else {
        return Line::Broken(format!("line {n} ({schema}): no id"));
    };
    let at = format!("line {n} ({id}, {schema})");
    match entity(n, id, schema, &obj) {
        Ok(e) => Line::Entity(Box::new(e)),
        Err(why) => Line::Broken(format!("{at}: {why}")),
    }
}

fn entity(
    line: usize,
    id: String,
    schema: String,
    obj: &Map<String, Value>,
) -> Result<Entity, String> {
    let caption = match obj.get("caption") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => collapse(s),
        Some(_) => return Err("the caption is not a string".into()),
    };
    let target = match obj.get("target") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err("target is neither true nor false".into()),
    };
    let referents = match obj.get("referents") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => strings(v).ok_or("referents is not a list of strings")?,
    };
    let mut props = HashMap::new();
    match obj.get("properties") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (prop, v) in map {
                if let Some(prop) = used(prop) {
                    let values =
                        strings(v).ok_or_else(|| format!("{prop} is not a list of strings"))?;
                    if !values.is_empty() {
                        props.insert(prop, values);
                    }
                }
            }
        }
        Some(_) => return Err("properties is not an object".into()),
    }
    Ok(Entity {
        line,
        id,
        schema,
        caption,
        target,
        referents,
        props,
    })
}

/// A JSON list of strings, each with its whitespace collapsed, the empty ones dropped.
fn strings(v: &Value) -> Option<Vec<String>> {
    let Value::Array(items) = v else {
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.extend(collapse(item.as_str()?));
    }
    Some(out)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whitespace collapsed to single spaces, trimmed; `None` when nothing is left.
fn collapse(s: &str) -> Option<String> {
    let v = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!v.is_empty()).then_some(v)
}

/// What a `Sanction` entity gives the entries it names.
struct Sanction {
    programs: Vec<String>,
    first_day: Option<NaiveDate>,
}

/// The file's entities with their references resolved.
struct File<'a> {
    entities: &'a [Entity],
    /// Entity ids and screenable entities' referents, to the entity.
    refs: HashMap<&'a str, usize>,
    /// For an entity, the `Sanction` entities naming it, in file order.
    sanctions: HashMap<usize, Vec<Sanction>>,
    /// For an entity, the identity documents it holds, in file order.
    documents: HashMap<usize, Vec<usize>>,
}

impl<'a> File<'a> {
    fn index(entities: &'a [Entity], skipped: &mut Vec<(usize, String)>) -> File<'a> {
        let mut refs: HashMap<&str, usize> = entities
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        for (i, e) in entities.iter().enumerate() {
            if entry_kind(&e.schema).is_some() {
                for r in &e.referents {
                    refs.entry(r.as_str()).or_insert(i);
                }
            }
        }
        let mut sanctions: HashMap<usize, Vec<Sanction>> = HashMap::new();
        let mut documents: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, e) in entities.iter().enumerate() {
            match e.schema.as_str() {
                "Sanction" => {
                    let first_day = match first_day(e) {
                        Ok(day) => day,
                        Err(why) => {
                            skipped.push((e.line, format!("{}: {why}", e.at())));
                            continue;
                        }
                    };
                    let programs = ["programId", "program", "authority"]
                        .iter()
                        .map(|p| e.values(p))
                        .find(|v| !v.is_empty())
                        .unwrap_or_default()
                        .to_vec();
                    let mut named: Vec<usize> = Vec::new();
                    for r in e.values("entity") {
                        if let Some(t) = refs.get(r.as_str()) {
                            if !named.contains(t) {
                                named.push(*t);
                            }
                        }
                    }
                    for t in named {
                        sanctions.entry(t).or_default().push(Sanction {
                            programs: programs.clone(),
                            first_day,
                        });
                    }
                }
                "Identification" | "Passport" => {
                    let mut held: Vec<usize> = Vec::new();
                    for r in e.values("holder") {
                        if let Some(h) = refs.get(r.as_str()) {
                            if !held.contains(h) {
                                held.push(*h);
                            }
                        }
                    }
                    for h in held {
                        documents.entry(h).or_default().push(i);
                    }
                }
                _ => {}
            }
        }
        File {
            entities,
            refs,
            sanctions,
            documents,
        }
    }

    /// The entry of entity `i`, or why it cannot be one.
    fn entry(&self, i: usize, kind: EntryKind) -> Result<ListEntry, String> {
        let e = &self.entities[i];

        let mut names = Names::default();
        let listed = e.values("name");
        let primary = match &e.caption {
            Some(c) if listed.contains(c) => Some(c.clone()),
            _ => listed.first().cloned(),
        };
        let primary = match primary {
            Some(p) => p,
            None if kind == EntryKind::Person => composed_name(e).ok_or("no name")?,
            None => return Err("no name".into()),
        };
        names.add(&primary, NameQuality::Strong);
        for prop in STRONG_NAMES {
            for n in e.values(prop) {
                names.add(n, NameQuality::Strong);
            }
        }
        for prop in WEAK_NAMES {
            for n in e.values(prop) {
                names.add(n, NameQuality::Weak);
            }
        }

        let mut birth_dates = Vec::new();
        for v in e.values("birthDate") {
            let d = ftm_date(v).ok_or_else(|| format!("birthDate {v:?} is not a date"))?;
            if !birth_dates.contains(&d) {
                birth_dates.push(d);
            }
        }

        let mut nationalities = Countries::default();
        for prop in NATIONALITY {
            for v in e.values(prop) {
                nationalities.add(country(v));
            }
        }
        let mut countries = Countries::default();
        for prop in COUNTRY {
            for v in e.values(prop) {
                countries.add(country(v));
            }
        }
        for r in e.values("addressEntity") {
            if let Some(a) = self.refs.get(r.as_str()).map(|a| &self.entities[*a]) {
                if a.schema == "Address" {
                    for v in a.values("country") {
                        countries.add(country(v));
                    }
                }
            }
        }

        let mut identifiers: Vec<ListedIdentifier> = Vec::new();
        let mut add_id = |id: ListedIdentifier| {
            if !identifiers
                .iter()
                .any(|o| o.kind == id.kind && o.value == id.value)
            {
                identifiers.push(id);
            }
        };
        for (prop, kind) in IDENTIFIERS {
            for v in e.values(prop) {
                add_id(ListedIdentifier {
                    kind: kind.into(),
                    value: v.clone(),
                    country: None,
                });
            }
        }
        for d in self.documents.get(&i).into_iter().flatten() {
            let d = &self.entities[*d];
            let kind = if d.schema == "Passport" {
                "passport".to_owned()
            } else {
                d.values("type")
                    .first()
                    .map_or("identification".to_owned(), |t| t.to_lowercase())
            };
            let issuer = d
                .values("country")
                .iter()
                .find_map(|c| country(c).and_then(|c| c.code));
            for number in d.values("number") {
                add_id(ListedIdentifier {
                    kind: kind.clone(),
                    value: number.clone(),
                    country: issuer.clone(),
                });
            }
        }

        let mut programs: Vec<String> = Vec::new();
        let sanctions = self.sanctions.get(&i).map_or(&[][..], Vec::as_slice);
        let own = e.values("programId").iter();
        for p in own.chain(sanctions.iter().flat_map(|s| &s.programs)) {
            if !programs.contains(p) {
                programs.push(p.clone());
            }
        }
        let listed_on = sanctions.iter().filter_map(|s| s.first_day).min();

        Ok(ListEntry {
            source_entry_id: e.id.clone(),
            kind,
            names: names.0,
            birth_dates,
            nationalities: nationalities.0,
            countries: countries.0,
            identifiers,
            programs,
            listed_on,
            exposure: None,
        })
    }
}

/// A `Sanction`'s day of listing: its earliest full-day `startDate`, or `listingDate` when it
/// has no `startDate`; an unreadable date is an error.
fn first_day(e: &Entity) -> Result<Option<NaiveDate>, String> {
    let days = |prop: &str| -> Result<Vec<NaiveDate>, String> {
        let mut out = Vec::new();
        for v in e.values(prop) {
            match ftm_date(v) {
                Some(ListedDate::Day(d)) => out.push(d),
                Some(_) => {}
                None => return Err(format!("{prop} {v:?} is not a date")),
            }
        }
        Ok(out)
    };
    let start = days("startDate")?;
    let listing = days("listingDate")?;
    let chosen = if e.values("startDate").is_empty() {
        listing
    } else {
        start
    };
    Ok(chosen.into_iter().min())
}

/// A person's name from its parts, when it has no `name`.
fn composed_name(e: &Entity) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for prop in NAME_PARTS {
        if let Some(p) = e.values(prop).first() {
            if !parts.iter().any(|q| q.to_lowercase() == p.to_lowercase()) {
                parts.push(p);
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// An FtM date: an ISO 8601 prefix, `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (a timestamp is its
/// day).
fn ftm_date(s: &str) -> Option<ListedDate> {
    let s = s.trim();
    let s = match s.find('T') {
        Some(10) => &s[..10],
        _ => s,
    };
    let b = s.as_bytes();
    let digits = |from: usize, to: usize| b[from..to].iter().all(u8::is_ascii_digit);
    let number = |from: usize, to: usize| s[from..to].parse::<u32>().ok();
    let year = || {
        number(0, 4)
            .and_then(|y| i32::try_from(y).ok())
            .filter(|y| *y > 0)
    };
    match b.len() {
        4 if digits(0, 4) => year().map(ListedDate::Year),
        7 if digits(0, 4) && b[4] == b'-' && digits(5, 7) => {
            let (year, month) = (year()?, number(5, 7)?);
            (1..=12)
                .contains(&month)
                .then_some(ListedDate::Month { year, month })
        }
        10 if digits(0, 4) && b[4] == b'-' && digits(5, 7) && b[7] == b'-' && digits(8, 10) => {
            NaiveDate::from_ymd_opt(year()?, number(5, 7)?, number(8, 10)?).map(ListedDate::Day)
        }
        _ => None,
    }
}

/// The ISO 3166-1 alpha-2 codes (with `XK`, Kosovo, as the lists use it).
const ISO_CODES: &str = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH \
    BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW \
    CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI \
    GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO \
    JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH \
    MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA \
    PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL \
    SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US \
    UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW";

/// FtM's territory codes that are not ISO 3166-1 codes, with FtM's English labels.
const TERRITORIES: [(&str, &str); 14] = [
    ("csxx", "Serbia and Montenegro"),
    ("cy-trnc", "Northern Cyprus"),
    ("eu", "European Union"),
    ("gb-eng", "England"),
    ("gb-nir", "Northern Ireland"),
    ("gb-sct", "Scotland"),
    ("gb-wls", "Wales"),
    ("ge-ab", "Abkhazia"),
    ("md-pmr", "Transnistria"),
    ("so-som", "Somaliland"),
    ("suhh", "Soviet Union"),
    ("x-so", "South Ossetia"),
    ("yucs", "Yugoslavia"),
    ("zz", ""),
];

/// A country as FtM writes it; `None` for a value that names none (`zz`).
fn country(value: &str) -> Option<ListedCountry> {
    let lower = value.to_lowercase();
    let upper = value.to_uppercase();
    if upper.len() == 2 && ISO_CODES.split(' ').any(|c| c == upper) {
        return Some(ListedCountry {
            code: Some(upper),
            name: value.to_owned(),
        });
    }
    if let Some((_, label)) = TERRITORIES.iter().find(|(code, _)| *code == lower) {
        return (!label.is_empty()).then(|| ListedCountry {
            code: None,
            name: (*label).to_owned(),
        });
    }
    Some(ListedCountry {
        code: iso_code(value).map(str::to_owned),
        name: value.to_owned(),
    })
}

/// An entry's countries, deduplicated: by code when there is one, else by the words.
#[derive(Default)]
struct Countries(Vec<ListedCountry>);

impl Countries {
    fn add(&mut self, c: Option<ListedCountry>) {
        let Some(c) = c else { return };
        let seen = self.0.iter().any(|o| match (&o.code, &c.code) {
            (Some(a), Some(b)) => a == b,
            (None, None) => o.name.to_lowercase() == c.name.to_lowercase(),
            _ => false,
        });
        if !seen {
            self.0.push(c);
        }
    }
}

/// An entry's names, deduplicated on their text (the first kept).
#[derive(Default)]
struct Names(Vec<ListedName>);

impl Names {
    fn add(&mut self, full: &str, quality: NameQuality) {
        if !full.is_empty() && !self.0.iter().any(|n| n.full == full) {
            self.0.push(ListedName {
                full: full.to_owned(),
                quality,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> ListedDate {
        ListedDate::Day(NaiveDate::from_ymd_opt(y, m, d).unwrap())
    }

    #[test]
    fn dates_read_as_precisely_as_written() {
        assert_eq!(ftm_date("1975"), Some(ListedDate::Year(1975)));
        assert_eq!(
            ftm_date("1975-04"),
            Some(ListedDate::Month {
                year: 1975,
                month: 4
            })
        );
        assert_eq!(ftm_date("1975-04-21"), Some(day(1975, 4, 21)));
        assert_eq!(ftm_date("1975-04-21T10:00:00"), Some(day(1975, 4, 21)));
        for bad in [
            "",
            "75",
            "0000",
            "+975",
            "1975-13",
            "1975-00",
            "1975-4-21",
            "1975-02-30",
            "1975-04-21-",
            "19x5",
            "1975/04/21",
            "1975-04-2é",
            "é975-04-21T",
            "1975-04T",
        ] {
            assert_eq!(ftm_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn countries_as_ftm_writes_them() {
        let c = |code: Option<&str>, name: &str| {
            Some(ListedCountry {
                code: code.map(str::to_owned),
                name: name.to_owned(),
            })
        };
        assert_eq!(country("ru"), c(Some("RU"), "ru"));
        assert_eq!(country("xk"), c(Some("XK"), "xk"));
        assert_eq!(country("suhh"), c(None, "Soviet Union"));
        assert_eq!(country("ge-ab"), c(None, "Abkhazia"));
        assert_eq!(country("zz"), None);
        assert_eq!(
            country("Russian Federation"),
            c(Some("RU"), "Russian Federation")
        );
        assert_eq!(country("uk"), c(Some("GB"), "uk"));
        assert_eq!(country("qq"), c(None, "qq"));
        assert_eq!(country("é"), c(None, "é"));
    }

    #[test]
    fn the_used_properties_are_known() {
        assert_eq!(used("name"), Some("name"));
        assert_eq!(used("imoNumber"), Some("imoNumber"));
        assert_eq!(used("birthDate"), Some("birthDate"));
        assert_eq!(used("notes"), None);
    }
}
