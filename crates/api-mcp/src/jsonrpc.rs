//! JSON-RPC 2.0 framing: what a `POST /mcp` body is, and the error objects we answer with.

use serde::Serialize;
use serde_json::{Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// One JSON-RPC message, as read from a request body.
#[derive(Debug)]
pub enum Message {
    /// A request: it has an id and gets exactly one response.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification (no id): accepted with 202 and never answered.
    Notification,
    /// A response or error the client sent us; we never send requests, so it is accepted and
    /// dropped.
    Response,
}

/// Why a body is not a message we can act on.
#[derive(Debug, PartialEq)]
pub struct Rejection {
    /// The request's id when it could be read, else null.
    pub id: Value,
    pub error: RpcError,
}

#[derive(Debug, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }
}

/// A response object: `jsonrpc` first, then `id`, then `result` or `error`.
#[derive(Serialize)]
pub struct Response<'a> {
    pub jsonrpc: &'static str,
    pub id: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

/// Reads one message from a body. Batches (JSON arrays) are refused: the current MCP
/// revisions (2025-06-18 on) removed them, and one HTTP request stays one unit of work and
/// of audit.
pub fn read(body: &[u8]) -> Result<Message, Rejection> {
    let value: Value = serde_json::from_slice(body).map_err(|_| Rejection {
        id: Value::Null,
        error: RpcError::new(PARSE_ERROR, "Parse error: the body is not valid JSON"),
    })?;
    let object =
        match value {
            Value::Object(object) => object,
            Value::Array(_) => return Err(invalid(
                Value::Null,
                "Invalid Request: batches are not supported; send one JSON-RPC message per request",
            )),
            _ => {
                return Err(invalid(
                    Value::Null,
                    "Invalid Request: the body must be a JSON-RPC 2.0 object",
                ))
            }
        };
    classify(object)
}

fn classify(mut object: Map<String, Value>) -> Result<Message, Rejection> {
    let id = object.remove("id");
    // An id we can echo: a string or a number (MCP forbids null ids).
    let echo = match &id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid(echo, "Invalid Request: `jsonrpc` must be \"2.0\""));
    }
    let Some(method) = object.remove("method") else {
        if id.is_some() && (object.contains_key("result") || object.contains_key("error")) {
            return Ok(Message::Response);
        }
        return Err(invalid(echo, "Invalid Request: `method` is required"));
    };
    let Value::String(method) = method else {
        return Err(invalid(echo, "Invalid Request: `method` must be a string"));
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    match id {
        None => Ok(Message::Notification),
        Some(Value::String(_) | Value::Number(_)) => {
            if !(params.is_null() || params.is_object()) {
                return Err(Rejection {
                    id: echo,
                    error: RpcError::new(
                        INVALID_PARAMS,
                        "Invalid params: `params` must be an object",
                    ),
                });
            }
            Ok(Message::Request {
                id: echo,
                method,
                params,
            })
        }
        Some(_) => Err(invalid(
            Value::Null,
            "Invalid Request: `id` must be a string or a number",
        )),
    }
}

fn invalid(id: Value, message: &str) -> Rejection {
    Rejection {
        id,
        error: RpcError::new(INVALID_REQUEST, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(body: &str) -> i64 {
        read(body.as_bytes()).unwrap_err().error.code
    }

    #[test]
    fn malformed_bodies_get_the_standard_codes() {
        assert_eq!(code("{not json"), PARSE_ERROR);
        assert_eq!(code(""), PARSE_ERROR);
        assert_eq!(code("[]"), INVALID_REQUEST);
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            INVALID_REQUEST
        );
        assert_eq!(code("42"), INVALID_REQUEST);
        assert_eq!(code(r#"{"id":1,"method":"ping"}"#), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#),
            INVALID_PARAMS
        );
    }

    #[test]
    fn the_id_is_echoed_when_it_can_be_read() {
        let rejection =
            read(br#"{"jsonrpc":"2.0","id":"a-1","method":"x","params":"p"}"#).unwrap_err();
        assert_eq!(rejection.id, json!("a-1"));
    }

    /// Found by fuzzing (`jsonrpc_envelope`): an integer id too large for a u64 is read as a
    /// float, and was read a little off (serde_json's fast float parsing), so the id echoed
    /// was not the id sent. Read exactly, it is echoed as the same number.
    #[test]
    fn a_huge_numeric_id_is_echoed_as_the_same_number() {
        let digits = format!("{}{}", "7".repeat(117), "1".repeat(25));
        let body = format!(r#"{{"jsonrpc":"2.0","id":{digits},"method":"tools/list"}}"#);
        let Ok(Message::Request { id, .. }) = read(body.as_bytes()) else {
            panic!("a request")
        };
        assert_eq!(id.as_f64(), Some(digits.parse::<f64>().unwrap()));
        let answer = serde_json::to_string(&Response {
            jsonrpc: "2.0",
            id: &id,
            result: Some(json!({})),
            error: None,
        })
        .unwrap();
        let echoed: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(echoed["id"], id);
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        match read(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#).unwrap() {
            Message::Request { id, method, params } => {
                assert_eq!(
                    (id, method.as_str(), params),
                    (json!(3), "tools/list", Value::Null)
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Message::Notification
        ));
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#).unwrap(),
            Message::Response
        ));
    }
}
