//! Classifies the differences between two versions of a contract file into the version bump
//! each needs.
//!
//! The rule behind every case: a change is **major** when a client written against the old
//! document can break — it may no longer send what it sent (a request narrowed), it may now
//! receive what it was not told about (a response widened), or something it relies on is gone
//! (a path, operation, tool, error code, event type, scope, component). It is **minor** when
//! old clients can ignore it (a request widened, a response narrowed, something added). It is
//! a **patch** when only documentation moved (descriptions, summaries, titles, examples, tags).
//! Whatever no rule knows is major.
//!
//! Enums in responses are closed unless marked `x-open-enum: true`: a new value of a closed
//! enum is major, of an open one (countries, identifier types, evidence sources, error codes)
//! minor. A new 4xx/5xx response is minor (every error is `{error, message}` and clients act on
//! the code); a new 2xx/3xx response is major.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;

mod openapi;

/// The version bump a change needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Patch,
    Minor,
    Major,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Patch => "patch",
            Level::Minor => "minor",
            Level::Major => "major",
        })
    }
}

/// One classified difference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub level: Level,
    /// Where: a route and method, a schema, a tool, a code.
    pub at: String,
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<5}  {}: {}", self.level, self.at, self.what)
    }
}

/// The bump a list of changes needs (`None` when there are none).
pub fn required(changes: &[Change]) -> Option<Level> {
    changes.iter().map(|c| c.level).max()
}

/// Which way a schema's data flows: what a client sends, or what it receives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Dir {
    Request,
    Response,
}

impl Dir {
    /// The level of a change that widens the set of valid values.
    fn widened(self, open: bool) -> Level {
        match self {
            Dir::Request => Level::Minor,
            Dir::Response if open => Level::Minor,
            Dir::Response => Level::Major,
        }
    }
    /// The level of a change that narrows the set of valid values.
    fn narrowed(self) -> Level {
        match self {
            Dir::Request => Level::Major,
            Dir::Response => Level::Minor,
        }
    }
}

/// Keys that only document.
const DOC_KEYS: [&str; 7] = [
    "description",
    "summary",
    "title",
    "example",
    "examples",
    "externalDocs",
    "$comment",
];

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Collects changes between an old and a new document, resolving local `$ref`s against each
/// side's root.
struct Diff<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    changes: Vec<Change>,
    seen: HashSet<(String, String, Dir)>,
}

