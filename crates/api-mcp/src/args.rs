//! Tool arguments: checked against the tool's own `inputSchema` (the one `tools/list`
//! shows), field by field, before they are deserialized. Complaints are the API's
//! `bad_request` naming the field, worded like the REST bodies' (`` `orgnr`: is required ``),
//! and never quote the value sent (serde's own messages would).

use domain::Failure;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Checks `arguments` against `schema` (the subset of JSON Schema our input types generate:
/// `properties`, `required`, `type`, `items`), then deserializes them. Absent or null
/// arguments count as `{}`; properties the schema does not name are ignored, as REST bodies
/// ignore unknown fields.
pub fn parse<T: DeserializeOwned>(
    schema: &Map<String, Value>,
    arguments: Value,
) -> Result<T, Failure> {
    let mut arguments = match arguments {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => return Err(Failure::bad_request("arguments", "must be an object")),
    };
    digits_as_text(schema, &mut arguments);
    check_object(schema, &arguments, "")?;
    // Nulls stand for absent optional fields (serde's `Option` reads both as `None`).
    serde_json::from_value(Value::Object(arguments))
        .map_err(|_| Failure::bad_request("arguments", "do not match the tool's input schema"))
}

/// The string arguments that carry an identifier written in digits (an organisation number,
/// a personal number): a whole number given for one of them is read as its digits.
pub const DIGIT_IDENTIFIERS: [&str; 2] = ["orgnr", "identifier"];

/// A non-negative JSON integer given for a digit-string identifier becomes its decimal digits.
/// Some clients send a number typed on a command line as a JSON number (the MCP Inspector
/// CLI's `--tool-arg orgnr=5560021361` does), and for such an identifier the conversion loses
/// nothing. What it cannot restore fails validation as it is: a number that lost a leading
/// zero is too short for its scheme, and a fraction, an exponent, a negative or an integer
/// beyond 64 bits is still not a string. Other string arguments (opaque ids) take strings only.
fn digits_as_text(schema: &Map<String, Value>, arguments: &mut Map<String, Value>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, value) in arguments.iter_mut() {
        // `"string"`, or `["string", "null"]` for an optional argument.
        let is_string = properties
            .get(name)
            .and_then(|p| p.get("type"))
            .is_some_and(|t| match t {
                Value::String(t) => t == "string",
                Value::Array(ts) => ts.iter().any(|t| t == "string"),
                _ => false,
            });
        let digits = DIGIT_IDENTIFIERS.contains(&name.as_str());
        if let (true, true, Some(n)) = (is_string, digits, value.as_u64()) {
            *value = Value::String(n.to_string());
        }
    }
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    prefix: &str,
) -> Result<(), Failure> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required fields first, in schema order, so the first complaint is stable.
    for name in &required {
        if matches!(object.get(*name), None | Some(Value::Null)) {
            return Err(Failure::bad_request(
                &format!("{prefix}{name}"),
                "is required",
            ));
        }
    }
    for (name, property) in properties {
        let Some(value) = object.get(name) else {
            continue;
        };
        if value.is_null() {
            continue;
        }
        if let Some(property) = property.as_object() {
            check_value(property, value, &format!("{prefix}{name}"))?;
        }
    }
    Ok(())
}

fn check_value(schema: &Map<String, Value>, value: &Value, field: &str) -> Result<(), Failure> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
        let wanted = types
            .iter()
            .find(|t| **t != "null")
            .copied()
            .unwrap_or("null");
        return Err(Failure::bad_request(
            field,
            &format!("must be {}", article(wanted)),
        ));
    }
    if let Value::String(text) = value {
        domain::text::checked(field, text)?;
    }
    if let Some(enumeration) = schema.get("enum").and_then(Value::as_array) {
        if !enumeration.contains(value) {
            let names: Vec<&str> = enumeration.iter().filter_map(Value::as_str).collect();
            return Err(Failure::bad_request(
                field,
                &format!("must be one of {}", names.join(", ")),
            ));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema
            .get("minimum")
            .and_then(Value::as_f64)
            .filter(|min| n < *min)
        {
            return Err(Failure::bad_request(
                field,
                &format!("must be at least {min}"),
            ));
        }
        if let Some(max) = schema
            .get("maximum")
            .and_then(Value::as_f64)
            .filter(|max| n > *max)
        {
            return Err(Failure::bad_request(
                field,
                &format!("must be at most {max}"),
            ));
        }
    }
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").and_then(Value::as_object) {
                for (i, item) in items.iter().enumerate() {
                    check_value(item_schema, item, &format!("{field}[{i}]"))?;
                }
            }
        }
        Value::Object(object) => check_object(schema, object, &format!("{field}."))?,
        _ => {}
    }
    Ok(())
}

