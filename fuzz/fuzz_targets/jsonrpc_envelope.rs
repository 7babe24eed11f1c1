//! The JSON-RPC envelope of `POST /mcp`: `jsonrpc::read(body)`.
//!
//! The framing module is compiled here from api-mcp's own source file (it needs only serde),
//! so this target does not build the web stack. Properties: no panic; a body is a request
//! (string or number id, object or absent params), a notification, a client's response, or a
//! rejection with one of the standard codes and an echoable id; the answer built from it,
//! as the transport builds it, is a JSON-RPC 2.0 response object that reads back as a
//! response.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/api-mcp/src/jsonrpc.rs"]
mod jsonrpc;

use jsonrpc::{Message, Response, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (id, result, error) = match jsonrpc::read(data) {
        Ok(Message::Request { id, method, params }) => {
            assert!(id.is_string() || id.is_number(), "a request's id: {id}");
            assert!(params.is_null() || params.is_object());
            let _ = method;
            (id, Some(Value::Object(Default::default())), None)
        }
        Ok(Message::Notification | Message::Response) => return,
        Err(rejection) => {
            assert!(
                [PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS].contains(&rejection.error.code),
                "code {}",
                rejection.error.code
            );
            assert!(rejection.id.is_null() || rejection.id.is_string() || rejection.id.is_number());
            assert!(!rejection.error.message.is_empty());
            (rejection.id, None, Some(rejection.error))
        }
    };
    let is_error = error.is_some();
    let answer = serde_json::to_vec(&Response {
        jsonrpc: "2.0",
        id: &id,
        result,
        error,
    })
    .expect("a response serialises");
    let object: serde_json::Map<String, Value> =
        serde_json::from_slice(&answer).expect("a response is a JSON object");
    assert_eq!(object.get("jsonrpc"), Some(&Value::String("2.0".into())));
    assert_eq!(object.get("id"), Some(&id));
    assert_eq!(object.contains_key("error"), is_error);
    assert_eq!(object.contains_key("result"), !is_error);
    assert!(matches!(jsonrpc::read(&answer), Ok(Message::Response)));
});
