//! `cargo xtask contract check|bless`: the interface snapshot under `contract/` and its gate.
//!
//! The snapshot is generated from the code, no server needed, by `idreg`'s example
//! `contract` (`crates/idreg/examples/contract.rs`, run through cargo, so this task runner
//! builds none of the service itself): `openapi.json` (utoipa, `info.version` = `VERSION`),
//! `mcp-tools.json`, `error-codes.json` and `event-types.json`.
//!
//! `VERSION` and `CHANGELOG.md` are written by hand.
//!
//! **check** regenerates everything and compares it with the committed files. It fails when
//! - a generated file differs from its committed copy ("snapshot out of date: run `cargo
//!   xtask contract bless`") — so no change, however classified, passes unblessed;
//! - the changes need a bigger version bump than `VERSION` has over the base version (the
//!   snapshot's `info.version`, or, when `CHANGELOG.md` marks that version unreleased, the
//!   newest released version before it): additions need a minor bump, removals and changes a
//!   major one, documentation a patch;
//! - `VERSION` is lower than the snapshot's version, or `CHANGELOG.md` has no entry for it.
//!
//! **bless** refuses on the same problems (so a snapshot never records a change under too
//! small a version) and otherwise rewrites the generated files.

pub mod classify;
pub mod version;

use anyhow::{bail, Context, Result};
use classify::{Change, Level};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use version::Version;

/// The generated files, in the order they are compared.
pub const FILES: [&str; 4] = [
    "openapi.json",
    "mcp-tools.json",
    "error-codes.json",
    "event-types.json",
];

