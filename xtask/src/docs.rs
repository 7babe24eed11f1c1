//! `cargo xtask docs`: the map cannot drift. Every path and code name `ARCHITECTURE.md`, the
//! README and the crates' READMEs write in backticks must exist in the repository:
//!
//! - a **path** (it holds a `/` or ends in a file extension) is a tracked file or folder,
//!   read from the repository's root, from the document's folder or its `src/`, from
//!   `crates/` (`adapters-postgres/paid.rs` is `crates/adapters-postgres/src/paid.rs`), or as
//!   the end of a tracked path (`page.rs`, `access/gate`, a module without its `.rs`);
//! - a **code name** (`AssistantService`, `spend_model_call()`, `domain::access::gate::Caller`,
//!   a name holding `::`, an inner capital or an underscore between words) is a word of some
//!   tracked source or test data file (its last segment, for a path of names).
//!
//! What is neither is prose in code font (a command, a JSON snippet, an address, a route):
//! not checked. So are tokens that name things outside the repository by their form: URLs
//! and URL schemes, media types, MCP method names, npm scopes, ellipses, build output
//! (`target/`), and the files the README tells a user to write (`.mcp.json`, ...).

use anyhow::{bail, Context, Result};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

/// Extensions of the files whose words a code name may be: sources, SQL, manifests,
/// scripts, templates and the recorded upstream answers tests read.
const WORD_SOURCES: &[&str] = &[
    ".rs", ".sql", ".toml", ".py", ".mjs", ".js", ".html", ".css", ".json", ".sh", ".xml", ".xsd",
    ".sse", ".txt", ".yml", ".yaml",
];

/// Files a document names that a user makes, never the repository: not paths to check.
const USER_FILES: &[&str] = &["mcp.json", ".mcp.json"];

pub fn main(root: &Path) -> Result<()> {
    let problems = check(root)?;
    for p in &problems {
        eprintln!("docs: {p}");
    }
    if !problems.is_empty() {
        bail!(
            "{} name(s) in the map or a README do not exist in the repository",
            problems.len()
        );
    }
    println!("docs: every path and code name in the map and the READMEs exists");
    Ok(())
}

/// The documents' names that do not exist, as `document: `name` (path|name)`.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let out = Command::new("git")
        .args(["ls-files"])
        .current_dir(root)
        .output()
        .context("git ls-files")?;
    let files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let tracked: HashSet<&str> = files.iter().map(String::as_str).collect();
    let mut folders: HashSet<String> = HashSet::new();
    for f in &files {
        let mut p = f.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            folders.insert(parent.to_owned());
            p = parent;
        }
    }
    let mut words: HashSet<String> = HashSet::new();
    for f in files
        .iter()
        .filter(|f| WORD_SOURCES.iter().any(|e| f.ends_with(e)))
    {
        if let Ok(text) = std::fs::read_to_string(root.join(f)) {
            words.extend(identifiers(&text).map(str::to_owned));
        }
    }
    let documents = files.iter().filter(|f| {
        f.as_str() == "ARCHITECTURE.md"
            || f.as_str() == "README.md"
            || (f.starts_with("crates/") && f.ends_with("/README.md"))
    });
    let mut problems = Vec::new();
    for doc in documents {
        let text = std::fs::read_to_string(root.join(doc)).with_context(|| doc.clone())?;
        let base = doc.rsplit_once('/').map_or("", |(b, _)| b);
        for token in backticked(&text) {
            match kind(token) {
                Kind::Path => {
                    let path = token.trim_end_matches('/');
                    let exists = |c: &str| tracked.contains(c) || folders.contains(c);
                    let mut candidates = vec![
                        path.to_owned(),
                        join(base, path),
                        join(&join(base, "src"), path),
                        join("crates", path),
                    ];
                    if let Some((krate, rest)) = path.split_once('/') {
                        candidates.push(format!("crates/{krate}/src/{rest}"));
                    }
                    let found = candidates
                        .iter()
                        .any(|c| exists(c) || exists(&format!("{c}.rs")))
                        || files.iter().any(|f| {
                            f.ends_with(&format!("/{path}")) || f.ends_with(&format!("/{path}.rs"))
                        })
                        || folders.iter().any(|d| d.ends_with(&format!("/{path}")));
                    if !found {
                        problems.push(format!("{doc}: `{token}` (no such path)"));
                    }
                }
                Kind::Name => {
                    let last = token
                        .trim_end_matches("()")
                        .rsplit("::")
                        .next()
                        .unwrap_or(token);
                    if !words.contains(last) {
                        problems.push(format!("{doc}: `{token}` (no such name)"));
                    }
                }
                Kind::Prose => {}
            }
        }
    }
    Ok(problems)
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_owned()
    } else {
        format!("{a}/{b}")
    }
}

/// The words a source file defines or uses.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// The single-line code spans of a Markdown text (fenced blocks left out).
fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            out.push(after[..end].trim());
            rest = &after[end + 1..];
        }
    }
    out
}

enum Kind {
    Path,
    Name,
    Prose,
}

fn kind(token: &str) -> Kind {
    let prose_chars = |c: char| c.is_whitespace() || "{}<>*$=|\"'[],;:@?#&%!…".contains(c);
    let is_name = |t: &str| {
        let t = t.trim_end_matches("()");
        !t.is_empty()
            && t.split("::").all(|seg| {
                seg.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    if is_name(token) {
        let t = token.trim_end_matches("()");
        let camel = t
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        let snake = t.contains('_') && t.chars().any(|c| c.is_ascii_lowercase());
        let screaming = t.contains('_') && !t.chars().any(|c| c.is_ascii_lowercase());
        return if t.contains("::") || camel || (snake && !screaming) {
            Kind::Name
        } else {
            Kind::Prose
        };
    }
    if token.contains("://")
        || token.starts_with(['/', '-', '.', '~'])
        || token.starts_with("target/")
        || token.chars().any(prose_chars)
        || USER_FILES.contains(&token)
    {
        return Kind::Prose;
    }
    let media = ["application/", "text/", "image/", "multipart/"];
    let mcp = [
        "tools/",
        "server/",
        "notifications/",
        "resources/",
        "prompts/",
        "io.modelcontextprotocol/",
    ];
    if media.iter().chain(&mcp).any(|p| token.starts_with(p)) {
        return Kind::Prose;
    }
    let extension = token.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && [
                "rs", "md", "toml", "sql", "html", "css", "js", "mjs", "py", "json", "sse", "sh",
            ]
            .contains(&ext)
    });
    if token.contains('/') || extension {
        Kind::Path
    } else {
        Kind::Prose
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_told_apart_by_their_form() {
        for (t, path, name) in [
            ("crates/domain/src/assistant/service.rs", true, false),
            ("access/gate", true, false),
            ("page.rs", true, false),
            ("AssistantService", false, true),
            ("spend_model_call()", false, true),
            ("domain::access::gate::Caller", false, true),
            ("IDREG_ASSISTANT_URL", false, false),
            ("GET /v1/assistant", false, false),
            ("text/event-stream", false, false),
            ("tools/call", false, false),
            ("https://example.com/x.json", false, false),
            ("member", false, false),
        ] {
            let k = kind(t);
            assert_eq!(matches!(k, Kind::Path), path, "{t}");
            assert_eq!(matches!(k, Kind::Name), name, "{t}");
        }
    }

    #[test]
    fn fenced_blocks_are_not_read() {
        let text = "a `one` b\n```sh\n`two`\n```\n`three` and `four`";
        assert_eq!(backticked(text), vec!["one", "three", "four"]);
    }
}
