//! A screening outcome as ongoing screening compares it: the candidates that ask something
//! of a person (band `review` or `hit`, not cleared by the whitelist), by entity. A near
//! miss (`clear`) is shown on a check but is no outcome, so a list change that only moves
//! near misses logs nothing.

use crate::companies::paid::Party;
use crate::monitoring::event::EventData;
use crate::screening::check::CheckCandidate;
use crate::screening::ongoing::delta::{EntryChange, ListDelta};
use crate::screening::policy::Band;
use crate::screening::sanctions::ListSource;
use std::collections::{BTreeMap, BTreeSet};

/// One candidate that counts toward an outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// `<source_id>:<source_entry_id>`: the same across a list's versions.
    pub entity_id: String,
    /// The list, whose kind (`sanctions` or `pep`) the event names beside its id.
    pub source: ListSource,
    pub source_entry_id: String,
    pub band: Band,
    pub score: f64,
    /// The company's officer or beneficial owner the candidate concerns (`None`: the
    /// subject itself).
    pub concerns: Option<Party>,
}

/// A standing's key: its entity, and the party it concerns (by the handle of their
/// personal number, or their role and name when the register gives none).
fn key(entity_id: &str, concerns: Option<&Party>) -> String {
    match concerns {
        None => entity_id.to_owned(),
        Some(p) => match &p.personal_number_ref {
            Some(r) => format!("{entity_id}|{}|{r}", p.role.as_str()),
            None => format!("{entity_id}|{}|name:{}", p.role.as_str(), p.name),
        },
    }
}

/// The `concerns` of an event's candidate: the party's role and personal number handle;
/// its name only when the register gives no number (never a number).
pub fn concerns_data(concerns: Option<&Party>) -> EventData {
    match concerns {
        None => EventData::Null,
        Some(p) => EventData::Object(vec![
            (
                "role".to_owned(),
                EventData::Text(p.role.as_str().to_owned()),
            ),
            (
                "personal_number_ref".to_owned(),
                p.personal_number_ref
                    .map_or(EventData::Null, |r| EventData::Text(r.to_string())),
            ),
            (
                "name".to_owned(),
                p.shown_name()
                    .map_or(EventData::Null, |n| EventData::Text(n.to_owned())),
            ),
        ]),
    }
}

impl Standing {
    fn data(&self, band_field: &str) -> Vec<(String, EventData)> {
        vec![
            ("concerns".to_owned(), concerns_data(self.concerns.as_ref())),
            (
                "entity_id".to_owned(),
                EventData::Text(self.entity_id.clone()),
            ),
            (
                "source_id".to_owned(),
                EventData::Text(self.source.as_str().to_owned()),
            ),
            (
                "list_kind".to_owned(),
                EventData::Text(self.source.kind().as_str().to_owned()),
            ),
            (
                "source_entry_id".to_owned(),
                EventData::Text(self.source_entry_id.clone()),
            ),
            (
                band_field.to_owned(),
                EventData::Text(self.band.as_str().to_owned()),
            ),
        ]
    }
}

/// The candidates of `candidates` that count, by entity and party, of the entities in
/// `within` when given.
pub fn standings(
    candidates: &[CheckCandidate],
    within: Option<&BTreeSet<String>>,
) -> BTreeMap<String, Standing> {
    candidates
        .iter()
        .filter(|c| c.band >= Band::Review && !c.whitelisted)
        .filter(|c| within.is_none_or(|w| w.contains(&c.entity_id)))
        .map(|c| {
            (
                key(&c.entity_id, c.concerns.as_ref()),
                Standing {
                    entity_id: c.entity_id.clone(),
                    source: c.source,
                    source_entry_id: c.source_entry_id.clone(),
                    band: c.band,
                    score: c.score,
                    concerns: c.concerns.clone(),
                },
            )
        })
        .collect()
}

/// How an outcome moved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutcomeChange {
    /// Candidates that count now and did not (an entry added, or changed to match).
    pub appeared: Vec<Standing>,
    /// Candidates that counted and no longer do, with how their entry moved (removed:
    /// delisted; changed: it no longer matches enough).
    pub disappeared: Vec<(Standing, EntryChange)>,
    /// Candidates that count before and after, in another band: `(before, after)`.
    pub moved: Vec<(Standing, Standing)>,
}

impl OutcomeChange {
    /// The change from `before` to `after` (both of the change's entities only), `None`
    /// when nothing moved. An entity missing from the delta is reported as changed.
    pub fn between(
        before: &BTreeMap<String, Standing>,
        after: &BTreeMap<String, Standing>,
        delta: &ListDelta,
    ) -> Option<OutcomeChange> {
        let mut change = OutcomeChange::default();
        for (entity, now) in after {
            match before.get(entity) {
                None => change.appeared.push(now.clone()),
                Some(was) if was.band != now.band => {
                    change.moved.push((was.clone(), now.clone()));
                }
                Some(_) => {}
            }
        }
        for (entity, was) in before {
            if !after.contains_key(entity) {
                let how = delta
                    .change_of(&was.source_entry_id)
                    .unwrap_or(EntryChange::Changed);
                change.disappeared.push((was.clone(), how));
            }
        }
        let empty =
            change.appeared.is_empty() && change.disappeared.is_empty() && change.moved.is_empty();
        (!empty).then_some(change)
    }