/// The generated files' texts for `version`, from `idreg`'s example `contract`.
pub fn generate(version: &str) -> Result<Vec<(&'static str, String)>> {
    let output = std::process::Command::new(std::env::var_os("CARGO").unwrap_or("cargo".into()))
        .args([
            "run",
            "--quiet",
            "-p",
            "idreg",
            "--example",
            "contract",
            "--",
        ])
        .arg(version)
        .current_dir(crate::root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running cargo run -p idreg --example contract")?;
    if !output.status.success() {
        bail!("generating the contract failed ({})", output.status);
    }
    let files: serde_json::Map<String, Value> =
        serde_json::from_slice(&output.stdout).context("reading the contract example's output")?;
    FILES
        .into_iter()
        .map(|name| match files.get(name).and_then(Value::as_str) {
            Some(text) => Ok((name, text.to_owned())),
            None => bail!("the contract example did not generate {name}"),
        })
        .collect()
}

/// Everything `check` and `bless` decide on.
#[derive(Debug)]
pub struct Analysis {
    /// `VERSION`.
    pub version: Version,
    /// The committed snapshot's version (`openapi.json`'s `info.version`); none before the
    /// first bless.
    pub snapshot: Option<Version>,
    /// The version changes are measured from, and whether the snapshot's version is
    /// unreleased (so that the base is the release before it).
    pub base: Option<(Version, bool)>,
    /// Classified differences between the committed and the generated files.
    pub changes: Vec<Change>,
    /// Problems that block both check and bless.
    pub problems: Vec<String>,
    /// Generated files that differ from (or are missing in) the committed snapshot.
    pub out_of_date: Vec<&'static str>,
    generated: Vec<(&'static str, String)>,
}

impl Analysis {
    pub fn required(&self) -> Option<Level> {
        classify::required(&self.changes)
    }

    /// Check passes.
    pub fn is_current(&self) -> bool {
        self.problems.is_empty() && self.out_of_date.is_empty()
    }

    pub fn report(&self) -> String {
        let mut out = String::new();
        if !self.changes.is_empty() {
            let since = self
                .snapshot
                .map(|v| format!(" since the snapshot ({v})"))
                .unwrap_or_default();
            let _ = writeln!(out, "contract: {} change(s){since}:", self.changes.len());
            let mut changes = self.changes.clone();
            changes.sort_by(|a, b| b.level.cmp(&a.level).then(a.at.cmp(&b.at)));
            for change in &changes {
                let _ = writeln!(out, "  {change}");
            }
            if let (Some(level), Some((base, _))) = (self.required(), self.base) {
                let least = base.least_after(level);
                let verdict = if self.version >= least {
                    format!("VERSION {} covers it", self.version)
                } else {
                    format!("VERSION {} does not", self.version)
                };
                let _ = writeln!(
                    out,
                    "contract: these need a {level} version bump over {base} (at least {least}); {verdict}"
                );
            }
        }
        for problem in &self.problems {
            let _ = writeln!(out, "contract: {problem}");
        }
        if !self.out_of_date.is_empty() {
            let _ = writeln!(
                out,
                "contract: snapshot out of date ({}): run `cargo xtask contract bless`",
                self.out_of_date.join(", ")
            );
        }
        if self.is_current() {
            let _ = writeln!(out, "contract: ok, {} matches the code", self.version);
        }
        out
    }
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Compares the contract directory `dir` with what the code generates.
pub fn analyse(dir: &Path) -> Result<Analysis> {
    let version_text = read_optional(&dir.join("VERSION"))?
        .with_context(|| format!("{} is missing", dir.join("VERSION").display()))?;
    let Some(version) = Version::parse(&version_text) else {
        bail!("contract/VERSION must be MAJOR.MINOR.PATCH, not {version_text:?}");
    };
    let generated = generate(&version.to_string())?;

    let mut problems = Vec::new();
    let mut out_of_date = Vec::new();
    let mut committed: Vec<Option<Value>> = Vec::new();
    for (name, text) in &generated {
        let old = read_optional(&dir.join(name))?;
        if old.as_deref() != Some(text.as_str()) {
            out_of_date.push(*name);
        }
        committed.push(old.and_then(|t| serde_json::from_str(&t).ok()));
    }

    let snapshot = committed[0]
        .as_ref()
        .and_then(|doc| doc["info"]["version"].as_str())
        .and_then(Version::parse);

    let changelog = read_optional(&dir.join("CHANGELOG.md"))?.unwrap_or_default();
    let entries = version::changelog_entries(&changelog);
    let base = snapshot.map(|snapshot| version::base(snapshot, &entries));
    let unreleased = base.is_some_and(|(_, unreleased)| unreleased);

    let mut changes = Vec::new();
    if snapshot.is_some() {
        for ((name, text), old) in generated.iter().zip(&committed) {
            let new: Value = serde_json::from_str(text).expect("generated JSON parses");
            let Some(old) = old else {
                changes.push(Change {
                    level: Level::Minor,
                    at: (*name).to_owned(),
                    what: "contract file added".to_owned(),
                });
                continue;
            };
            changes.extend(match *name {
                "openapi.json" => classify::openapi(old, &new),
                "mcp-tools.json" => classify::mcp_tools(old, &new),
                "error-codes.json" => classify::error_codes(old, &new),
                "event-types.json" => classify::event_types(old, &new, unreleased),
                other => unreachable!("no classifier for {other}"),
            });
        }
    }

    // A major change the version's own history acknowledges (a place and a reason) counts
    // as minor, only while that version is unreleased.
    if entries.iter().any(|e| e.version == version && e.unreleased) {
        let acknowledged = version::acknowledgements(&changelog, version);
        for change in &mut changes {
            if change.level != Level::Major {
                continue;
            }
            let said = format!("{} {}", change.at, change.what);
            if let Some((_, reason)) = acknowledged
                .iter()
                .find(|(at, _)| said.contains(at.as_str()))
            {
                change.level = Level::Minor;
                change.what = format!("{} (acknowledged: {reason})", change.what);
            }
        }
    }

    if !entries.iter().any(|e| e.version == version) {
        problems.push(format!(
            "CHANGELOG.md has no entry for {version}: add a `## {version}` section naming the changes"
        ));
    }

    if let (Some(snapshot), Some((from, unreleased))) = (snapshot, base) {
        if version < snapshot {
            problems.push(format!(
                "VERSION {version} is lower than the snapshot's version {snapshot}"
            ));
        }
        if let Some(level) = classify::required(&changes) {
            let least = from.least_after(level);
            if version < least {
                let why = if unreleased {
                    format!(" ({from} is the last release; {snapshot} is marked unreleased)")
                } else {
                    String::new()
                };
                problems.push(format!(
                    "the changes need a {level} bump over {from}{why}: VERSION must be at least {least} and is {version}. \
                     Bump contract/VERSION, add a `## {least}` entry to contract/CHANGELOG.md, then run `cargo xtask contract bless`"
                ));
            }
        }
    }

    Ok(Analysis {
        version,
        snapshot,
        base,
        changes,
        problems,
        out_of_date,
        generated,
    })
}

/// `check`: the analysis; passes when [`Analysis::is_current`].
pub fn check(dir: &Path) -> Result<Analysis> {
    analyse(dir)
}

/// `bless`: rewrites the out-of-date generated files unless the analysis has problems.
pub fn bless(dir: &Path) -> Result<Analysis> {
    let mut analysis = analyse(dir)?;
    if !analysis.problems.is_empty() {
        return Ok(analysis);
    }
    for (name, text) in &analysis.generated {
        if analysis.out_of_date.contains(name) {
            std::fs::write(dir.join(name), text)
                .with_context(|| format!("writing {}", dir.join(name).display()))?;
        }
    }
    analysis.out_of_date.clear();
    Ok(analysis)
}

/// The repository's contract directory.
pub fn contract_dir() -> PathBuf {
    crate::root().join("contract")
}

pub fn main(args: &[String]) -> Result<()> {
    let dir = match args.get(1..) {
        Some([flag, path]) if flag == "--dir" => PathBuf::from(path),
        Some([]) | None => contract_dir(),
        Some(_) => usage(),
    };
    match args.first().map(String::as_str) {
        Some("check") => {
            let analysis = check(&dir)?;
            if analysis.is_current() {
                print!("{}", analysis.report());
                Ok(())
            } else {
                eprint!("{}", analysis.report());
                std::process::exit(1)
            }
        }
        Some("bless") => {
            let analysis = bless(&dir)?;
            if analysis.problems.is_empty() {
                print!("{}", analysis.report());
                println!(
                    "contract: blessed {} in {}",
                    analysis.version,
                    dir.display()
                );
                Ok(())
            } else {
                eprint!("{}", analysis.report());
                eprintln!("contract: not blessed");
                std::process::exit(1)
            }
        }
        _ => usage(),
    }
}

fn usage() -> ! {
    eprintln!("usage: cargo xtask contract check|bless [--dir <contract dir>]");
    std::process::exit(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The committed snapshot matches the code (what `cargo xtask contract check` runs), so a
    /// plain `cargo test` catches drift too.
    #[test]
    fn the_committed_contract_matches_the_code() {
        let analysis = check(&contract_dir()).unwrap();
        assert!(analysis.is_current(), "\n{}", analysis.report());
    }

    /// A scratch contract directory, removed on drop.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    impl Scratch {
        /// A freshly blessed contract at `version` with the change history `changelog`.
        fn blessed(version: &str, changelog: &str) -> Scratch {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "xtask-contract-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::SeqCst)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let scratch = Scratch(dir);
            scratch.write("VERSION", &format!("{version}\n"));
            scratch.write("CHANGELOG.md", changelog);
            let first = bless(&scratch.0).unwrap();
            assert!(first.problems.is_empty(), "{}", first.report());
            assert!(check(&scratch.0).unwrap().is_current());
            scratch
        }

        fn write(&self, name: &str, text: &str) {
            std::fs::write(self.0.join(name), text).unwrap();
        }

        fn read(&self, name: &str) -> String {
            std::fs::read_to_string(self.0.join(name)).unwrap()
        }

        /// Edits the committed `openapi.json`, as if the code had changed the other way.
        fn edit_snapshot(&self, edit: impl FnOnce(&mut Value)) {
            let mut doc: Value = serde_json::from_str(&self.read("openapi.json")).unwrap();
            edit(&mut doc);
            let mut text = serde_json::to_string_pretty(&doc).unwrap();
            text.push('\n');
            self.write("openapi.json", &text);
        }
    }

    const RELEASED: &str = "# Changes\n\n## 1.6.0\n- released\n\n## 1.5.0\n- older\n";

    /// The code has a response field the snapshot lacks: an addition.
    fn code_added_a_field(doc: &mut Value) {
        let schema = &mut doc["components"]["schemas"]["ResolveResponse"];
        schema["properties"]
            .as_object_mut()
            .unwrap()
            .remove("identifier_ref");
        let required = schema["required"].as_array_mut().unwrap();
        required.retain(|r| r != "identifier_ref");
    }

    /// The snapshot has a response field the code lacks: a removal.
    fn code_removed_a_field(doc: &mut Value) {
        doc["components"]["schemas"]["ResolveResponse"]["properties"]["legacy_id"] =
            serde_json::json!({"type": "string"});
    }

    #[test]
    fn an_addition_needs_a_minor_bump_a_changelog_entry_and_a_bless() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        s.edit_snapshot(code_added_a_field);

        let a = check(&s.0).unwrap();
        assert_eq!(a.required(), Some(Level::Minor), "{}", a.report());
        assert!(a.problems[0].contains("at least 1.7.0"), "{}", a.report());
        assert!(a.out_of_date.contains(&"openapi.json"));
        assert!(a.report().contains("property `identifier_ref` added"));

        s.write("VERSION", "1.7.0\n");
        let a = check(&s.0).unwrap();
        assert_eq!(a.problems.len(), 1, "{}", a.report());
        assert!(a.problems[0].contains("no entry for 1.7.0"));

        s.write(
            "CHANGELOG.md",
            &format!("## 1.7.0\n- identifier_ref\n{RELEASED}"),
        );
        let a = check(&s.0).unwrap();
        assert!(a.problems.is_empty(), "{}", a.report());
        assert!(!a.is_current(), "a sufficient bump still needs a bless");
        assert!(a.report().contains("snapshot out of date"));

        let blessed = bless(&s.0).unwrap();
        assert!(blessed.problems.is_empty());
        let a = check(&s.0).unwrap();
        assert!(a.is_current(), "{}", a.report());
        assert!(s.read("openapi.json").contains("\"version\": \"1.7.0\""));
    }

    #[test]
    fn a_removal_needs_a_major_bump_and_bless_refuses_less() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        s.edit_snapshot(code_removed_a_field);
        s.write("VERSION", "1.7.0\n");
        s.write("CHANGELOG.md", &format!("## 1.7.0\n{RELEASED}"));
        let before = s.read("openapi.json");

        let a = bless(&s.0).unwrap();
        assert_eq!(a.required(), Some(Level::Major));
        assert!(a.problems[0].contains("at least 2.0.0"), "{}", a.report());
        assert_eq!(
            s.read("openapi.json"),
            before,
            "bless refused and wrote nothing"
        );

        s.write("VERSION", "2.0.0\n");
        s.write("CHANGELOG.md", &format!("## 2.0.0\n{RELEASED}"));
        assert!(bless(&s.0).unwrap().problems.is_empty());
        assert!(check(&s.0).unwrap().is_current());
    }

    #[test]
    fn an_unreleased_version_may_acknowledge_a_major_change_with_its_place_and_reason() {
        let s = Scratch::blessed("1.6.0", "## 1.6.0 (unreleased)\n## 1.5.0\n");
        s.edit_snapshot(code_removed_a_field);
        let a = check(&s.0).unwrap();
        assert_eq!(a.required(), Some(Level::Major), "{}", a.report());

        // Acknowledged elsewhere, or without a reason: still major.
        for line in [
            "- Acknowledged as minor: `ResolveResponse.other`: a reason",
            "- Acknowledged as minor: `legacy_id`",
        ] {
            s.write(
                "CHANGELOG.md",
                &format!("## 1.6.0 (unreleased)\n{line}\n## 1.5.0\n"),
            );
            assert_eq!(
                check(&s.0).unwrap().required(),
                Some(Level::Major),
                "{line}"
            );
        }

        s.write(
            "CHANGELOG.md",
            "## 1.6.0 (unreleased)\n- Acknowledged as minor: `legacy_id`: never served\n## 1.5.0\n",
        );
        let a = check(&s.0).unwrap();
        assert!(a.problems.is_empty(), "{}", a.report());
        assert_eq!(a.required(), Some(Level::Minor));
        assert!(
            a.report().contains("acknowledged: never served"),
            "{}",
            a.report()
        );

        // Only an unreleased version can acknowledge: once released, the same line is moot.
        s.write(
            "CHANGELOG.md",
            "## 1.6.0\n- Acknowledged as minor: `legacy_id`: never served\n## 1.5.0\n",
        );
        assert_eq!(check(&s.0).unwrap().required(), Some(Level::Major));
    }

    #[test]
    fn an_unreleased_version_absorbs_changes_up_to_its_bump_from_the_last_release() {
        let unreleased = "## 1.6.0 (unreleased)\n## 1.5.0\n";
        let s = Scratch::blessed("1.6.0", unreleased);
        s.edit_snapshot(code_added_a_field);
        let a = check(&s.0).unwrap();
        assert!(a.problems.is_empty(), "{}", a.report());
        assert_eq!(a.base, Some((Version::parse("1.5.0").unwrap(), true)));
        assert!(!a.is_current());
        assert!(bless(&s.0).unwrap().problems.is_empty());
        assert!(check(&s.0).unwrap().is_current());

        // A removal is still major, measured from the last release.
        s.edit_snapshot(code_removed_a_field);
        let a = check(&s.0).unwrap();
        assert!(a.problems[0].contains("at least 2.0.0"), "{}", a.report());
    }

    #[test]
    fn documentation_needs_a_patch_bump_once_released() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        s.edit_snapshot(|d| d["info"]["description"] = serde_json::json!("old words"));
        let a = check(&s.0).unwrap();
        assert_eq!(a.required(), Some(Level::Patch));
        assert!(a.problems[0].contains("at least 1.6.1"), "{}", a.report());
    }

    #[test]
    fn the_version_cannot_go_backwards_and_needs_a_changelog_entry() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        s.write("VERSION", "1.5.0\n");
        let a = check(&s.0).unwrap();
        assert!(
            a.problems
                .iter()
                .any(|p| p.contains("lower than the snapshot")),
            "{}",
            a.report()
        );
        s.write("VERSION", "1.6.0\n");
        s.write("CHANGELOG.md", "## 1.5.0\n");
        let a = check(&s.0).unwrap();
        assert!(a.problems[0].contains("no entry for 1.6.0"));
    }

    #[test]
    fn a_bump_without_changes_is_allowed_but_must_be_blessed() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        s.write("VERSION", "1.6.1\n");
        s.write(
            "CHANGELOG.md",
            &format!("## 1.6.1\n- behaviour fix\n{RELEASED}"),
        );
        let a = check(&s.0).unwrap();
        assert!(
            a.changes.is_empty() && a.problems.is_empty(),
            "{}",
            a.report()
        );
        assert_eq!(a.out_of_date, vec!["openapi.json"]);
        bless(&s.0).unwrap();
        assert!(check(&s.0).unwrap().is_current());
    }

    #[test]
    fn a_missing_snapshot_is_out_of_date() {
        let s = Scratch::blessed("1.6.0", RELEASED);
        std::fs::remove_file(s.0.join("event-types.json")).unwrap();
        let a = check(&s.0).unwrap();
        assert_eq!(a.out_of_date, vec!["event-types.json"]);
        assert_eq!(a.required(), Some(Level::Minor));
    }
}
