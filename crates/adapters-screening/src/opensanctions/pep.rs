//! FollowTheMoney PEP data (`--format ftm-pep`), read into a PEP list
//! ([`ListSource::FtmPeps`]): politically exposed persons, their family members and close
//! associates, each with what makes them exposed.
//!
//! The file is the same JSON-lines export the sanctions reader takes (the same lines are
//! refused or skipped, see [`super`]); what differs is which entities become entries and
//! what they carry:
//!
//! - **Entries.** `Person` entities whose `topics` include `role.pep` or `role.rca` (or their
//!   sub-topics, `role.pep.frmr`, ...), whether or not the export marks them `target` (the
//!   topic is the list's word that the person is exposed; exports differ in whether they
//!   mark relatives and associates as targets). A person
//!   with `role.pol` alone (a politician below the PEP threshold) is not one; neither is a
//!   person whose topics say only that it is sanctioned, wanted or debarred. They are set
//!   aside and counted under their principal topic ([`ParsedList::set_aside`]) when the export
//!   marks them targets, as are the file's other targets (companies, vessels); what it marks
//!   `target: false` is context, not counted. In an export that marks no entity with
//!   topics, a person holding an office in the file is a PEP, and a person tied to one by a
//!   `Family` or `Associate` is a relative or associate.
//! - **Names, birth dates, countries, identifiers** are read as for sanctions; programs and
//!   the listing date are not (a PEP list designates nothing).
//! - **Offices** ([`HeldPosition`]): each `Occupancy` whose `holder` is the person, its `post`
//!   the `Position` it names: the title is the position's first `name`, the country its
//!   first `country` (an ISO code), the dates the occupancy's `startDate` and `endDate`
//!   (`periodEnd`, the end of the fixed term, when it has no `endDate`), the status its
//!   `status` (`current`, `ended`, else unknown: OpenSanctions leaves `status` out when it
//!   does not know). An occupancy whose post is not in the file, or whose date is not an
//!   ISO date prefix, is skipped and named in `skipped`. A PEP with no occupancy in the file
//!   keeps the person's own `position` texts as offices of unknown status and dates, in the
//!   person's first country.
//! - **Ties** ([`PepRelation`]): each `Family` and `Associate` between the person and a PEP
//!   of the file. FtM reads a `Family`'s `relationship` from the `person`'s side
//!   (`relationship: "spouse"` makes the `relative` the person's spouse), so a relative is
//!   the PEP's `spouse`; when the file has it the other way round (the PEP is the
//!   `relative`), the words are kept as `the PEP is their <words>`. An `Associate`'s words
//!   are kept as written. Each tie copies the PEP's name and offices, so a candidate explains
//!   itself. A tie to someone who is not a PEP of the file is not one.

use super::{entities, principal_topic, Entity, Export, File, Tally, SANCTION_TOPICS};
use crate::ReadError;
use domain::screening::sanctions::{
    EntryKind, Exposure, ExposureRole, HeldPosition, ListSource, ParsedList, PepRelation,
    RelationKind, TermStatus,
};
use std::collections::HashMap;

/// The topic marks of a PEP and of a relative or close associate, with their sub-topics.
fn has_topic(e: &Entity, topic: &str) -> bool {
    e.values("topics")
        .iter()
        .any(|t| t == topic || t.strip_prefix(topic).is_some_and(|r| r.starts_with('.')))
}

/// A file's offices and ties, indexed by the person they concern.
struct Ties {
    /// For a person, its occupancies' entity indexes, in file order.
    occupancies: HashMap<usize, Vec<usize>>,
    /// For a person, `(kind, the other person, relationship words)` in file order.
    links: HashMap<usize, Vec<(RelationKind, usize, Option<String>)>>,
}

impl Ties {
    fn index(file: &File<'_>) -> Ties {
        let resolve = |e: &Entity, prop: &str| -> Vec<usize> {
            let mut out: Vec<usize> = Vec::new();
            for r in e.values(prop) {
                if let Some(i) = file.refs.get(r.as_str()) {
                    if !out.contains(i) {
                        out.push(*i);
                    }
                }
            }
            out
        };
        let mut occupancies: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut links: HashMap<usize, Vec<(RelationKind, usize, Option<String>)>> = HashMap::new();
        for (i, e) in file.entities.iter().enumerate() {
            match e.schema.as_str() {
                "Occupancy" => {
                    for holder in resolve(e, "holder") {
                        occupancies.entry(holder).or_default().push(i);
                    }
                }
                "Family" | "Associate" => {
                    let (kind, other) = if e.schema == "Family" {
                        (RelationKind::Family, "relative")
                    } else {
                        (RelationKind::Associate, "associate")
                    };
                    let words = e.values("relationship").first().cloned();
                    for person in resolve(e, "person") {
                        for related in resolve(e, other) {
                            if person == related {
                                continue;
                            }
                            // The related party is the person's <words>.
                            links
                                .entry(related)
                                .or_default()
                                .push((kind, person, words.clone()));
                            let inverse = match kind {
                                RelationKind::Family => {
                                    words.as_ref().map(|w| format!("the PEP is their {w}"))
                                }
                                RelationKind::Associate => words.clone(),
                            };
                            links
                                .entry(person)
                                .or_default()
                                .push((kind, related, inverse));
                        }
                    }
                }
                _ => {}
            }
        }
        Ties { occupancies, links }
    }
}

