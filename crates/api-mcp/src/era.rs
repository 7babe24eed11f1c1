//! The two protocol eras one endpoint serves, and the checks that admit a request of the
//! newer one.
//!
//! - The **handshake** era (revisions 2024-11-05 to 2025-11-25): a client opens with
//!   `initialize`; a later request may name its revision in `MCP-Protocol-Version`.
//! - The **per-request** era (revision 2026-07-28): no handshake, no session; every request
//!   carries its revision, capabilities and client information in `params._meta`, and mirrors
//!   its revision, method and (for `tools/call`) tool name in headers that must agree with the
//!   body.
//!
//! A request belongs to the per-request era when an `MCP-Protocol-Version` header names
//! anything but a handshake revision, or when its `_meta` carries the per-request revision
//! key; everything else is served exactly as the handshake era always was. The checks of a
//! per-request request run in the order of the revision's own reference server (the official
//! Python SDK), first failure wins: a routing header sent twice; the required `_meta` keys;
//! each header against the body; the revision itself.

use crate::jsonrpc::{self, RpcError};
use crate::{HANDSHAKE_VERSIONS, MODERN_VERSIONS};
use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use base64::Engine;
use serde_json::{json, Map, Value};

pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
pub const METHOD_HEADER: &str = "mcp-method";
pub const NAME_HEADER: &str = "mcp-name";

/// The `_meta` key naming a request's revision (per-request era).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key carrying the client's capabilities (required with the revision).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The result `_meta` key naming the server.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The headers and body disagree, or a required header is missing or malformed.
pub const HEADER_MISMATCH: i64 = -32020;
/// The request names a revision this server does not serve.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Era {
    Handshake,
    PerRequest,
}

impl Era {
    /// The era of a message: per-request when a version header names anything but a
    /// handshake revision (a value that is no text included), or when the request's `_meta`
    /// carries the per-request revision key.
    pub fn of(headers: &HeaderMap, params: Option<&Value>) -> Era {
        let header_says_modern = headers.get_all(PROTOCOL_VERSION_HEADER).any(|value| {
            value
                .to_str()
                .map_or(true, |v| !HANDSHAKE_VERSIONS.contains(&v))
        });
        let meta_says_modern = params
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .is_some_and(|meta| meta.contains_key(PROTOCOL_VERSION_KEY));
        if header_says_modern || meta_says_modern {
            Era::PerRequest
        } else {
            Era::Handshake
        }
    }

    /// The HTTP status a JSON-RPC error is answered with. The handshake era answers an
    /// error of a request that was read at 200, as it always has; the per-request era maps
    /// each code as its revision asks (400 for a request it cannot take, 404 for a method
    /// it does not serve).
    pub fn status_of(self, code: i64) -> StatusCode {
        match (self, code) {
            (_, jsonrpc::PARSE_ERROR | jsonrpc::INVALID_REQUEST) => StatusCode::BAD_REQUEST,
            (Era::Handshake, _) => StatusCode::OK,
            (
                Era::PerRequest,
                jsonrpc::INVALID_PARAMS | HEADER_MISMATCH | UNSUPPORTED_PROTOCOL_VERSION,
            ) => StatusCode::BAD_REQUEST,
            (Era::PerRequest, jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
            (Era::PerRequest, _) => StatusCode::OK,
        }
    }
}

/// Every revision served, newest first: what `server/discover` lists and an unsupported
/// revision is told.
pub fn supported_versions() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(HANDSHAKE_VERSIONS.iter())
        .copied()
        .collect()
}