    /// The event's `appeared`, `disappeared` and `moved` lists.
    pub fn data(&self) -> Vec<(String, EventData)> {
        let list = |items: Vec<EventData>| EventData::List(items);
        vec![
            (
                "appeared".to_owned(),
                list(
                    self.appeared
                        .iter()
                        .map(|s| EventData::Object(s.data("band")))
                        .collect(),
                ),
            ),
            (
                "disappeared".to_owned(),
                list(
                    self.disappeared
                        .iter()
                        .map(|(s, how)| {
                            let mut fields = s.data("band_before");
                            fields.push((
                                "entry".to_owned(),
                                EventData::Text(how.as_str().to_owned()),
                            ));
                            EventData::Object(fields)
                        })
                        .collect(),
                ),
            ),
            (
                "moved".to_owned(),
                list(
                    self.moved
                        .iter()
                        .map(|(was, now)| {
                            let mut fields = now.data("band");
                            fields.push((
                                "band_before".to_owned(),
                                EventData::Text(was.band.as_str().to_owned()),
                            ));
                            EventData::Object(fields)
                        })
                        .collect(),
                ),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screening::sanctions::{ListEntry, ListSource, SourceVersion, SourceVersionId};
    use chrono::Utc;

    fn standing(id: &str, band: Band) -> (String, Standing) {
        let entity = format!("un_sc:{id}");
        (
            entity.clone(),
            Standing {
                entity_id: entity,
                source: ListSource::UnConsolidated,
                source_entry_id: id.into(),
                band,
                score: 0.9,
                concerns: None,
            },
        )
    }

    fn delta(removed: &[&str], changed: &[&str]) -> ListDelta {
        let version = SourceVersion {
            id: SourceVersionId::generate(),
            source: ListSource::UnConsolidated,
            digest: "sha256:00".into(),
            published_at: None,
            imported_at: Utc::now(),
            entry_count: 1,
            skipped_count: 0,
        };
        let mut d = ListDelta::between(None, (version, Vec::<ListEntry>::new()));
        for id in removed {
            d.changes.insert((*id).to_owned(), EntryChange::Removed);
        }
        for id in changed {
            d.changes.insert((*id).to_owned(), EntryChange::Changed);
        }
        d
    }

    #[test]
    fn nothing_moved_is_no_change() {
        let before: BTreeMap<_, _> = [standing("1", Band::Review)].into();
        assert_eq!(
            OutcomeChange::between(&before, &before.clone(), &delta(&[], &[])),
            None
        );
        assert_eq!(
            OutcomeChange::between(&BTreeMap::new(), &BTreeMap::new(), &delta(&[], &[])),
            None
        );
    }

    #[test]
    fn appeared_disappeared_and_moved_are_each_reported() {
        let before: BTreeMap<_, _> = [
            standing("1", Band::Review),
            standing("2", Band::Hit),
            standing("3", Band::Review),
        ]
        .into();
        let after: BTreeMap<_, _> = [standing("1", Band::Hit), standing("4", Band::Review)].into();
        let change = OutcomeChange::between(&before, &after, &delta(&["2"], &["3"])).unwrap();
        assert_eq!(change.appeared.len(), 1);
        assert_eq!(change.appeared[0].source_entry_id, "4");
        assert_eq!(change.moved.len(), 1);
        assert_eq!(change.moved[0].0.band, Band::Review);
        assert_eq!(change.moved[0].1.band, Band::Hit);
        let gone: Vec<(&str, EntryChange)> = change
            .disappeared
            .iter()
            .map(|(s, how)| (s.source_entry_id.as_str(), *how))
            .collect();
        assert_eq!(
            gone,
            [("2", EntryChange::Removed), ("3", EntryChange::Changed)]
        );
    }

    #[test]
    fn a_near_miss_or_a_whitelisted_candidate_does_not_count() {
        use crate::screening::check::{CandidateEvidence, CheckCandidate};
        use crate::screening::sanctions::{EntryKind, NameQuality};
        let candidate = |id: &str, band: Band, whitelisted: bool| CheckCandidate {
            id: format!("v:{id}"),
            entity_id: format!("un_sc:{id}"),
            source: ListSource::UnConsolidated,
            source_entry_id: id.into(),
            source_version_id: SourceVersionId::generate(),
            score: 0.8,
            band,
            reasons: vec![],
            listing: ListEntry {
                source_entry_id: id.into(),
                kind: EntryKind::Person,
                names: vec![],
                birth_dates: vec![],
                nationalities: vec![],
                countries: vec![],
                identifiers: vec![],
                programs: vec![],
                listed_on: None,
                exposure: None,
            },
            evidence: CandidateEvidence {
                digest: "sha256:00".into(),
                published_at: None,
                imported_at: Utc::now(),
                matched_name: "X".into(),
                matched_name_quality: NameQuality::Strong,
            },
            whitelisted,
            whitelist_id: None,
            concerns: None,
        };
        let found = [
            candidate("1", Band::Clear, false),
            candidate("2", Band::Review, true),
            candidate("3", Band::Review, false),
            candidate("4", Band::Hit, false),
        ];
        let all = standings(&found, None);
        assert_eq!(all.keys().collect::<Vec<_>>(), ["un_sc:3", "un_sc:4"]);

        // One entry found for the company and for its officer: two standings.
        use crate::companies::paid::{Party, PartyRole};
        let officer = Party {
            role: PartyRole::Officer,
            name: String::new(),
            personal_number_ref: Some(crate::ids::IdentifierRef::generate()),
        };
        let both = [
            candidate("4", Band::Hit, false),
            CheckCandidate {
                concerns: Some(officer.clone()),
                ..candidate("4", Band::Review, false)
            },
        ];
        let kept = standings(&both, None);
        assert_eq!(kept.len(), 2);
        assert!(kept.values().any(|s| s.concerns == Some(officer.clone())));
        let within: BTreeSet<String> = ["un_sc:4".to_owned()].into();
        assert_eq!(
            standings(&found, Some(&within)).keys().collect::<Vec<_>>(),
            ["un_sc:4"]
        );
    }
}