impl<'a> Diff<'a> {
    fn new(old_root: &'a Value, new_root: &'a Value) -> Self {
        Diff {
            old_root,
            new_root,
            changes: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn push(&mut self, level: Level, at: &str, what: impl Into<String>) {
        self.changes.push(Change {
            level,
            at: at.to_owned(),
            what: what.into(),
        });
    }

    /// Any value by the generic rule: a key added is minor, removed or changed is major,
    /// documentation is a patch.
    fn generic(&mut self, at: &str, old: &Value, new: &Value) {
        match (old, new) {
            (Value::Object(o), Value::Object(n)) => {
                for key in keys(o, n) {
                    let here = format!("{at}.{key}");
                    match (o.get(key), n.get(key)) {
                        (Some(a), Some(b)) if a == b => {}
                        _ if DOC_KEYS.contains(&key) => {
                            self.push(Level::Patch, &here, "documentation changed")
                        }
                        (Some(_), None) => self.push(Level::Major, &here, "removed"),
                        (None, Some(_)) => self.push(Level::Minor, &here, "added"),
                        (Some(a), Some(b)) => self.generic(&here, a, b),
                        (None, None) => {}
                    }
                }
            }
            _ if old == new => {}
            _ => self.push(
                Level::Major,
                at,
                format!("changed from {} to {}", short(old), short(new)),
            ),
        }
    }

    /// One key of an object by the generic rule.
    fn generic_key(&mut self, at: &str, key: &str, a: Option<&Value>, b: Option<&Value>) {
        let wrap = |v: Option<&Value>| {
            let mut m = serde_json::Map::new();
            if let Some(v) = v {
                m.insert(key.to_owned(), v.clone());
            }
            Value::Object(m)
        };
        self.generic(at, &wrap(a), &wrap(b));
    }

    // -- Schemas ------------------------------------------------------------------------------

    fn schema(&mut self, at: &str, old: &Value, new: &Value, dir: Dir) {
        let (old_ref, o) = resolve(self.old_root, old);
        let (new_ref, n) = resolve(self.new_root, new);
        let mut at = at.to_owned();
        if old_ref.is_some() || new_ref.is_some() {
            let key = (
                old_ref.clone().unwrap_or_else(|| at.clone()),
                new_ref.clone().unwrap_or_else(|| at.clone()),
                dir,
            );
            if !self.seen.insert(key) {
                return;
            }
            if let (Some(a), Some(b)) = (&old_ref, &new_ref) {
                if a == b {
                    at = a.trim_start_matches("#/").replace('/', ".");
                }
            }
        }
        let (Value::Object(om), Value::Object(nm)) = (o, n) else {
            if o != n {
                self.push(
                    Level::Major,
                    &at,
                    format!("schema changed from {} to {}", short(o), short(n)),
                );
            }
            return;
        };
        let open = is_open(o) || is_open(n);
        for key in keys(om, nm) {
            let (a, b) = (om.get(key), nm.get(key));
            if a == b {
                continue;
            }
            match key {
                "type" => self.types(&at, a, b, dir),
                "enum" => self.enum_values(&at, a, b, dir, open),
                "properties" => self.properties(&at, o, n, dir),
                "required" => self.required_fields(&at, o, n, dir),
                "additionalProperties" => {
                    let a = a.cloned().unwrap_or(Value::Bool(true));
                    let b = b.cloned().unwrap_or(Value::Bool(true));
                    match (&a, &b) {
                        (Value::Object(_), Value::Object(_)) => {
                            self.schema(&format!("{at}.additionalProperties"), &a, &b, dir)
                        }
                        (_, Value::Bool(false)) => self.push(
                            dir.narrowed(),
                            &at,
                            "additional properties no longer allowed",
                        ),
                        (Value::Bool(false), _) => {
                            self.push(dir.widened(false), &at, "additional properties now allowed")
                        }
                        _ => self.push(Level::Major, &at, "`additionalProperties` changed"),
                    }
                }
                "items" | "not" | "contains" | "propertyNames" => match (a, b) {
                    (Some(a), Some(b)) => self.schema(&format!("{at}.{key}"), a, b, dir),
                    _ => self.constraint(&at, key, a, b, dir),
                },
                "oneOf" | "anyOf" => self.alternatives(&at, key, a, b, dir),
                "allOf" => self.all_of(&at, key, (o, a), (n, b), dir),
                "prefixItems" => self.all_of(&at, key, (o, a), (n, b), dir),
                "pattern" => self.pattern(&at, a, b, dir),
                "if" | "then" | "else" => match (a, b) {
                    (Some(a), Some(b)) => self.schema(&format!("{at}.{key}"), a, b, dir),
                    _ => self.constraint(&at, key, a, b, dir),
                },
                "deprecated" => self.push(Level::Minor, &at, "deprecation changed"),
                "x-open-enum" => self.push(Level::Major, &at, "enum openness changed"),
                "$defs" | "definitions" => {} // compared where they are used
                _ if DOC_KEYS.contains(&key) => {
                    self.push(Level::Patch, &at, format!("`{key}` changed"))
                }
                _ => self.constraint(&at, key, a, b, dir),
            }
        }
    }

    /// A validation keyword: adding one narrows, removing one widens, changing one is major.
    fn constraint(&mut self, at: &str, key: &str, a: Option<&Value>, b: Option<&Value>, dir: Dir) {
        match (a, b) {
            (None, Some(b)) => self.push(dir.narrowed(), at, format!("`{key}` {} added", short(b))),
            (Some(a), None) => self.push(
                dir.widened(false),
                at,
                format!("`{key}` {} removed", short(a)),
            ),
            (Some(a), Some(b)) => self.push(
                Level::Major,
                at,
                format!("`{key}` changed from {} to {}", short(a), short(b)),
            ),
            (None, None) => {}
        }
    }

    fn types(&mut self, at: &str, a: Option<&Value>, b: Option<&Value>, dir: Dir) {
        let (Some(a), Some(b)) = (a, b) else {
            return self.constraint(at, "type", a, b, dir);
        };
        let (old, new) = (string_set(a), string_set(b));
        let added: Vec<_> = new.difference(&old).cloned().collect();
        let removed: Vec<_> = old.difference(&new).cloned().collect();
        if !added.is_empty() {
            self.push(
                dir.widened(false),
                at,
                format!("type now also {}", added.join(", ")),
            );
        }
        if !removed.is_empty() {
            self.push(
                dir.narrowed(),
                at,
                format!("type no longer {}", removed.join(", ")),
            );
        }
    }

    fn enum_values(
        &mut self,
        at: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        dir: Dir,
        open: bool,
    ) {
        let (Some(Value::Array(a)), Some(Value::Array(b))) = (a, b) else {
            return self.constraint(at, "enum", a, b, dir);
        };
        let old: BTreeSet<String> = a.iter().map(short).collect();
        let new: BTreeSet<String> = b.iter().map(short).collect();
        let added: Vec<_> = new.difference(&old).cloned().collect();
        let removed: Vec<_> = old.difference(&new).cloned().collect();
        if !added.is_empty() {
            let kind = if open { "open enum" } else { "enum" };
            self.push(
                dir.widened(open),
                at,
                format!("{kind} value(s) added: {}", added.join(", ")),
            );
        }
        if !removed.is_empty() {
            self.push(
                dir.narrowed(),
                at,
                format!("enum value(s) removed: {}", removed.join(", ")),
            );
        }
    }

    fn properties(&mut self, at: &str, o: &Value, n: &Value, dir: Dir) {
        let empty = serde_json::Map::new();
        let op = o
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let np = n
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let new_required = string_set(n.get("required").unwrap_or(&Value::Null));
        for name in keys(op, np) {
            match (op.get(name), np.get(name)) {
                (Some(_), None) => {
                    self.push(Level::Major, at, format!("property `{name}` removed"))
                }
                (None, Some(_)) => {
                    let level = match dir {
                        Dir::Request if new_required.contains(name) => Level::Major,
                        _ => Level::Minor,
                    };
                    let how = if new_required.contains(name) {
                        "required"
                    } else {
                        "optional"
                    };
                    self.push(level, at, format!("{how} property `{name}` added"))
                }
                (Some(a), Some(b)) => self.schema(&format!("{at}.{name}"), a, b, dir),
                (None, None) => {}
            }
        }
    }

    fn required_fields(&mut self, at: &str, o: &Value, n: &Value, dir: Dir) {
        let has = |v: &Value, name: &str| v.get("properties").and_then(|p| p.get(name)).is_some();
        let old = string_set(o.get("required").unwrap_or(&Value::Null));
        let new = string_set(n.get("required").unwrap_or(&Value::Null));
        for name in new.difference(&old) {
            if has(o, name) {
                self.push(dir.narrowed(), at, format!("`{name}` became required"));
            }
        }
        for name in old.difference(&new) {
            if has(n, name) {
                self.push(dir.widened(false), at, format!("`{name}` became optional"));
            }
        }
    }

    fn alternatives(
        &mut self,
        at: &str,
        key: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        dir: Dir,
    ) {
        let (Some(Value::Array(a)), Some(Value::Array(b))) = (a, b) else {
            return self.constraint(at, key, a, b, dir);
        };
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.schema(&format!("{at}.{key}[{i}]"), x, y, dir);
        }
        if b.len() > a.len() {
            self.push(
                dir.widened(false),
                at,
                format!("`{key}` alternative(s) added"),
            );
        }
        if b.len() < a.len() {
            self.push(
                dir.narrowed(),
                at,
                format!("`{key}` alternative(s) removed"),
            );
        }
    }

    /// A pattern whose top-level alternatives grew widens; one whose alternatives shrank
    /// narrows; any other change is major (two regular expressions are not compared).
    fn pattern(&mut self, at: &str, a: Option<&Value>, b: Option<&Value>, dir: Dir) {
        let (Some(Value::String(x)), Some(Value::String(y))) = (a, b) else {
            return self.constraint(at, "pattern", a, b, dir);
        };
        let (old, new) = (pattern_alternatives(x), pattern_alternatives(y));
        if old.is_subset(&new) {
            let added: Vec<&str> = new.difference(&old).map(String::as_str).collect();
            self.push(
                dir.widened(false),
                at,
                format!("`pattern` alternative(s) added: {}", added.join(", ")),
            );
        } else if new.is_subset(&old) {
            self.push(dir.narrowed(), at, "`pattern` alternative(s) removed");
        } else {
            self.constraint(at, "pattern", a, b, dir);
        }
    }

    /// `allOf` (or `prefixItems`) member by member. Members added at the end are a change of
    /// composition (major), except a conditional keyed on a value its schema did not accept
    /// before (`if: {properties: {p: {const: v}}}` where `p`'s enum gained `v`): it bounds
    /// only what is new, so it adds what the new value brings.
    fn all_of(
        &mut self,
        at: &str,
        key: &str,
        (o, a): (&Value, Option<&Value>),
        (n, b): (&Value, Option<&Value>),
        dir: Dir,
    ) {
        let (Some(Value::Array(a)), Some(Value::Array(b))) = (a, b) else {
            return self.push(Level::Major, at, format!("`{key}` composition changed"));
        };
        if b.len() < a.len() {
            return self.push(Level::Major, at, format!("`{key}` composition changed"));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.schema(&format!("{at}.{key}[{i}]"), x, y, dir);
        }
        for (i, added) in b.iter().enumerate().skip(a.len()) {
            match new_value_branch(key, o, n, added) {
                Some((property, value)) => self.push(
                    dir.widened(true),
                    at,
                    format!("`{key}[{i}]`: a branch for `{property}` = {value}, a value added"),
                ),
                None => self.push(Level::Major, at, format!("`{key}` composition changed")),
            }
        }
    }
}

/// The top-level alternatives of a pattern, each anchored alone: `^$|^(?:a|b)$` gives
/// `^$`, `^a$`, `^b$`. A pattern that is not a list of anchored alternatives is itself.
fn pattern_alternatives(pattern: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for branch in split_top(pattern) {
        let inner = branch
            .strip_prefix("^(?:")
            .and_then(|r| r.strip_suffix(")$"))
            .filter(|inner| balanced(inner));
        match inner {
            Some(inner) => out.extend(split_top(inner).into_iter().map(|alt| format!("^{alt}$"))),
            None => {
                out.insert(branch);
            }
        }
    }
    out
}

/// Whether every group opened in `s` closes in it (escapes and classes respected).
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    let mut class = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0 && !class
}