/// Reads a whole FtM export as a PEP list.
pub(crate) fn read(bytes: &[u8]) -> Result<ParsedList, ReadError> {
    let Export {
        entities,
        mut skipped,
    } = entities(bytes)?;
    let file = File::index(&entities, &mut skipped);
    let ties = Ties::index(&file);
    let uses_topics = entities.iter().any(|e| !e.values("topics").is_empty());

    // Each person's offices, read once (the PEP's own entry and every tie to it copy them).
    let mut offices: HashMap<usize, Vec<HeldPosition>> = HashMap::new();
    for (person, occupancies) in &ties.occupancies {
        let mut held = Vec::new();
        for o in occupancies {
            match position(&file, &entities[*o]) {
                Ok(p) => held.push(p),
                Err(why) => {
                    skipped.push((entities[*o].line, format!("{}: {why}", entities[*o].at())))
                }
            }
        }
        offices.insert(*person, held);
    }
    // A PEP by its topic (or, in an export without topics, by an office it holds). `target`
    // does not decide here: the topic is the list's word that the person is exposed, and
    // exports differ in whether they mark relatives and associates as targets.
    let is_pep = |i: usize| -> bool {
        let e = &entities[i];
        e.schema == "Person"
            && if uses_topics {
                has_topic(e, "role.pep")
            } else {
                offices.get(&i).is_some_and(|o| !o.is_empty())
            }
    };
    let offices_of = |i: usize| -> Vec<HeldPosition> {
        let held = offices.get(&i).cloned().unwrap_or_default();
        if !held.is_empty() {
            return held;
        }
        // A PEP the file gives no occupancy: its own words for its offices.
        let e = &entities[i];
        let country = e
            .values("country")
            .iter()
            .find_map(|c| super::country(c).and_then(|c| c.code));
        e.values("position")
            .iter()
            .map(|title| HeldPosition {
                title: title.clone(),
                country: country.clone(),
                start: None,
                end: None,
                status: TermStatus::Unknown,
            })
            .collect()
    };

    let mut entries = Vec::new();
    let mut set_aside = Tally::default();
    for (i, e) in entities.iter().enumerate() {
        let Some(kind) = super::entry_kind(&e.schema) else {
            if e.target == Some(true) {
                set_aside.add(principal_topic(e.values("topics")));
            }
            continue;
        };
        let pep = is_pep(i);
        let relations: Vec<PepRelation> = ties
            .links
            .get(&i)
            .into_iter()
            .flatten()
            .filter(|(_, other, _)| is_pep(*other))
            .map(|(kind, other, words)| PepRelation {
                kind: *kind,
                relationship: words.clone(),
                pep_entry_id: entities[*other].id.clone(),
                pep_name: display_name(&entities[*other]),
                pep_positions: offices_of(*other),
            })
            .collect();
        let rca = if uses_topics {
            has_topic(e, "role.rca")
        } else {
            !relations.is_empty()
        };
        if kind != EntryKind::Person || !(pep || rca) {
            // Context the export carries about its entries (a company a PEP owns, a
            // politician below the threshold not marked a target): not counted.
            if e.target == Some(false) {
                continue;
            }
            let topics = e.values("topics");
            set_aside.add(if topics.is_empty() {
                "(no topic)".to_owned()
            } else if topics.iter().any(|t| SANCTION_TOPICS.contains(&t.as_str())) {
                "sanction".to_owned()
            } else {
                principal_topic(topics)
            });
            continue;
        }
        let mut entry = match file.entry(i, kind) {
            Ok(entry) => entry,
            Err(why) => {
                skipped.push((e.line, format!("{}: {why}", e.at())));
                continue;
            }
        };
        entry.programs = Vec::new();
        entry.listed_on = None;
        let mut roles = Vec::new();
        if pep {
            roles.push(ExposureRole::Pep);
        }
        if rca {
            roles.push(ExposureRole::Rca);
        }
        entry.exposure = Some(Exposure {
            roles,
            positions: if pep { offices_of(i) } else { Vec::new() },
            relations,
        });
        entries.push(entry);
    }
    skipped.sort_by_key(|(line, _)| *line);
    Ok(ParsedList {
        source: ListSource::FtmPeps,
        published_at: None,
        entries,
        skipped: skipped.into_iter().map(|(_, why)| why).collect(),
        set_aside: set_aside.into_list(),
    })
}

/// A person's display name: the caption when it is one of its names, else its first name.
fn display_name(e: &Entity) -> String {
    let names = e.values("name");
    match &e.caption {
        Some(c) if names.contains(c) || names.is_empty() => c.clone(),
        _ => names.first().cloned().unwrap_or_default(),
    }
}

/// The office an `Occupancy` records.
fn position(file: &File<'_>, o: &Entity) -> Result<HeldPosition, String> {
    let post = o
        .values("post")
        .iter()
        .find_map(|r| file.refs.get(r.as_str()))
        .map(|p| &file.entities[*p])
        .filter(|p| p.schema == "Position")
        .ok_or("its post is not a Position of the file")?;
    let title = post
        .values("name")
        .first()
        .cloned()
        .or_else(|| post.caption.clone())
        .ok_or("its Position has no name")?;
    let date = |prop: &str| -> Result<Option<_>, String> {
        match o.values(prop).first() {
            None => Ok(None),
            Some(v) => super::ftm_date(v)
                .map(Some)
                .ok_or_else(|| format!("{prop} {v:?} is not a date")),
        }
    };
    let start = date("startDate")?;
    let end = match date("endDate")? {
        Some(end) => Some(end),
        None => date("periodEnd")?,
    };
    let status = match o.values("status").first().map(String::as_str) {
        Some("current") => TermStatus::Current,
        Some("ended") => TermStatus::Ended,
        _ => TermStatus::Unknown,
    };
    Ok(HeldPosition {
        title,
        country: post
            .values("country")
            .iter()
            .find_map(|c| super::country(c).and_then(|c| c.code)),
        start,
        end,
        status,
    })
}
