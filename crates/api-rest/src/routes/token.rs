//! `POST /oauth/token`: the OAuth 2.0 client-credentials grant, and the authorization-code
//! and refresh-token grants of agents' connections (`domain::oauth`).
//!
//! Accepts a JSON or form-encoded body, and client authentication either in the body
//! (`client_secret_post`) or as HTTP Basic (`client_secret_basic`). Errors carry RFC 6749's
//! `error_description` beside `message` (same text) so that standard OAuth clients show it.

use crate::request::JsonBody;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{insert_retry_after, log_cause, read_body, request_context, AppServices};
use base64::Engine;
use domain::access::grant::ClientSecret;
use domain::access::token::{ScopeRequest, TokenRequest};
use domain::oauth::token_grants::{CodeRequest, RefreshRequest};
use domain::{ErrorCode, Failure};
use serde::Serialize;

#[derive(Serialize, utoipa::ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    #[schema(schema_with = api_core::schema::token_type)]
    pub token_type: &'static str,
    pub expires_in: i64,
    /// The token's scopes, space-separated.
    pub scope: String,
    /// Country codes the token carries.
    #[schema(schema_with = api_core::schema::country_codes)]
    pub countries: Vec<&'static str>,
    /// `live`, or `test` for a test-mode grant's token (`cid_test_` credentials): its
    /// requests are answered from the sandbox registers, on data apart from live data.
    #[schema(schema_with = api_core::schema::mode)]
    pub mode: &'static str,
    /// An agent connection's next refresh token (the authorization-code and refresh grants;
    /// never for client credentials). Each is used once: the answer carries the next (added
    /// in 1.8.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

#[derive(Serialize)]
struct TokenErrorBody<'a> {
    error: &'a str,
    message: &'a str,
    error_description: &'a str,
}

fn token_error(failure: &Failure, basic_used: bool) -> HttpResponse {
    log_cause(failure, None);
    let status =
        StatusCode::from_u16(failure.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    response.insert_header((header::CACHE_CONTROL, "no-store"));
    insert_retry_after(failure, &mut response);
    if failure.code == ErrorCode::InvalidClient && basic_used {
        response.insert_header((header::WWW_AUTHENTICATE, "Basic realm=\"idreg\""));
    }
    response.json(TokenErrorBody {
        error: failure.code.as_str(),
        message: &failure.message,
        error_description: &failure.message,
    })
}

/// The fields of a token request, however they arrived.
#[derive(Default)]
struct TokenFields {
    grant_type: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    scope: Option<String>,
    /// RFC 8707 resource indicators (the one field that may be repeated).
    resources: Vec<String>,
    /// The authorization-code grant's.
    code: Option<String>,
    code_verifier: Option<String>,
    redirect_uri: Option<String>,
    /// The refresh-token grant's.
    refresh_token: Option<String>,
}

fn parse_body(req: &HttpRequest, body: &[u8]) -> Result<TokenFields, Failure> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match content_type.as_str() {
        "application/json" => {
            let json = JsonBody::parse(body)?;
            Ok(TokenFields {
                grant_type: json.optional_str("grant_type")?,
                client_id: json.optional_str("client_id")?,
                client_secret: json.optional_str("client_secret")?,
                scope: json.optional_str("scope")?,
                resources: json.optional_str("resource")?.into_iter().collect(),
                code: json.optional_str("code")?,
                code_verifier: json.optional_str("code_verifier")?,
                redirect_uri: json.optional_str("redirect_uri")?,
                refresh_token: json.optional_str("refresh_token")?,
            })
        }
        "application/x-www-form-urlencoded" | "" => {
            let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body)
                .map_err(|_| Failure::bad_request("body", "not a valid form-encoded body"))?;
            let mut fields = TokenFields::default();
            for (name, value) in pairs {
                if name == "resource" {
                    domain::text::checked(&name, &value)?;
                    fields.resources.push(value);
                    continue;
                }
                let slot = match name.as_str() {
                    "grant_type" => &mut fields.grant_type,
                    "client_id" => &mut fields.client_id,
                    "client_secret" => &mut fields.client_secret,
                    "scope" => &mut fields.scope,
                    "code" => &mut fields.code,
                    "code_verifier" => &mut fields.code_verifier,
                    "redirect_uri" => &mut fields.redirect_uri,
                    "refresh_token" => &mut fields.refresh_token,
                    _ => continue,
                };
                if slot.is_some() {
                    return Err(Failure::bad_request(&name, "must not be repeated"));
                }
                domain::text::checked(&name, &value)?;
                *slot = Some(value);
            }
            Ok(fields)
        }
        _ => Err(Failure::bad_request(
            "content-type",
            "must be application/x-www-form-urlencoded or application/json",
        )),
    }
}

/// Decodes `%XX` escapes (RFC 6749 asks clients to form-encode Basic credentials; many do
/// not). Credentials this service issues are URL-safe, so both spellings verify.
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// Client credentials from an `Authorization: Basic` header, if present.
fn basic_credentials(req: &HttpRequest) -> Result<Option<(String, String)>, Failure> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    // A malformed header is a malformed request (400), not a failed authentication.
    let malformed = || Failure::bad_request("authorization", "malformed HTTP Basic credentials");
    let value = value.to_str().map_err(|_| malformed())?.trim();
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(malformed());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(Failure::bad_request(
            "authorization",
            "client authentication must use HTTP Basic or the request body",
        ));
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let (id, secret) = (percent_decode(id), percent_decode(secret));
    domain::text::checked("client_id", &id)?;
    domain::text::checked("client_secret", &secret)?;
    Ok(Some((id, secret)))
}

/// What a token request asks for, by grant type.
enum Grant {
    ClientCredentials(TokenRequest),
    Code(CodeRequest),
    Refresh(RefreshRequest),
}