fn is_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "integer" => api_core::json_body::is_integer(value),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn article(ty: &str) -> String {
    match ty {
        "array" => "a list".to_owned(),
        "integer" | "object" => format!("an {ty}"),
        other => format!("a {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Sample {
        orgnr: String,
        limit: Option<u32>,
        nationalities: Option<Vec<String>>,
    }

    fn run(arguments: Value) -> Result<Sample, Failure> {
        crate::install_schemes();
        parse(&crate::schema::input::<Sample>(), arguments)
    }

    #[test]
    fn missing_wrong_type_and_nested_fields_are_named_without_the_value() {
        let missing = run(json!({})).unwrap_err();
        assert_eq!(missing.code, domain::ErrorCode::BadRequest);
        assert_eq!(missing.message, "`orgnr`: is required");
        assert_eq!(
            run(json!({"orgnr": null})).unwrap_err().message,
            "`orgnr`: is required"
        );
        assert_eq!(
            run(Value::Null).unwrap_err().message,
            "`orgnr`: is required"
        );
        let wrong = run(json!({"orgnr": -198111309285i64})).unwrap_err();
        assert_eq!(wrong.message, "`orgnr`: must be a string");
        assert!(!wrong.message.contains("1981"));
        for not_digits in [json!(5560021361.5), json!(5.560021361e9), json!(true)] {
            assert_eq!(
                run(json!({"orgnr": not_digits})).unwrap_err().message,
                "`orgnr`: must be a string"
            );
        }
        assert_eq!(
            run(json!({"orgnr": "x", "limit": "ten"}))
                .unwrap_err()
                .message,
            "`limit`: must be an integer"
        );
        assert_eq!(
            run(json!({"orgnr": "x", "limit": -1})).unwrap_err().message,
            "`limit`: must be at least 0"
        );
        assert_eq!(
            run(json!({"orgnr": "x", "nationalities": ["SE", 4]}))
                .unwrap_err()
                .message,
            "`nationalities[1]`: must be a string"
        );
        assert_eq!(
            run(json!("orgnr")).unwrap_err().message,
            "`arguments`: must be an object"
        );
    }

    #[test]
    fn a_whole_number_for_a_string_argument_is_read_as_its_digits() {
        let ok = run(json!({"orgnr": 5560021361u64})).unwrap();
        assert_eq!(ok.orgnr, "5560021361");
        // A leading zero the number lost stays lost (`0501011234` sent as a number arrives
        // as 501011234): the value is shorter, and the use case judges it as it is.
        let short = run(json!({"orgnr": 501011234u64})).unwrap();
        assert_eq!(short.orgnr, "501011234");
        // Numbers stay numbers where the schema asks for one.
        let limited = run(json!({"orgnr": 7, "limit": 10})).unwrap();
        assert_eq!((limited.orgnr.as_str(), limited.limit), ("7", Some(10)));
        // An optional identifier argument too.
        #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
        struct Optional {
            #[serde(default)]
            orgnr: Option<String>,
        }
        let optional = parse::<Optional>(
            &crate::schema::input::<Optional>(),
            json!({"orgnr": 5560360793u64}),
        );
        assert_eq!(optional.unwrap().orgnr.as_deref(), Some("5560360793"));
        // An opaque id is no digit string: a number there is still not a string.
        #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
        struct Opaque {
            #[allow(dead_code)]
            id: String,
        }
        let opaque = parse::<Opaque>(&crate::schema::input::<Opaque>(), json!({"id": 42}));
        assert_eq!(opaque.unwrap_err().message, "`id`: must be a string");
    }

    #[test]
    fn valid_arguments_deserialize_and_unknown_ones_are_ignored() {
        let ok = run(json!({"orgnr": "5560021361", "limit": null, "extra": true})).unwrap();
        assert_eq!(
            ok,
            Sample {
                orgnr: "5560021361".into(),
                limit: None,
                nationalities: None
            }
        );
    }
}
