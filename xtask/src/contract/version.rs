//! Interface versions (`MAJOR.MINOR.PATCH`) and the change history's entries.

use super::classify::Level;
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    pub const ZERO: Version = Version {
        major: 0,
        minor: 0,
        patch: 0,
    };

    /// `MAJOR.MINOR.PATCH`, digits only.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split('.');
        let mut next = || -> Option<u64> {
            let part = parts.next()?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok()
        };
        let version = Version {
            major: next()?,
            minor: next()?,
            patch: next()?,
        };
        parts.next().is_none().then_some(version)
    }

    /// The least version that carries a change of `level` made after `self`.
    pub fn least_after(self, level: Level) -> Version {
        match level {
            Level::Major => Version {
                major: self.major + 1,
                minor: 0,
                patch: 0,
            },
            Level::Minor => Version {
                minor: self.minor + 1,
                patch: 0,
                ..self
            },
            Level::Patch => Version {
                patch: self.patch + 1,
                ..self
            },
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A version heading of `CHANGELOG.md`: `## 1.7.0`, `## [1.7.0] - 2027-01-10`, or
/// `## 1.7.0 (unreleased)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub version: Version,
    /// Not yet handed to any integrator: later changes may still be folded into it.
    pub unreleased: bool,
}

/// The acknowledgements in `version`'s section of the change history: lines
/// `- Acknowledged as minor: `<where>`: <reason>`. Each names a place (a fragment of a
/// change's location) whose changes the history explains as additive, with the reason: for
/// example a field that may now be `null` only in objects no earlier version could return.
pub fn acknowledgements(text: &str, version: Version) -> Vec<(String, String)> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            let first = rest.split_whitespace().next().unwrap_or("");
            inside = Version::parse(first.trim_matches(['[', ']'])) == Some(version);
            continue;
        }
        if !inside {
            continue;
        }
        let Some(rest) = line.trim().strip_prefix("- Acknowledged as minor: `") else {
            continue;
        };
        let Some((place, reason)) = rest.split_once('`') else {
            continue;
        };
        let reason = reason.trim_start_matches(':').trim();
        if !place.is_empty() && !reason.is_empty() {
            out.push((place.to_owned(), reason.to_owned()));
        }
    }
    out
}

pub fn changelog_entries(text: &str) -> Vec<Entry> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("## ")?;
            let first = rest.split_whitespace().next()?;
            let version = Version::parse(first.trim_matches(['[', ']']))?;
            Some(Entry {
                version,
                unreleased: rest.to_ascii_lowercase().contains("unreleased"),
            })
        })
        .collect()
}

/// The version a change is measured from: the snapshot's own version, or, when the change
/// history marks that version unreleased, the newest released version before it (0.0.0 if
/// none). Gives the base and whether the snapshot's version was unreleased.
pub fn base(snapshot: Version, entries: &[Entry]) -> (Version, bool) {
    let unreleased = entries
        .iter()
        .any(|e| e.version == snapshot && e.unreleased);
    if !unreleased {
        return (snapshot, false);
    }
    let released = entries
        .iter()
        .filter(|e| !e.unreleased && e.version < snapshot)
        .map(|e| e.version)
        .max()
        .unwrap_or(Version::ZERO);
    (released, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn parses_only_three_numbers() {
        assert_eq!(
            v("1.6.0"),
            Version {
                major: 1,
                minor: 6,
                patch: 0
            }
        );
        assert_eq!(v(" 1.6.0\n"), v("1.6.0"));
        for bad in ["1.6", "1.6.0.1", "v1.6.0", "1.6.x", "", "1..0", "1.6.0-rc1"] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
        assert!(v("1.10.0") > v("1.9.3"));
    }

    #[test]
    fn least_versions_after_a_change() {
        assert_eq!(v("1.6.3").least_after(Level::Major), v("2.0.0"));
        assert_eq!(v("1.6.3").least_after(Level::Minor), v("1.7.0"));
        assert_eq!(v("1.6.3").least_after(Level::Patch), v("1.6.4"));
    }

    #[test]
    fn changelog_headings() {
        let text = "# Changes\n\n## 1.7.0 (unreleased)\n- x\n## [1.6.0] - 2026-11-01\n### Added\n## 1.5.0\nnot ## 9.9.9\n";
        let entries = changelog_entries(text);
        assert_eq!(
            entries,
            vec![
                Entry {
                    version: v("1.7.0"),
                    unreleased: true
                },
                Entry {
                    version: v("1.6.0"),
                    unreleased: false
                },
                Entry {
                    version: v("1.5.0"),
                    unreleased: false
                },
            ]
        );
        assert_eq!(base(v("1.7.0"), &entries), (v("1.6.0"), true));
        assert_eq!(base(v("1.6.0"), &entries), (v("1.6.0"), false));
        let only_unreleased = changelog_entries("## 1.0.0 (unreleased)\n");
        assert_eq!(base(v("1.0.0"), &only_unreleased), (Version::ZERO, true));
    }
}
