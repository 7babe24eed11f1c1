//! OAuth discovery documents (RFC 9728, RFC 8414) and the authorization endpoint they must
//! name. No credential is needed for any of them; none is audited (no tenant is known).
//! What they say is written once in `api_core::discovery`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use api_core::discovery::{
    origin, AuthorizationServerMetadata, Protected, ProtectedResourceMetadata,
};
use serde::Serialize;

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
/// The issuer is this origin; tokens come from `/oauth/token` by client credentials.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-authorization-server",
    operation_id = "get_authorization_server_metadata",
    tag = "discovery",
    security(()),
    responses((status = 200, description = "RFC 8414 metadata", body = AuthorizationServerMetadata))
)]
pub async fn authorization_server(req: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().json(AuthorizationServerMetadata::of(&origin(&req)))
}

/// An OAuth error answered by the authorization endpoint.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AuthorizeErrorBody {
    /// Always `unsupported_response_type`.
    #[schema(example = "unsupported_response_type")]
    pub error: &'static str,
    pub message: &'static str,
    pub error_description: &'static str,
}

/// The authorization endpoint: refuses every request.
///
/// Named in the authorization server metadata because OAuth client libraries require one;
/// this service issues tokens by client credentials at `/oauth/token` only, so there is no
/// response type to serve (RFC 6749 §4.1.2.1: no redirect URI is registered, so the error is
/// answered directly).
#[utoipa::path(
    get,
    path = "/oauth/authorize",
    operation_id = "authorize",
    tag = "discovery",
    security(()),
    responses((status = 400, description = "`unsupported_response_type`", body = AuthorizeErrorBody))
)]
pub async fn authorize() -> HttpResponse {
    const WHY: &str =
        "this server issues tokens by the client-credentials grant at /oauth/token only";
    HttpResponse::BadRequest()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(AuthorizeErrorBody {
            error: "unsupported_response_type",
            message: WHY,
            error_description: WHY,
        })
}
