//! The repository stands alone: no tracked file names a path outside it (a machine's folders,
//! a sibling checkout). Provenance notes name sources by their public address instead.

use std::path::Path;
use std::process::Command;

/// Spellings of paths that exist only on some machine, never in a clone: a sibling checkout
/// of shared material, and home and work folders. Built from parts, so this file does not
/// spell them itself.
fn outside() -> Vec<String> {
    let mut patterns: Vec<String> = ["work", "root", "home"]
        .iter()
        .map(|folder| format!("/{folder}/"))
        .collect();
    patterns.push(format!("{}/{}/", "..", "shared"));
    patterns
}

#[test]
fn no_tracked_file_names_a_path_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files failed");
    let files: Vec<&[u8]> = listed
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .collect();
    assert!(files.len() > 100, "the listing is the repository's files");
    let mut found = Vec::new();
    for file in files {
        let name = String::from_utf8_lossy(file);
        let Ok(bytes) = std::fs::read(root.join(&*name)) else {
            continue; // deleted in the work tree
        };
        let text = String::from_utf8_lossy(&bytes);
        for pattern in &outside() {
            // A path starts a word: the same letters inside a web address name no folder.
            let starts_path = |at: usize| {
                pattern.starts_with('.')
                    || !text[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || "._-/".contains(c))
            };
            if let Some((at, _)) = text
                .match_indices(pattern.as_str())
                .find(|(at, _)| starts_path(*at))
            {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!("{name}:{line}: names `{pattern}`"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