/// `s` split at each `|` outside groups and classes.
fn split_top(s: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let (mut depth, mut class) = (0i32, false);
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        let last = parts.last_mut().expect("one part at least");
        match c {
            '\\' => {
                last.push(c);
                if let Some(next) = chars.next() {
                    last.push(next);
                }
                continue;
            }
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth -= 1,
            '|' if !class && depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        last.push(c);
    }
    parts
}

/// The property and value a conditional member is keyed on, when that value is one the
/// property's enum gained (it was not accepted before).
fn new_value_branch(key: &str, o: &Value, n: &Value, member: &Value) -> Option<(String, String)> {
    if key != "allOf" {
        return None;
    }
    let properties = member.get("if")?.get("properties")?.as_object()?;
    let (property, condition) = properties.iter().next().filter(|_| properties.len() == 1)?;
    let value = condition.get("const")?;
    let accepts = |schema: &Value| {
        schema
            .get("properties")
            .and_then(|p| p.get(property))
            .and_then(|p| p.get("enum"))
            .and_then(Value::as_array)
            .map(|values| values.contains(value))
    };
    (accepts(o) == Some(false) && accepts(n) == Some(true))
        .then(|| (property.clone(), short(value)))
}

// -- Entry points per contract file --------------------------------------------------------------

