//! A JSON request body read field by field, shared by the surfaces that take one (REST's
//! writes, the portal's JSON sign-in), and the rule by which every surface reads a JSON
//! integer (MCP's argument check too).

use domain::{ErrorCode, Failure};
use serde_json::{Map, Value};

/// A JSON request body read field by field, so that every complaint names the field and
/// none repeats a value (serde's own messages quote the offending value).
pub struct JsonBody(Map<String, Value>);

impl JsonBody {
    pub fn parse(bytes: &[u8]) -> Result<JsonBody, Failure> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(Failure::bad_request("body", "a JSON object is required"));
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(map)) => Ok(JsonBody(map)),
            Ok(_) => Err(Failure::bad_request("body", "must be a JSON object")),
            Err(e) => Err(Failure::new(
                ErrorCode::BadRequest,
                format!(
                    "`body`: not valid JSON (line {}, column {})",
                    e.line(),
                    e.column()
                ),
            )),
        }
    }

    /// A required string field.
    pub fn required_str(&self, field: &str) -> Result<String, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Err(Failure::bad_request(field, "is required")),
            Some(Value::String(s)) => Ok(domain::text::checked(field, s)?.to_owned()),
            Some(_) => Err(Failure::bad_request(field, "must be a string")),
        }
    }

    /// An optional string field (absent or null gives `None`).
    pub fn optional_str(&self, field: &str) -> Result<Option<String>, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(domain::text::checked(field, s)?.to_owned())),
            Some(_) => Err(Failure::bad_request(field, "must be a string")),
        }
    }

    /// An optional list of strings (absent or null gives `None`); an item of another type is
    /// named by its index (`` `nationalities[1]`: must be a string ``).
    pub fn optional_str_array(&self, field: &str) -> Result<Option<Vec<String>>, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => {
                        Ok(domain::text::checked(&format!("{field}[{i}]"), s)?.to_owned())
                    }
                    _ => Err(Failure::bad_request(
                        &format!("{field}[{i}]"),
                        "must be a string",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(Failure::bad_request(field, "must be a list of strings")),
        }
    }

    pub fn optional_i64(&self, field: &str) -> Result<Option<i64>, Failure> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => integer_i64(n)
                .map(Some)
                .ok_or_else(|| Failure::bad_request(field, "must be a whole number")),
            Some(_) => Err(Failure::bad_request(field, "must be a whole number")),
        }
    }
}

/// JSON Schema's integer, the one rule both surfaces read numbers by: any number with a zero
/// fractional part, whatever its magnitude (`30` and `30.0` alike).
pub fn is_integer(value: &Value) -> bool {
    value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A JSON integer (see [`is_integer`]) that an `i64` holds exactly: `None` for a fraction, or
/// for a float too large to be exact (2^53 and beyond).
pub fn integer_i64(n: &serde_json::Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

#[cfg(test)]
mod integer_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_integer_is_a_number_with_no_fraction() {
        for yes in [
            json!(0),
            json!(30),
            json!(30.0),
            json!(-7),
            json!(u64::MAX),
            json!(1e300),
        ] {
            assert!(is_integer(&yes), "{yes}");
        }
        for no in [json!(30.5), json!("30"), json!(null), json!(true)] {
            assert!(!is_integer(&no), "{no}");
        }
        let n = |v: Value| v.as_number().cloned().unwrap();
        assert_eq!(integer_i64(&n(json!(30.0))), Some(30));
        assert_eq!(integer_i64(&n(json!(-3))), Some(-3));
        assert_eq!(integer_i64(&n(json!(0.5))), None);
        assert_eq!(integer_i64(&n(json!(1e300))), None);
    }
}
