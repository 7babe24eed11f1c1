//! OAuth discovery documents (RFC 9728, RFC 8414) and the authorization endpoint they must
//! name. No credential is needed for any of them; none is audited (no tenant is known).
//! What they say is written once in `api_core::discovery`.

use actix_web::{HttpRequest, HttpResponse};
use api_core::discovery::{
    origin, AuthorizationServerMetadata, Protected, ProtectedResourceMetadata,
};

/// Protected Resource Metadata of the REST API (the origin).
///
/// The resource is this origin, its authorization server this origin too.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-protected-resource",
    operation_id = "get_protected_resource_metadata",
    tag = "discovery",
    security(()),
    responses((status = 200, description = "RFC 9728 metadata of the REST API", body = ProtectedResourceMetadata))
)]
pub async fn api_resource(req: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().json(ProtectedResourceMetadata::of(&origin(&req), Protected::Api))
}

/// Protected Resource Metadata of the MCP endpoint (`<origin>/mcp`).
///
/// Where the `WWW-Authenticate` challenge of a 401 from `/mcp` points.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-protected-resource/mcp",
    operation_id = "get_mcp_protected_resource_metadata",
    tag = "discovery",
    security(()),
    responses((status = 200, description = "RFC 9728 metadata of the MCP endpoint", body = ProtectedResourceMetadata))
)]
pub async fn mcp_resource(req: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().json(ProtectedResourceMetadata::of(&origin(&req), Protected::Mcp))
}

/// Authorization Server Metadata.
///
/// The issuer is this origin; tokens come from `/oauth/token` by client credentials, and,
/// where a portal lets people consent, by the authorization-code flow (`/oauth/authorize`,
/// PKCE with S256, client metadata documents or `/oauth/register`).
#[utoipa::path(
    get,
    path = "/.well-known/oauth-authorization-server",
    operation_id = "get_authorization_server_metadata",
    tag = "discovery",
    security(()),
    responses((status = 200, description = "RFC 8414 metadata", body = AuthorizationServerMetadata))
)]
pub async fn authorization_server(req: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().json(AuthorizationServerMetadata::of(
        &origin(&req),
        api_core::oauth::people_connect(&req),
    ))
}