/// `openapi.json`. Paths are compared with every local `$ref` in them replaced by its target,
/// so a change inside a shared component shows at each use (with its direction); components
/// themselves are compared by name (and security schemes in full).
pub fn openapi(old: &Value, new: &Value) -> Vec<Change> {
    let (old, new) = (inline_paths(old), inline_paths(new));
    let mut diff = Diff::new(&old, &new);
    diff.openapi();
    diff.changes
}

fn inline_paths(doc: &Value) -> Value {
    let mut out = doc.clone();
    for key in ["paths", "webhooks"] {
        if let Some(section) = doc.get(key) {
            out[key] = inline_refs(doc, section, &mut Vec::new());
        }
    }
    out
}

/// `value` with each local `$ref` replaced by its target (sibling keys kept beside it); a
/// reference to a target it is already inside of stays a reference.
fn inline_refs(root: &Value, value: &Value, inside: &mut Vec<String>) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                let target = reference
                    .strip_prefix('#')
                    .and_then(|pointer| root.pointer(pointer));
                if let Some(target) = target {
                    if !inside.iter().any(|r| r == reference) {
                        inside.push(reference.to_owned());
                        let mut resolved = inline_refs(root, target, inside);
                        inside.pop();
                        if let Value::Object(resolved_map) = &mut resolved {
                            for (k, v) in map.iter().filter(|(k, _)| k.as_str() != "$ref") {
                                resolved_map.insert(k.clone(), inline_refs(root, v, inside));
                            }
                        }
                        return resolved;
                    }
                }
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), inline_refs(root, v, inside)))
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| inline_refs(root, v, inside)).collect())
        }
        other => other.clone(),
    }
}