/// The client a request authenticates as: HTTP Basic or the body's `client_id` (and
/// `client_secret`, when it holds one), never both.
fn client_of(
    basic: Option<(String, String)>,
    client_id: Option<String>,
    client_secret: Option<String>,
) -> Result<(String, Option<String>), Failure> {
    match (basic, client_id, client_secret) {
        (Some(_), _, Some(_)) => Err(Failure::bad_request(
            "client_secret",
            "use one client authentication method, HTTP Basic or the body, not both",
        )),
        (Some((id, secret)), body_id, None) => {
            if body_id.is_some_and(|b| b != id) {
                return Err(Failure::bad_request(
                    "client_id",
                    "differs from the HTTP Basic client id",
                ));
            }
            Ok((id, Some(secret)))
        }
        (None, None, _) => Err(Failure::bad_request("client_id", "is required")),
        (None, Some(id), secret) => Ok((id, secret)),
    }
}

fn token_request(req: &HttpRequest, body: &[u8]) -> Result<(Grant, bool), Failure> {
    let fields = parse_body(req, body)?;
    // RFC 8707: each resource named must be this service (the API or its MCP endpoint).
    let origin = api_core::discovery::origin(req);
    if fields.resources.iter().any(|r| {
        api_core::discovery::our_resources(&origin)
            .canonical(r)
            .is_none()
    }) {
        return Err(Failure::new(
            ErrorCode::InvalidTarget,
            format!(
                "`resource`: tokens are issued for this service only: {origin} or {origin}/mcp"
            ),
        ));
    }
    let basic = basic_credentials(req)?;
    let basic_used = basic.is_some();
    let grant_type = fields
        .grant_type
        .clone()
        .ok_or_else(|| Failure::bad_request("grant_type", "is required"))?;
    let (client_id, client_secret) = client_of(basic, fields.client_id, fields.client_secret)?;
    let grant = match grant_type.as_str() {
        "client_credentials" => {
            let Some(secret) = client_secret else {
                return Err(Failure::bad_request("client_secret", "is required"));
            };
            Grant::ClientCredentials(TokenRequest {
                client_id,
                client_secret: ClientSecret::new(secret),
                scope: ScopeRequest::from_wire(
                    fields.scope.as_deref(),
                    !fields.resources.is_empty(),
                ),
            })
        }
        "authorization_code" => Grant::Code(CodeRequest {
            client_id,
            client_secret: client_secret.map(ClientSecret::new),
            code: fields
                .code
                .ok_or_else(|| Failure::bad_request("code", "is required"))?,
            code_verifier: fields.code_verifier,
            redirect_uri: fields.redirect_uri,
            resources: fields.resources,
        }),
        "refresh_token" => Grant::Refresh(RefreshRequest {
            client_id,
            client_secret: client_secret.map(ClientSecret::new),
            refresh_token: fields
                .refresh_token
                .ok_or_else(|| Failure::bad_request("refresh_token", "is required"))?,
            scope: fields.scope,
            resources: fields.resources,
        }),
        _ => {
            return Err(Failure::bad_request(
                "grant_type",
                "must be client_credentials, authorization_code or refresh_token",
            ))
        }
    };
    Ok((grant, basic_used))
}

#[utoipa::path(
    post,
    summary = "Issues an access token (OAuth 2.0 client-credentials grant).",
    description = "The body is form-encoded (RFC 6749; also when no content type is sent). A JSON body (`application/json`) with the same members is accepted too; it is left out of `requestBody` because code generators cannot yet offer two media types of one body (openapi-python-client fails on it; others always pick JSON). The client authenticates with `client_id` and `client_secret` in the body, or with HTTP Basic.",
    path = domain::operation::Operation::IssueToken.route_template(),
    operation_id = "issue_token",
    tag = "token",
    request_body(
        description = "The token request",
        content(
            (crate::request::TokenRequestBody = "application/x-www-form-urlencoded"),
        )
    ),
    security((), ("client_basic" = [])),
    responses(
        (status = 200, description = "The access token", body = TokenResponse,
            headers(
                ("Cache-Control" = String, description = "`no-store`"),
                ("Pragma" = String, description = "`no-cache`"),
            )
        ),
    )
)]
pub async fn issue(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    let ctx = request_context(&req);
    let body = match read_body(payload).await {
        Ok(body) => body,
        Err(failure) => return token_error(&failure, false),
    };
    let (grant, basic_used) = match token_request(&req, &body) {
        Ok(parsed) => parsed,
        Err(failure) => return token_error(&failure, false),
    };
    let ours = api_core::discovery::our_resources(&api_core::discovery::origin(&req));
    let issued = match grant {
        Grant::ClientCredentials(request) => services.tokens.issue(request, &ctx).await,
        Grant::Code(request) => services.oauth.exchange_code(&request, &ours, &ctx).await,
        Grant::Refresh(request) => services.oauth.refresh(&request, &ours, &ctx).await,
    };
    match issued {
        Ok(token) => {
            let mut response = HttpResponse::Ok();
            response
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .insert_header((header::PRAGMA, "no-cache"));
            if token.mode == domain::access::tenant::TenantMode::Test {
                response.insert_header(api_core::mode::header());
            }
            response.json(TokenResponse {
                access_token: token.access_token,
                token_type: "Bearer",
                expires_in: token.expires_in,
                scope: token.scopes.to_string(),
                countries: token.countries.codes(),
                mode: token.mode.as_str(),
                refresh_token: token.refresh_token,
            })
        }
        Err(failure) => token_error(&failure, basic_used),
    }
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn percent_decoding_accepts_raw_and_encoded() {
        assert_eq!(percent_decode("cs_abc-_"), "cs_abc-_");
        assert_eq!(percent_decode("a%3Ab"), "a:b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
