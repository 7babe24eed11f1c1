//! Prints the interface contract's generated files for `cargo xtask contract`, so the task
//! runner itself builds none of the service: one JSON object, each file's name to its text.
//!
//! `cargo run -q -p idreg --example contract -- <version>`
//!
//! - `openapi.json`: `api_rest::openapi::document` (utoipa), `info.version` the argument, with
//!   the evidence sources of every country the binary builds in (`idreg::countries`);
//! - `mcp-tools.json`: `api_mcp::catalog_json()`;
//! - `error-codes.json`: `api_rest::openapi::error_codes()` (from `domain::ErrorCode::ALL`);
//! - `event-types.json`: `api_rest::openapi::event_types()`.

use api_rest::openapi::{canonical_json, document, error_codes, event_types};

fn main() {
    let Some(version) = std::env::args().nth(1) else {
        eprintln!("usage: contract <version>");
        std::process::exit(2);
    };
    let files = serde_json::json!({
        "openapi.json": canonical_json(&document(&version, &idreg::countries::evidence_sources())),
        "mcp-tools.json": canonical_json(&api_mcp::catalog_json()),
        "error-codes.json": canonical_json(&error_codes()),
        "event-types.json": canonical_json(&event_types()),
    });
    println!("{files}");
}