/// `mcp-tools.json`: the `tools/list` array, keyed by tool name.
pub fn mcp_tools(old: &Value, new: &Value) -> Vec<Change> {
    let mut changes = Vec::new();
    let (Some(o), Some(n)) = (by_key(old, "name"), by_key(new, "name")) else {
        let mut diff = Diff::new(old, new);
        diff.generic("tools", old, new);
        return diff.changes;
    };
    let all: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for name in all {
        let at = format!("tool `{name}`");
        let (a, b) = match (o.get(name), n.get(name)) {
            (Some(_), None) => {
                changes.push(change(Level::Major, &at, "tool removed"));
                continue;
            }
            (None, Some(_)) => {
                changes.push(change(Level::Minor, &at, "tool added"));
                continue;
            }
            (Some(a), Some(b)) if a != b => (*a, *b),
            _ => continue,
        };
        let null = Value::Null;
        for key in keys(a.as_object().unwrap(), b.as_object().unwrap()) {
            let (x, y) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
            if x == y {
                continue;
            }
            match key {
                "description" | "title" => {
                    changes.push(change(Level::Patch, &at, format!("`{key}` changed")))
                }
                "inputSchema" => {
                    let (x, y) = (
                        &inline_refs(x, x, &mut Vec::new()),
                        &inline_refs(y, y, &mut Vec::new()),
                    );
                    let mut diff = Diff::new(x, y);
                    diff.schema(&format!("{at} input"), x, y, Dir::Request);
                    changes.extend(diff.changes);
                }
                "outputSchema" if x.is_null() => {
                    changes.push(change(Level::Minor, &at, "output schema added"))
                }
                "outputSchema" if y.is_null() => {
                    changes.push(change(Level::Major, &at, "output schema removed"))
                }
                "outputSchema" => {
                    let (x, y) = (
                        &inline_refs(x, x, &mut Vec::new()),
                        &inline_refs(y, y, &mut Vec::new()),
                    );
                    let mut diff = Diff::new(x, y);
                    diff.schema(&format!("{at} output"), x, y, Dir::Response);
                    changes.extend(diff.changes);
                }
                "annotations" => {
                    let empty = serde_json::Map::new();
                    let (p, q) = (
                        x.as_object().unwrap_or(&empty),
                        y.as_object().unwrap_or(&empty),
                    );
                    for hint in keys(p, q) {
                        match (p.get(hint), q.get(hint)) {
                            (u, v) if u == v => {}
                            _ if hint == "title" => {
                                changes.push(change(Level::Patch, &at, "annotation title changed"))
                            }
                            (None, Some(_)) => changes.push(change(
                                Level::Minor,
                                &at,
                                format!("annotation `{hint}` added"),
                            )),
                            _ => changes.push(change(
                                Level::Major,
                                &at,
                                format!("annotation `{hint}` changed or removed"),
                            )),
                        }
                    }
                }
                _ => {
                    let mut diff = Diff::new(a, b);
                    diff.generic_key(&at, key, a.get(key), b.get(key));
                    changes.extend(diff.changes);
                }
            }
        }
    }
    changes
}