/// The refusal of a revision this server does not serve, naming those it does.
pub fn unsupported(requested: &Value) -> RpcError {
    RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// Whether a per-request-era notification's version header names a revision we serve (a
/// notification carries no `_meta` to check; its header is all there is).
pub fn notification_version(headers: &HeaderMap) -> Result<(), RpcError> {
    let requested = headers
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if MODERN_VERSIONS.contains(&requested) {
        Ok(())
    } else {
        Err(unsupported(&Value::String(requested.to_owned())))
    }
}

/// Admits a per-request-era request: every check its revision asks of a server, in order.
pub fn admit(headers: &HeaderMap, method: &str, params: &Value) -> Result<(), RpcError> {
    if let Some(name) = [PROTOCOL_VERSION_HEADER, METHOD_HEADER, NAME_HEADER]
        .into_iter()
        .find(|name| headers.get_all(*name).count() > 1)
    {
        return Err(mismatch(format!(
            "the {name} header appears more than once"
        )));
    }
    let meta = params
        .get("_meta")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!(
                    "Invalid params: `params._meta` must be an object carrying \
                     `{PROTOCOL_VERSION_KEY}` and `{CLIENT_CAPABILITIES_KEY}`"
                ),
            )
        })?;
    let missing: Vec<&str> = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY]
        .into_iter()
        .filter(|key| !meta.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            format!(
                "Invalid params: `params._meta` lacks the required key(s) {}",
                missing.join(", ")
            ),
        ));
    }
    headers_agree(headers, method, params, meta)?;
    let requested = &meta[PROTOCOL_VERSION_KEY];
    let Some(version) = requested.as_str() else {
        return Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            format!("Invalid params: `{PROTOCOL_VERSION_KEY}` must be a string"),
        ));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported(requested));
    }
    Ok(())
}

/// Each routing header present, well-formed and equal to the body's value: the revision,
/// the method, and for `tools/call` the tool's name (after decoding the base64 form).
fn headers_agree(
    headers: &HeaderMap,
    method: &str,
    params: &Value,
    meta: &Map<String, Value>,
) -> Result<(), RpcError> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let version = text(PROTOCOL_VERSION_HEADER);
    if version.is_none() || version != meta[PROTOCOL_VERSION_KEY].as_str() {
        return Err(mismatch(format!(
            "the {PROTOCOL_VERSION_HEADER} header must be sent and equal `_meta.{PROTOCOL_VERSION_KEY}`"
        )));
    }
    if text(METHOD_HEADER) != Some(method) {
        return Err(mismatch(format!(
            "the {METHOD_HEADER} header must be sent and equal the body's `method`"
        )));
    }
    if method == "tools/call" {
        match params.get("name") {
            None | Some(Value::Null) => {}
            Some(name) => {
                let header = text(NAME_HEADER).and_then(decode_header_value);
                if header.as_deref() != name.as_str() {
                    return Err(mismatch(format!(
                        "the {NAME_HEADER} header must be sent and equal the body's `params.name`"
                    )));
                }
            }
        }
    }
    Ok(())
}

fn mismatch(message: String) -> RpcError {
    RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {message}"))
}

