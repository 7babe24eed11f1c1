//! The OpenAPI document's own structure: paths, operations, parameters, bodies, responses,
//! headers, components and security. Schemas inside them go through `Diff::schema`.

use super::{effective_security, is_true, keys, parameters, resolve, Diff, Dir, Level, METHODS};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

impl Diff<'_> {
    pub(super) fn openapi(&mut self) {
        let (old, new) = (self.old_root, self.new_root);
        let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
            return self.generic("openapi document", old, new);
        };
        for key in keys(o, n) {
            let (a, b) = (
                o.get(key).unwrap_or(&Value::Null),
                n.get(key).unwrap_or(&Value::Null),
            );
            if a == b {
                continue;
            }
            match key {
                "info" => {
                    let mut a = a.clone();
                    let mut b = b.clone();
                    for v in [&mut a, &mut b] {
                        if let Some(m) = v.as_object_mut() {
                            m.remove("version");
                        }
                    }
                    if a != b {
                        self.push(Level::Patch, "info", "documentation changed");
                    }
                }
                "tags" | "servers" | "externalDocs" => {
                    self.push(Level::Patch, key, "documentation changed")
                }
                "paths" => self.paths(a, b),
                "components" => self.components(a, b),
                "security" => {} // compared per operation, as each operation's effective security
                "x-formats" => self.formats(a, b),
                _ => self.generic_key("document", key, o.get(key), n.get(key)),
            }
        }
    }

    /// The named formats the document describes (`x-formats`: name to text). A format added
    /// is minor, one removed major, a description changed a patch.
    fn formats(&mut self, old: &Value, new: &Value) {
        let empty = serde_json::Map::new();
        let (o, n) = (
            old.as_object().unwrap_or(&empty),
            new.as_object().unwrap_or(&empty),
        );
        for name in keys(o, n) {
            let at = format!("document.x-formats.{name}");
            match (o.get(name), n.get(name)) {
                (Some(_), None) => self.push(Level::Major, &at, "format removed"),
                (None, Some(_)) => self.push(Level::Minor, &at, "added"),
                (Some(a), Some(b)) if a != b => self.push(Level::Patch, &at, "description changed"),
                _ => {}
            }
        }
    }

    fn paths(&mut self, old: &Value, new: &Value) {
        let empty = serde_json::Map::new();
        let (o, n) = (
            old.as_object().unwrap_or(&empty),
            new.as_object().unwrap_or(&empty),
        );
        for path in keys(o, n) {
            match (o.get(path), n.get(path)) {
                (Some(_), None) => self.push(Level::Major, path, "path removed"),
                (None, Some(_)) => self.push(Level::Minor, path, "path added"),
                (Some(a), Some(b)) if a != b => self.path_item(path, a, b),
                _ => {}
            }
        }
    }

    fn path_item(&mut self, path: &str, old: &Value, new: &Value) {
        let (_, old) = resolve(self.old_root, old);
        let (_, new) = resolve(self.new_root, new);
        for method in METHODS {
            let at = format!("{} {path}", method.to_ascii_uppercase());
            match (old.get(method), new.get(method)) {
                (Some(_), None) => self.push(Level::Major, &at, "operation removed"),
                (None, Some(_)) => self.push(Level::Minor, &at, "operation added"),
                (Some(a), Some(b)) => {
                    let pa = parameters(self.old_root, old, a);
                    let pb = parameters(self.new_root, new, b);
                    self.operation(&at, a, b, &pa, &pb)
                }
                (None, None) => {}
            }
        }
        for key in ["summary", "description"] {
            if old.get(key) != new.get(key) {
                self.push(Level::Patch, path, "documentation changed");
            }
        }
        let rest = |v: &Value| {
            let mut v = v.clone();
            if let Some(m) = v.as_object_mut() {
                m.retain(|k, _| {
                    !METHODS.contains(&k.as_str())
                        && !["summary", "description", "parameters", "servers"]
                            .contains(&k.as_str())
                });
            }
            v
        };
        self.generic(path, &rest(old), &rest(new));
    }

    fn operation(
        &mut self,
        at: &str,
        old: &Value,
        new: &Value,
        old_params: &BTreeMap<(String, String), Value>,
        new_params: &BTreeMap<(String, String), Value>,
    ) {
        let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
            return self.generic(at, old, new);
        };
        for key in keys(o, n) {
            let (a, b) = (o.get(key), n.get(key));
            if a == b {
                continue;
            }
            match key {
                "summary" | "description" | "tags" | "externalDocs" => {
                    self.push(Level::Patch, at, format!("`{key}` changed"))
                }
                "operationId" => self.push(Level::Major, at, "operationId changed"),
                "deprecated" => self.push(Level::Minor, at, "deprecation changed"),
                "parameters" | "security" => {} // below, in their effective form
                "requestBody" => self.request_body(at, a, b),
                "responses" => {
                    self.responses(at, a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null))
                }
                _ => self.generic_key(at, key, a, b),
            }
        }
        self.parameters(at, old_params, new_params);
        let old_security = effective_security(self.old_root, old);
        let new_security = effective_security(self.new_root, new);
        for gone in old_security.difference(&new_security) {
            self.push(
                Level::Major,
                at,
                format!("security {gone} no longer accepted"),
            );
        }
        for added in new_security.difference(&old_security) {
            self.push(Level::Minor, at, format!("security {added} now accepted"));
        }
    }

    fn parameters(
        &mut self,
        at: &str,
        old: &BTreeMap<(String, String), Value>,
        new: &BTreeMap<(String, String), Value>,
    ) {
        let all: BTreeSet<_> = old.keys().chain(new.keys()).cloned().collect();
        for key in all {
            let here = format!("{at} {} parameter `{}`", key.0, key.1);
            match (old.get(&key), new.get(&key)) {
                (Some(_), None) => self.push(Level::Major, &here, "removed"),
                (None, Some(p)) => {
                    if is_true(p.get("required")) {
                        self.push(Level::Major, &here, "required parameter added")
                    } else {
                        self.push(Level::Minor, &here, "optional parameter added")
                    }
                }
                (Some(a), Some(b)) if a != b => {
                    match (is_true(a.get("required")), is_true(b.get("required"))) {
                        (false, true) => self.push(Level::Major, &here, "became required"),
                        (true, false) => self.push(Level::Minor, &here, "became optional"),
                        _ => {}
                    }
                    let null = Value::Null;
                    if a.get("schema") != b.get("schema") {
                        self.schema(
                            &here,
                            a.get("schema").unwrap_or(&null),
                            b.get("schema").unwrap_or(&null),
                            Dir::Request,
                        );
                    }
                    let strip = |v: &Value| {
                        let mut v = v.clone();
                        if let Some(m) = v.as_object_mut() {
                            m.retain(|k, _| {
                                !["required", "schema", "name", "in"].contains(&k.as_str())
                            });
                        }
                        v
                    };
                    self.generic(&here, &strip(a), &strip(b));
                }
                _ => {}
            }
        }
    }

    fn request_body(&mut self, at: &str, a: Option<&Value>, b: Option<&Value>) {
        let here = format!("{at} request body");
        match (a, b) {
            (Some(_), None) => self.push(Level::Major, &here, "removed"),
            (None, Some(b)) => {
                let (_, b) = resolve(self.new_root, b);
                if is_true(b.get("required")) {
                    self.push(Level::Major, &here, "required request body added")
                } else {
                    self.push(Level::Minor, &here, "optional request body added")
                }
            }
            (Some(a), Some(b)) => {
                let (_, a) = resolve(self.old_root, a);
                let (_, b) = resolve(self.new_root, b);
                match (is_true(a.get("required")), is_true(b.get("required"))) {
                    (false, true) => self.push(Level::Major, &here, "became required"),
                    (true, false) => self.push(Level::Minor, &here, "became optional"),
                    _ => {}
                }
                if a.get("description") != b.get("description") {
                    self.push(Level::Patch, &here, "documentation changed");
                }
                self.content(&here, a.get("content"), b.get("content"), Dir::Request);
            }
            (None, None) => {}
        }
    }

    fn content(&mut self, at: &str, a: Option<&Value>, b: Option<&Value>, dir: Dir) {
        let empty = serde_json::Map::new();
        let o = a.and_then(Value::as_object).unwrap_or(&empty);
        let n = b.and_then(Value::as_object).unwrap_or(&empty);
        for media in keys(o, n) {
            let here = format!("{at} ({media})");
            match (o.get(media), n.get(media)) {
                (Some(_), None) => self.push(
                    dir.narrowed(),
                    &here,
                    "media type no longer served or accepted",
                ),
                // A response media type beside `application/json` is served only to a client
                // whose `Accept` names it (this service's negotiation rule: no wildcard earns
                // it), so a client written before it never receives it.
                (None, Some(_))
                    if dir == Dir::Response
                        && media != "application/json"
                        && o.contains_key("application/json")
                        && n.contains_key("application/json") =>
                {
                    self.push(
                        Level::Minor,
                        &here,
                        "media type added, served only to clients that ask for it",
                    )
                }
                (None, Some(_)) => self.push(dir.widened(false), &here, "media type added"),
                (Some(x), Some(y)) if x != y => {
                    let null = Value::Null;
                    self.schema(
                        &here,
                        x.get("schema").unwrap_or(&null),
                        y.get("schema").unwrap_or(&null),
                        dir,
                    );
                    let strip = |v: &Value| {
                        let mut v = v.clone();
                        if let Some(m) = v.as_object_mut() {
                            m.remove("schema");
                        }
                        v
                    };
                    self.generic(&here, &strip(x), &strip(y));
                }
                _ => {}
            }
        }
    }

    fn responses(&mut self, at: &str, old: &Value, new: &Value) {
        let empty = serde_json::Map::new();
        let (o, n) = (
            old.as_object().unwrap_or(&empty),
            new.as_object().unwrap_or(&empty),
        );
        for status in keys(o, n) {
            let here = format!("{at} response {status}");
            let is_error = status.starts_with('4') || status.starts_with('5');
            match (o.get(status), n.get(status)) {
                (Some(_), None) => self.push(Level::Minor, &here, "no longer answered"),
                (None, Some(_)) if is_error => {
                    self.push(Level::Minor, &here, "error response added")
                }
                (None, Some(_)) => self.push(Level::Major, &here, "success response added"),
                (Some(a), Some(b)) if a != b => {
                    let (_, a) = resolve(self.old_root, a);
                    let (_, b) = resolve(self.new_root, b);
                    if a.get("description") != b.get("description") {
                        self.push(Level::Patch, &here, "documentation changed");
                    }
                    self.content(&here, a.get("content"), b.get("content"), Dir::Response);
                    self.headers(&here, a.get("headers"), b.get("headers"));
                    let strip = |v: &Value| {
                        let mut v = v.clone();
                        if let Some(m) = v.as_object_mut() {
                            m.retain(|k, _| {
                                !["description", "content", "headers"].contains(&k.as_str())
                            });
                        }
                        v
                    };
                    self.generic(&here, &strip(a), &strip(b));
                }
                _ => {}
            }
        }
    }

    fn headers(&mut self, at: &str, a: Option<&Value>, b: Option<&Value>) {
        let empty = serde_json::Map::new();
        let o = a.and_then(Value::as_object).unwrap_or(&empty);
        let n = b.and_then(Value::as_object).unwrap_or(&empty);
        for name in keys(o, n) {
            let here = format!("{at} header `{name}`");
            match (o.get(name), n.get(name)) {
                (Some(_), None) => self.push(Level::Major, &here, "removed"),
                (None, Some(_)) => self.push(Level::Minor, &here, "added"),
                (Some(x), Some(y)) if x != y => {
                    let (_, x) = resolve(self.old_root, x);
                    let (_, y) = resolve(self.new_root, y);
                    let null = Value::Null;
                    self.schema(
                        &here,
                        x.get("schema").unwrap_or(&null),
                        y.get("schema").unwrap_or(&null),
                        Dir::Response,
                    );
                    if x.get("description") != y.get("description") {
                        self.push(Level::Patch, &here, "documentation changed");
                    }
                }
                _ => {}
            }
        }
    }

    fn components(&mut self, old: &Value, new: &Value) {
        let empty = serde_json::Map::new();
        let (o, n) = (
            old.as_object().unwrap_or(&empty),
            new.as_object().unwrap_or(&empty),
        );
        for kind in keys(o, n) {
            let a = o.get(kind).and_then(Value::as_object).unwrap_or(&empty);
            let b = n.get(kind).and_then(Value::as_object).unwrap_or(&empty);
            if kind == "securitySchemes" {
                self.security_schemes(a, b);
                continue;
            }
            // Contents are compared where they are used; here only their names. A schema
            // removed while an added one is the very same schema (every reference inlined, so
            // the names it uses do not count) is a rename: the wire does not change, only the
            // name a generator gives the type.
            let renames = if kind == "schemas" {
                renamed_schemas(self.old_root, self.new_root, a, b)
            } else {
                BTreeMap::new()
            };
            for name in keys(a, b) {
                let here = format!("components.{kind}.{name}");
                match (a.get(name), b.get(name)) {
                    (Some(_), None) => match renames.get(name) {
                        Some(to) => self.push(
                            Level::Minor,
                            &here,
                            format!(
                                "renamed to `{to}` (the same schema: the wire does not change)"
                            ),
                        ),
                        None => self.push(Level::Major, &here, "removed (or renamed)"),
                    },
                    (None, Some(_)) if renames.values().any(|to| to == name) => {}
                    (None, Some(_)) => self.push(Level::Minor, &here, "added"),
                    _ => {}
                }
            }
        }
    }

    fn security_schemes(
        &mut self,
        o: &serde_json::Map<String, Value>,
        n: &serde_json::Map<String, Value>,
    ) {
        for name in keys(o, n) {
            let here = format!("security scheme `{name}`");
            let (a, b) = match (o.get(name), n.get(name)) {
                (Some(_), None) => {
                    self.push(Level::Major, &here, "removed");
                    continue;
                }
                (None, Some(_)) => {
                    self.push(Level::Minor, &here, "added");
                    continue;
                }
                (Some(a), Some(b)) if a != b => (a, b),
                _ => continue,
            };
            let flows_a = a.get("flows").and_then(Value::as_object);
            let flows_b = b.get("flows").and_then(Value::as_object);
            if let (Some(fa), Some(fb)) = (flows_a, flows_b) {
                for flow in keys(fa, fb) {
                    let here = format!("{here} flow `{flow}`");
                    let (x, y) = match (fa.get(flow), fb.get(flow)) {
                        (Some(_), None) => {
                            self.push(Level::Major, &here, "removed");
                            continue;
                        }
                        (None, Some(_)) => {
                            self.push(Level::Minor, &here, "added");
                            continue;
                        }
                        (Some(x), Some(y)) => (x, y),
                        (None, None) => continue,
                    };
                    let sa = x
                        .get("scopes")
                        .and_then(Value::as_object)
                        .unwrap_or(&serde_json::Map::new())
                        .clone();
                    let sb = y
                        .get("scopes")
                        .and_then(Value::as_object)
                        .unwrap_or(&serde_json::Map::new())
                        .clone();
                    for scope in keys(&sa, &sb) {
                        match (sa.get(scope), sb.get(scope)) {
                            (Some(_), None) => {
                                self.push(Level::Major, &here, format!("scope `{scope}` removed"))
                            }
                            (None, Some(_)) => {
                                self.push(Level::Minor, &here, format!("scope `{scope}` added"))
                            }
                            (Some(p), Some(q)) if p != q => self.push(
                                Level::Patch,
                                &here,
                                format!("scope `{scope}` description changed"),
                            ),
                            _ => {}
                        }
                    }
                    let strip = |v: &Value| {
                        let mut v = v.clone();
                        if let Some(m) = v.as_object_mut() {
                            m.remove("scopes");
                        }
                        v
                    };
                    self.generic(&here, &strip(x), &strip(y));
                }
            } else if a.get("flows") != b.get("flows") {
                self.generic_key(&here, "flows", a.get("flows"), b.get("flows"));
            }
            let strip = |v: &Value| {
                let mut v = v.clone();
                if let Some(m) = v.as_object_mut() {
                    m.remove("flows");
                }
                v
            };
            self.generic(&here, &strip(a), &strip(b));
        }
    }
}