/// `error-codes.json`, keyed by code.
pub fn error_codes(old: &Value, new: &Value) -> Vec<Change> {
    keyed_table(
        old,
        new,
        "code",
        "error code",
        |at, key, x, y, out| match key {
            "status" => out.push(change(
                Level::Major,
                at,
                format!("status changed from {} to {}", short(x), short(y)),
            )),
            "condition" => out.push(change(Level::Patch, at, "condition text changed")),
            _ => out.push(change(Level::Major, at, format!("`{key}` changed"))),
        },
    )
}

/// `event-types.json`, keyed by type. `unreleased`: the committed snapshot's version is not
/// released yet, so `emitted` still tracks how far its build has come (a type the snapshot
/// called emitted that the build does not emit was never emitted by any released version):
/// either way a minor change. Once released, a type that stops being emitted is major.
pub fn event_types(old: &Value, new: &Value, unreleased: bool) -> Vec<Change> {
    keyed_table(
        old,
        new,
        "type",
        "event type",
        |at, key, x, y, out| match key {
            "emitted" if y == &Value::Bool(true) => {
                out.push(change(Level::Minor, at, "now emitted"))
            }
            "emitted" if unreleased => out.push(change(
                Level::Minor,
                at,
                "not emitted by this build of an unreleased version",
            )),
            "emitted" => out.push(change(
                Level::Major,
                at,
                format!("`emitted` changed from {} to {}", short(x), short(y)),
            )),
            "emitted_by" | "notes" => {
                out.push(change(Level::Patch, at, format!("`{key}` changed")))
            }
            _ => out.push(change(Level::Major, at, format!("`{key}` changed"))),
        },
    )
}

