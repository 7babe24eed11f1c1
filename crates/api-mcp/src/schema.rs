//! JSON Schemas of tool inputs and outputs, generated with schemars from Rust types.
//!
//! Every subschema is inlined (no `$ref`, no `$defs`) and `$schema` is left out (MCP's default
//! dialect is 2020-12): the schemas then validate alike in every client's validator (Python's
//! `jsonschema`, the TypeScript SDK's Ajv) without resolving references. Rust-only number
//! formats (`int32`, `uint64`, ...) are dropped for the same reason.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    })
}

/// The `inputSchema` of a tool whose arguments deserialize into `T`.
pub fn input<T: JsonSchema>() -> Map<String, Value> {
    let schema = settings()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut schema = tidy(schema.to_value());
    // The struct's doc comment speaks to Rust readers; the tool's description speaks to users.
    schema.remove("description");
    // The company a company tool is about is described by the installed schemes (every
    // country's rule); an optional `orgnr` (screening's ad-hoc input) keeps its own words.
    if let Some(Value::Object(orgnr)) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("orgnr"))
        .filter(|o| o["type"] == "string")
    {
        orgnr.insert(
            "description".into(),
            Value::String(api_core::schema::company_code_argument()),
        );
    }
    // A tool without arguments still names its (empty) properties: some clients read
    // `properties` unconditionally.
    schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    schema
}

/// The `outputSchema` of a tool whose REST body serializes from `T`: that body plus `summary`.
pub fn output<T: JsonSchema>() -> Map<String, Value> {
    let schema = settings()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut schema = tidy(schema.to_value());
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        properties.insert(
            "summary".into(),
            json!({"type": "string", "description": "One-line human summary (the text of content[0])."}),
        );
    }
    let required = schema
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(required) = required {
        required.push(Value::String("summary".into()));
    }
    schema
}

/// Adds `quota` to a metered tool's output schema: the caller's standing against the daily
/// limits the tool spends, as `GET /v1/usage` states each (present unless the counters could
/// not be read, so not required).
pub fn add_quota(schema: &mut Map<String, Value>) {
    let quota = settings()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Vec<api_core::dto::usage::QuotaDto>>();
    let mut quota = tidy(quota.to_value());
    quota.insert(
        "description".into(),
        json!("The caller's standing against the daily limits this tool spends, after it ran."),
    );
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert("quota".into(), Value::Object(quota));
    }
}

/// Drops the root `title` (a Rust type name) and non-standard number formats, and unwraps
/// the doc comments' line breaks.
fn tidy(value: Value) -> Map<String, Value> {
    let Value::Object(mut map) = clean(value) else {
        unreachable!("a struct's schema is an object")
    };
    map.remove("title");
    map
}

fn clean(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, v)| !(k == "format" && v.as_str().is_some_and(is_rust_number_format)))
                .map(|(k, v)| match (k.as_str(), v) {
                    ("description", Value::String(text)) => (k, Value::String(unwrap_lines(&text))),
                    (_, v) => (k, clean(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(clean).collect()),
        other => other,
    }
}

/// Joins the lines of each paragraph (doc comments wrap at 100 columns).
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| {
            paragraph
                .split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn is_rust_number_format(format: &str) -> bool {
    matches!(
        format,
        "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
            | "float"
            | "double"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema, serde::Serialize)]
    struct Inner {
        year: i32,
        note: Option<String>,
    }

    #[derive(JsonSchema, serde::Serialize)]
    struct Outer {
        /// A name that the doc comment
        /// wraps.
        name: String,
        inner: Inner,
        maybe: Option<Inner>,
    }

    #[test]
    fn an_input_without_fields_has_empty_properties() {
        #[derive(JsonSchema, serde::Deserialize)]
        struct Nothing {}
        let schema = input::<Nothing>();
        assert_eq!(
            Value::Object(schema),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn output_schemas_are_inlined_and_carry_summary() {
        let schema = output::<Outer>();
        let text = serde_json::to_string(&schema).unwrap();
        assert!(!text.contains("$ref") && !text.contains("$defs") && !text.contains("$schema"));
        assert!(!text.contains("int32"));
        assert_eq!(schema["type"], "object");
        assert!(schema.get("title").is_none());
        assert_eq!(schema["properties"]["summary"]["type"], "string");
        assert!(schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("summary")));
        assert_eq!(
            schema["properties"]["inner"]["properties"]["year"]["type"],
            "integer"
        );
        assert_eq!(
            schema["properties"]["name"]["description"],
            "A name that the doc comment wraps."
        );
    }
}
