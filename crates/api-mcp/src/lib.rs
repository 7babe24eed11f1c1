#![doc = include_str!("../README.md")]

use actix_web::web;

/// Mounts `POST /mcp` (and its transport rules) on an actix app.
pub fn configure(_cfg: &mut web::ServiceConfig) {}

/// The complete tool list as a token holding every consumer scope sees it (`tools/list`
/// result's `tools` array), for the contract snapshot.
pub fn catalog_json() -> serde_json::Value {
    serde_json::Value::Array(Vec::new())
}