/// A table of objects keyed by `key`: a row removed is major, added minor; `field` classifies
/// changed fields.
fn keyed_table(
    old: &Value,
    new: &Value,
    key: &str,
    noun: &str,
    field: impl Fn(&str, &str, &Value, &Value, &mut Vec<Change>),
) -> Vec<Change> {
    let (Some(o), Some(n)) = (by_key(old, key), by_key(new, key)) else {
        let mut diff = Diff::new(old, new);
        diff.generic(noun, old, new);
        return diff.changes;
    };
    let mut out = Vec::new();
    let all: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for name in all {
        let at = format!("{noun} `{name}`");
        match (o.get(name), n.get(name)) {
            (Some(_), None) => out.push(change(Level::Major, &at, format!("{noun} removed"))),
            (None, Some(_)) => out.push(change(Level::Minor, &at, format!("{noun} added"))),
            (Some(a), Some(b)) if a != b => {
                let null = Value::Null;
                let (Some(p), Some(q)) = (a.as_object(), b.as_object()) else {
                    out.push(change(Level::Major, &at, "changed"));
                    continue;
                };
                for k in keys(p, q) {
                    let (x, y) = (p.get(k).unwrap_or(&null), q.get(k).unwrap_or(&null));
                    if x != y {
                        field(&at, k, x, y, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

// -- Helpers -------------------------------------------------------------------------------------

fn change(level: Level, at: &str, what: impl Into<String>) -> Change {
    Change {
        level,
        at: at.to_owned(),
        what: what.into(),
    }
}

/// The union of two objects' keys, sorted.
fn keys<'m>(
    a: &'m serde_json::Map<String, Value>,
    b: &'m serde_json::Map<String, Value>,
) -> BTreeSet<&'m str> {
    a.keys().chain(b.keys()).map(String::as_str).collect()
}

/// Follows local `$ref`s (`#/...`) against `root`; gives the last reference followed.
fn resolve<'v>(root: &'v Value, value: &'v Value) -> (Option<String>, &'v Value) {
    let mut current = value;
    let mut last = None;
    for _ in 0..32 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            break;
        };
        let Some(target) = root.pointer(pointer) else {
            break;
        };
        last = Some(reference.to_owned());
        current = target;
    }
    (last, current)
}

/// An array of objects as a map by one string field (`None` when it is not such an array).
fn by_key<'v>(value: &'v Value, key: &str) -> Option<BTreeMap<String, &'v Value>> {
    value
        .as_array()?
        .iter()
        .map(|item| Some((item.get(key)?.as_str()?.to_owned(), item)))
        .collect()
}

/// A parameter list (path item's, overridden by the operation's), keyed by (in, name).
fn parameters(root: &Value, item: &Value, operation: &Value) -> BTreeMap<(String, String), Value> {
    let mut out = BTreeMap::new();
    for list in [item.get("parameters"), operation.get("parameters")]
        .into_iter()
        .flatten()
    {
        for p in list.as_array().into_iter().flatten() {
            let (_, p) = resolve(root, p);
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let place = p.get("in").and_then(Value::as_str).unwrap_or("").to_owned();
            out.insert((place, name), p.clone());
        }
    }
    out
}

/// The security alternatives of an operation (its own, else the document's), each rendered as
/// `scheme[scope scope]` joined by `+`; `anonymous` for an empty requirement.
fn effective_security(root: &Value, operation: &Value) -> BTreeSet<String> {
    let list = operation.get("security").or_else(|| root.get("security"));
    let Some(list) = list.and_then(Value::as_array) else {
        return BTreeSet::from(["anonymous".to_owned()]);
    };
    list.iter()
        .map(|requirement| {
            let Some(map) = requirement.as_object().filter(|m| !m.is_empty()) else {
                return "anonymous".to_owned();
            };
            let mut parts: Vec<String> = map
                .iter()
                .map(|(scheme, scopes)| {
                    let mut scopes: Vec<String> = scopes
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect();
                    scopes.sort();
                    format!("{scheme}[{}]", scopes.join(" "))
                })
                .collect();
            parts.sort();
            parts.join("+")
        })
        .collect()
}

fn is_true(v: Option<&Value>) -> bool {
    v == Some(&Value::Bool(true))
}

fn is_open(schema: &Value) -> bool {
    is_true(schema.get("x-open-enum"))
}

/// A string or an array of strings as a set.
fn string_set(v: &Value) -> BTreeSet<String> {
    match v {
        Value::String(s) => BTreeSet::from([s.clone()]),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// A value for a message: compact JSON, cut at 80 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests;
