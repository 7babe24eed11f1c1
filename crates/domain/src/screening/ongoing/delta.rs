//! What changed between two versions of one list.
//!
//! Entries are matched across versions by the list's own id (`source_entry_id`): an id only
//! the new version holds was **added**, one only the old holds was **removed** (delisted),
//! one both hold with a different record was **changed**. A subject can only be screened
//! differently by entries in the change, so re-screening reads two indexes of them (the old
//! records, the new records) and never the whole list: its cost follows the size of the
//! change.

use crate::screening::matcher::index::ListIndex;
use crate::screening::sanctions::{ListEntry, ListSource, SourceVersion};
use std::collections::{BTreeMap, BTreeSet};

/// How one entry moved between the versions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EntryChange {
    Added,
    Changed,
    Removed,
}

impl EntryChange {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryChange::Added => "added",
            EntryChange::Changed => "changed",
            EntryChange::Removed => "removed",
        }
    }
}

/// The change of one list from one version to another.
#[derive(Clone, Debug)]
pub struct ListDelta {
    pub source: ListSource,
    pub from: Option<SourceVersion>,
    pub to: SourceVersion,
    /// The old records of the entries removed or changed, in the old version's order.
    pub departed: Vec<ListEntry>,
    /// The new records of the entries added or changed, in the new version's order.
    pub arrived: Vec<ListEntry>,
    /// Each entry id in the change, with how it moved.
    pub changes: BTreeMap<String, EntryChange>,
}

/// An entry's records under one id (a list may, rarely, repeat an id: the records are
/// compared together).
fn by_id(entries: Vec<ListEntry>) -> BTreeMap<String, Vec<ListEntry>> {
    let mut map: BTreeMap<String, Vec<ListEntry>> = BTreeMap::new();
    for e in entries {
        map.entry(e.source_entry_id.clone()).or_default().push(e);
    }
    map
}

impl ListDelta {
    /// The change from `from` (none: the list's first version, every entry added) to `to`.
    pub fn between(
        from: Option<(SourceVersion, Vec<ListEntry>)>,
        to: (SourceVersion, Vec<ListEntry>),
    ) -> ListDelta {
        let (to_version, to_entries) = to;
        let (from_version, from_entries) = match from {
            Some((v, e)) => (Some(v), e),
            None => (None, Vec::new()),
        };
        let old = by_id(from_entries.clone());
        let new = by_id(to_entries.clone());
        let mut changes = BTreeMap::new();
        for (id, records) in &new {
            match old.get(id) {
                None => {
                    changes.insert(id.clone(), EntryChange::Added);
                }
                Some(before) if before != records => {
                    changes.insert(id.clone(), EntryChange::Changed);
                }
                Some(_) => {}
            }
        }
        for id in old.keys() {
            if !new.contains_key(id) {
                changes.insert(id.clone(), EntryChange::Removed);
            }
        }
        let departed = from_entries
            .into_iter()
            .filter(|e| changes.contains_key(&e.source_entry_id))
            .collect();
        let arrived = to_entries
            .into_iter()
            .filter(|e| changes.contains_key(&e.source_entry_id))
            .collect();
        ListDelta {
            source: to_version.source,
            from: from_version,
            to: to_version,
            departed,
            arrived,
            changes,
        }
    }