/// A header value as the client meant it: verbatim, or, in the `=?base64?<payload>?=` form,
/// the payload decoded as UTF-8. A malformed payload (not canonical base64, not UTF-8) is
/// `None`, so it never equals a body value.
pub fn decode_header_value(value: &str) -> Option<String> {
    let Some(payload) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(payload).ok()?;
    if engine.encode(&bytes) != payload {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The result as the per-request era answers it: `resultType`, and the server named in
/// `_meta`.
pub fn complete(mut result: Map<String, Value>) -> Value {
    result.insert("resultType".into(), json!("complete"));
    result.insert(
        "_meta".into(),
        json!({ SERVER_INFO_KEY: crate::server_info() }),
    );
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};
    use proptest::prelude::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn meta(version: &str) -> Value {
        json!({ "_meta": {
            PROTOCOL_VERSION_KEY: version,
            CLIENT_CAPABILITIES_KEY: {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        }})
    }

    fn call(name: &str) -> Value {
        let mut params = meta("2026-07-28");
        params["name"] = json!(name);
        params
    }

    const LIST: &[(&str, &str)] = &[
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];

    #[test]
    fn the_era_is_read_off_the_version_header_or_the_meta_key() {
        let none = HeaderMap::new();
        assert_eq!(Era::of(&none, None), Era::Handshake);
        assert_eq!(Era::of(&none, Some(&json!({}))), Era::Handshake);
        assert_eq!(
            Era::of(&none, Some(&json!({"_meta": {"progressToken": 1}}))),
            Era::Handshake
        );
        for v in HANDSHAKE_VERSIONS {
            let h = headers(&[("mcp-protocol-version", v)]);
            assert_eq!(Era::of(&h, None), Era::Handshake, "{v}");
        }
        for v in ["2026-07-28", "2099-01-01", "", " 2025-11-25"] {
            let h = headers(&[("mcp-protocol-version", v)]);
            assert_eq!(Era::of(&h, None), Era::PerRequest, "{v:?}");
        }
        assert_eq!(Era::of(&none, Some(&meta("2026-07-28"))), Era::PerRequest);
        // A handshake header with per-request _meta: the per-request checks tell the client
        // it disagrees with itself.
        let h = headers(&[("mcp-protocol-version", "2025-11-25")]);
        assert_eq!(Era::of(&h, Some(&meta("2026-07-28"))), Era::PerRequest);
    }

    #[test]
    fn a_well_formed_request_is_admitted() {
        assert_eq!(
            admit(&headers(LIST), "tools/list", &meta("2026-07-28")),
            Ok(())
        );
        let h = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_subject"),
        ]);
        assert_eq!(admit(&h, "tools/call", &call("get_subject")), Ok(()));
    }

    #[test]
    fn the_checks_answer_in_the_revision_order() {
        let code = |h: &[(&str, &str)], method: &str, params: &Value| {
            admit(&headers(h), method, params).unwrap_err().code
        };
        // A routing header twice, before anything else.
        let twice = [LIST[0], LIST[1], ("mcp-method", "tools/list")];
        assert_eq!(code(&twice, "tools/list", &json!({})), HEADER_MISMATCH);
        // The required _meta keys.
        assert_eq!(
            code(LIST, "tools/list", &json!({})),
            jsonrpc::INVALID_PARAMS
        );
        let mut no_caps = meta("2026-07-28");
        no_caps["_meta"]
            .as_object_mut()
            .unwrap()
            .remove(CLIENT_CAPABILITIES_KEY);
        assert_eq!(code(LIST, "tools/list", &no_caps), jsonrpc::INVALID_PARAMS);
        // Each header against the body.
        assert_eq!(
            code(&LIST[1..], "tools/list", &meta("2026-07-28")),
            HEADER_MISMATCH
        );
        assert_eq!(
            code(LIST, "tools/list", &meta("2099-01-01")),
            HEADER_MISMATCH
        );
        assert_eq!(
            code(LIST, "tools/call", &meta("2026-07-28")),
            HEADER_MISMATCH
        );
        let call_headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ];
        assert_eq!(
            code(&call_headers, "tools/call", &call("get_subject")),
            HEADER_MISMATCH
        );
        let wrong_name = [call_headers[0], call_headers[1], ("mcp-name", "get_other")];
        assert_eq!(
            code(&wrong_name, "tools/call", &call("get_subject")),
            HEADER_MISMATCH
        );
        // The revision last: named in both, agreeing, and not served.
        let future = [("mcp-protocol-version", "2099-01-01"), LIST[1]];
        let error = admit(&headers(&future), "tools/list", &meta("2099-01-01")).unwrap_err();
        assert_eq!(error.code, UNSUPPORTED_PROTOCOL_VERSION);
        let data = error.data.unwrap();
        assert_eq!(data["requested"], "2099-01-01");
        assert_eq!(data["supported"][0], "2026-07-28");
        assert!(data["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25")));
    }

    #[test]
    fn a_tool_name_may_come_base64_encoded() {
        let name = "värde med mellanslag";
        let encoded = format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(name)
        );
        let h = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", &encoded),
        ]);
        assert_eq!(admit(&h, "tools/call", &call(name)), Ok(()));
        assert_eq!(decode_header_value("=?base64?!!?="), None);
        // Not canonical (non-zero padding bits): refused, as the encoder never writes it.
        assert_eq!(decode_header_value("=?base64?QR==?="), None);
        assert_eq!(decode_header_value("plain"), Some("plain".into()));
    }

    #[test]
    fn statuses_follow_the_era() {
        use jsonrpc::*;
        for era in [Era::Handshake, Era::PerRequest] {
            assert_eq!(era.status_of(PARSE_ERROR), StatusCode::BAD_REQUEST);
            assert_eq!(era.status_of(INVALID_REQUEST), StatusCode::BAD_REQUEST);
        }
        assert_eq!(Era::Handshake.status_of(INVALID_PARAMS), StatusCode::OK);
        assert_eq!(Era::Handshake.status_of(METHOD_NOT_FOUND), StatusCode::OK);
        assert_eq!(
            Era::PerRequest.status_of(INVALID_PARAMS),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            Era::PerRequest.status_of(HEADER_MISMATCH),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            Era::PerRequest.status_of(UNSUPPORTED_PROTOCOL_VERSION),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            Era::PerRequest.status_of(METHOD_NOT_FOUND),
            StatusCode::NOT_FOUND
        );
    }

    proptest! {
        /// Any text survives the base64 form and is never taken for another.
        #[test]
        fn every_name_round_trips_through_the_base64_form(name in "\\PC*") {
            let encoded = format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(&name)
            );
            prop_assert_eq!(decode_header_value(&encoded), Some(name.clone()));
        }

        /// Headers written from the body (the tool name plain or in the base64 form) are
        /// admitted; any one departure from them is refused: a routing header left out, sent
        /// twice, or naming another revision, method or tool.
        #[test]
        fn headers_written_from_the_body_pass_and_any_departure_fails(
            method in prop::sample::select(vec!["tools/call", "tools/list", "server/discover"]),
            name in "[a-z_]{1,16}",
            encode in any::<bool>(),
            departure in 0usize..7,
            other in "[a-z_/0-9-]{1,16}",
        ) {
            let name_header = if encode {
                format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(&name))
            } else {
                name.clone()
            };
            let mut pairs: Vec<(&str, String)> = vec![
                (PROTOCOL_VERSION_HEADER, "2026-07-28".into()),
                (METHOD_HEADER, method.into()),
            ];
            if method == "tools/call" {
                pairs.push((NAME_HEADER, name_header));
            }
            let mut params = meta("2026-07-28");
            params["name"] = json!(name);
            let build = |pairs: &[(&str, String)]| {
                headers(&pairs.iter().map(|(n, v)| (*n, v.as_str())).collect::<Vec<_>>())
            };
            prop_assert_eq!(admit(&build(&pairs), method, &params), Ok(()));

            // One departure; `other` never equals what it replaces.
            let i = departure % pairs.len();
            let changed = match departure {
                0 | 1 => { pairs.remove(i); true }
                2 | 3 => { let again = pairs[i].clone(); pairs.push(again); true }
                _ => {
                    let replacement = format!("{other}x");
                    let differs = decode_header_value(&replacement).as_deref()
                        != decode_header_value(&pairs[i].1).as_deref();
                    pairs[i].1 = replacement;
                    differs
                }
            };
            if changed {
                prop_assert!(admit(&build(&pairs), method, &params).is_err(), "{:?}", pairs);
            }
        }

        /// A tool name must match its header exactly: any other name is a mismatch.
        #[test]
        fn any_other_name_in_the_header_is_a_mismatch(
            sent in "[a-z_]{1,20}",
            header in "[ -~]{0,24}",
        ) {
            let h = headers(&[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", &header),
            ]);
            let admitted = admit(&h, "tools/call", &call(&sent)).is_ok();
            let decoded = decode_header_value(&header);
            prop_assert_eq!(admitted, decoded.as_deref() == Some(sent.as_str()));
        }
    }
}