/// Schemas removed from `old` whose very schema was added to `new` under another name, each
/// matched once: `{old name: new name}`.
fn renamed_schemas(
    old_root: &Value,
    new_root: &Value,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
) -> BTreeMap<String, String> {
    let mut renames = BTreeMap::new();
    let added: Vec<(&String, Value)> = new
        .iter()
        .filter(|(name, _)| !old.contains_key(*name))
        .map(|(name, schema)| (name, inlined(new_root, schema, 0)))
        .collect();
    let mut taken = BTreeSet::new();
    for (name, schema) in old.iter().filter(|(name, _)| !new.contains_key(*name)) {
        let shape = inlined(old_root, schema, 0);
        if let Some((to, _)) = added
            .iter()
            .find(|(to, s)| !taken.contains(*to) && *s == shape)
        {
            taken.insert((*to).clone());
            renames.insert(name.clone(), (*to).clone());
        }
    }
    renames
}

/// `schema` with every reference replaced by what it names (followed by [`resolve`], to a
/// bounded depth), so two documents' schemas compare by shape, not by names.
fn inlined(root: &Value, schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) => {
            if map.contains_key("$ref") && depth < 16 {
                let (_, target) = resolve(root, schema);
                if !std::ptr::eq(target, schema) {
                    return inlined(root, target, depth + 1);
                }
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), inlined(root, v, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| inlined(root, v, depth)).collect())
        }
        other => other.clone(),
    }
}