    /// No entry changed (the same records under another file, or a version made active
    /// again with nothing between).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Entries added, changed and removed.
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |k: EntryChange| self.changes.values().filter(|c| **c == k).count();
        (
            count(EntryChange::Added),
            count(EntryChange::Changed),
            count(EntryChange::Removed),
        )
    }

    /// How the entry `id` moved, if it is in the change.
    pub fn change_of(&self, id: &str) -> Option<EntryChange> {
        self.changes.get(id).copied()
    }

    /// The entity ids (`<source>:<entry id>`) of the change.
    pub fn entity_ids(&self) -> BTreeSet<String> {
        self.changes
            .keys()
            .map(|id| format!("{}:{id}", self.source))
            .collect()
    }

    /// The index of the departed records under the old version (empty for a first version).
    pub fn before_index(&self) -> ListIndex {
        match &self.from {
            Some(v) => ListIndex::build(vec![(v.clone(), self.departed.clone())]),
            None => ListIndex::default(),
        }
    }

    /// The index of the arrived records under the new version.
    pub fn after_index(&self) -> ListIndex {
        ListIndex::build(vec![(self.to.clone(), self.arrived.clone())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screening::sanctions::{EntryKind, ListedName, NameQuality, SourceVersionId};
    use chrono::Utc;
    use proptest::prelude::*;

    fn version() -> SourceVersion {
        SourceVersion {
            id: SourceVersionId::generate(),
            source: ListSource::UnConsolidated,
            digest: "sha256:00".into(),
            published_at: None,
            imported_at: Utc::now(),
            entry_count: 1,
            skipped_count: 0,
        }
    }

    fn entry(id: &str, name: &str) -> ListEntry {
        ListEntry {
            source_entry_id: id.to_owned(),
            kind: EntryKind::Person,
            names: vec![ListedName {
                full: name.to_owned(),
                quality: NameQuality::Strong,
            }],
            birth_dates: vec![],
            nationalities: vec![],
            countries: vec![],
            identifiers: vec![],
            programs: vec![],
            listed_on: None,
            exposure: None,
        }
    }

    #[test]
    fn added_changed_and_removed_are_told_apart_and_the_rest_left_out() {
        let old = vec![
            entry("1", "ANNA KARLSSON"),
            entry("2", "BO BERG"),
            entry("3", "CARL DAHL"),
        ];
        let new = vec![
            entry("1", "ANNA KARLSSON"),
            entry("2", "BO BERGMAN"),
            entry("4", "DORA EK"),
        ];
        let d = ListDelta::between(Some((version(), old)), (version(), new));
        assert_eq!(d.change_of("1"), None);
        assert_eq!(d.change_of("2"), Some(EntryChange::Changed));
        assert_eq!(d.change_of("3"), Some(EntryChange::Removed));
        assert_eq!(d.change_of("4"), Some(EntryChange::Added));
        assert_eq!(d.counts(), (1, 1, 1));
        let ids = |es: &[ListEntry]| {
            es.iter()
                .map(|e| e.source_entry_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&d.departed), ["2", "3"]);
        assert_eq!(ids(&d.arrived), ["2", "4"]);
        assert_eq!(d.before_index().entries.len(), 2);
        assert_eq!(d.after_index().entries.len(), 2);
        assert!(d.entity_ids().contains("un_sc:3"));
    }

    #[test]
    fn a_first_version_adds_every_entry_and_the_same_records_change_nothing() {
        let entries = vec![entry("1", "ANNA KARLSSON"), entry("2", "BO BERG")];
        let first = ListDelta::between(None, (version(), entries.clone()));
        assert_eq!(first.counts(), (2, 0, 0));
        assert_eq!(first.before_index().entries.len(), 0);
        let same = ListDelta::between(Some((version(), entries.clone())), (version(), entries));
        assert!(same.is_empty());
        assert!(same.arrived.is_empty() && same.departed.is_empty());
    }

    fn entries() -> impl Strategy<Value = Vec<ListEntry>> {
        prop::collection::vec(("[0-9]{1,2}", "[A-C]{1,3}"), 0..30).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(id, name)| entry(&id, &name))
                .collect()
        })
    }

    proptest! {
        /// The unchanged entries of the old version, with the arrived records, are exactly
        /// the new version's records; the unchanged ones with the departed are the old's.
        #[test]
        fn the_delta_rebuilds_both_versions(old in entries(), new in entries()) {
            let d = ListDelta::between(Some((version(), old.clone())), (version(), new.clone()));
            let sorted = |mut v: Vec<ListEntry>| {
                v.sort_by(|a, b| a.source_entry_id.cmp(&b.source_entry_id)
                    .then(a.names[0].full.cmp(&b.names[0].full)));
                v
            };
            let unchanged: Vec<ListEntry> = old
                .iter()
                .filter(|e| d.change_of(&e.source_entry_id).is_none())
                .cloned()
                .collect();
            let mut rebuilt_new = unchanged.clone();
            rebuilt_new.extend(d.arrived.clone());
            prop_assert_eq!(sorted(rebuilt_new), sorted(new.clone()));
            let mut rebuilt_old = unchanged;
            rebuilt_old.extend(d.departed.clone());
            prop_assert_eq!(sorted(rebuilt_old), sorted(old));
            // No entry is both added and removed, and every change names an id of a version.
            for (id, change) in &d.changes {
                let in_old = d.departed.iter().any(|e| &e.source_entry_id == id);
                let in_new = d.arrived.iter().any(|e| &e.source_entry_id == id);
                match change {
                    EntryChange::Added => prop_assert!(!in_old && in_new),
                    EntryChange::Removed => prop_assert!(in_old && !in_new),
                    EntryChange::Changed => prop_assert!(in_old && in_new),
                }
            }
        }

        /// A name prepared once and screened against both records of a change finds in each
        /// what screening it afresh finds (the pre-screen's one preparation changes nothing),
        /// and the departed records of a change that removed nothing find nothing.
        #[test]
        fn a_name_prepared_once_screens_as_it_does_afresh(
            old in entries(), new in entries(), name in "[A-C]{1,3}( [A-C]{1,3}){0,2}",
        ) {
            use crate::screening::matcher::{self, Query};
            let weights = crate::screening::policy::PolicyConfig::default().weights;
            let query = Query { name, ..Query::default() };
            let prepared = matcher::prepare(&query);
            let d = ListDelta::between(Some((version(), old)), (version(), new));
            for index in [d.before_index(), d.after_index()] {
                let afresh = matcher::screen_within(&index, &weights, &query, 0.0, 25, |_| true);
                let once = matcher::screen_prepared(&index, &weights, &prepared, 0.0, 25, |_| true);
                prop_assert_eq!(afresh, once);
            }
            let first = ListDelta::between(None, (version(), vec![entry("1", "ABC")]));
            let nothing = first.before_index();
            prop_assert!(
                matcher::screen_prepared(&nothing, &weights, &prepared, 0.0, 25, |_| true)
                    .is_empty()
            );
        }
    }
}
