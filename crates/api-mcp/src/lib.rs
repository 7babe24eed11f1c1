#![doc = include_str!("../README.md")]

mod args;
pub mod assistant;
mod era;
mod jsonrpc;
mod schema;
mod summary;
pub mod tools;
mod transport;

use actix_web::web;

/// The handshake-era MCP revisions `initialize` negotiates, newest first. A client asking for
/// one of these gets it back; any other request gets the first (the newest we speak).
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The per-request-era revisions served without a handshake (see `era`), newest first.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The name the server reports (`serverInfo` of `initialize`, `_meta` of per-request results).
pub const SERVER_NAME: &str = "idreg";

/// The server's name and version as both eras report it.
pub fn server_info() -> serde_json::Value {
    serde_json::json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") })
}

/// Mounts `POST /mcp` (and its transport rules) on an actix app. Every other method on the
/// path answers 405 with `Allow: POST`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/mcp")
            .route(web::post().to(transport::post))
            // A browser-based client's preflight: answered without a credential, opening
            // nothing (the POST itself keeps every transport rule, `Origin` included).
            .route(
                web::method(actix_web::http::Method::OPTIONS)
                    .to(|| async { api_core::oauth::preflight(&[actix_web::http::Method::POST]) }),
            )
            .default_service(web::to(transport::method_not_allowed)),
    );
}

/// The complete tool list as a token holding every consumer scope sees it (`tools/list`
/// result's `tools` array), for the contract snapshot. Ordered by tool name.
pub fn catalog_json() -> serde_json::Value {
    serde_json::Value::Array(
        tools::catalog()
            .iter()
            .map(|t| t.descriptor().clone())
            .collect(),
    )
}

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them, for
/// the tests that read identifiers or country codes.
#[cfg(test)]
fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}
