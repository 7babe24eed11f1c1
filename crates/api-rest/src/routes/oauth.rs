//! The authorization-code flow's endpoints on the API's origin: `GET /oauth/authorize` (hands
//! the person's browser to the portal's consent page, or answers the refusal) and `POST
//! /oauth/register` (RFC 7591 dynamic client registration). The token endpoint's two grants of
//! this flow are in `token`. Rules are the domain's (`domain::oauth`).
//!
//! A refusal that must not redirect (an unknown client, a redirect URI it did not register,
//! PKCE missing or not S256, a resource that is not this service) is answered here, as a page
//! for a person (or JSON for a program that asked for it); anything else goes back to the
//! client's redirect URI with `error`, `state` and `iss`.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::discovery::{origin, our_resources};
use api_core::oauth::ConsentPage;
use api_core::{read_body, request_context, AppServices};
use domain::oauth::authorization::{AuthorizeParams, AuthorizeRefusal};
use domain::oauth::service::{error_redirect, AuthorizeError};
use domain::Failure;
use serde::Serialize;

/// The answer of a refused authorization request or registration: RFC 6749's `error` and
/// `error_description`, and `message` (the same text) as every error body of this service.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = AuthorizeErrorBody)]
pub struct OAuthErrorBody {
    #[schema(example = "invalid_request")]
    pub error: String,
    pub message: String,
    pub error_description: String,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A refusal shown to the person (never a redirect): a small page, or JSON when the client
/// asked for it.
fn shown(req: &HttpRequest, status: StatusCode, error: &str, description: &str) -> HttpResponse {
    let mut r = HttpResponse::build(status);
    r.insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if api_core::accepts(req.headers(), "text/html") {
        r.insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
        ))
        .content_type("text/html; charset=utf-8")
        .body(format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>The app's request was refused · idreg</title></head><body><main>\
             <h1>The app's request was refused</h1><p>{}</p><p>Error code: <code>{}</code>. \
             Nothing was sent back to the app. Go back to it and connect again, or tell its \
             maker.</p></main></body></html>\n",
            escape(description),
            escape(error)
        ))
    } else {
        r.json(OAuthErrorBody {
            error: error.to_owned(),
            message: description.to_owned(),
            error_description: description.to_owned(),
        })
    }
}

/// The query of an authorization request, each parameter at most once (`resource` may
/// repeat); a repeated one is named for the checks to refuse.
fn params(query: &str) -> Result<AuthorizeParams, Failure> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
        .map_err(|_| Failure::bad_request("query", "is not a well-formed query string"))?;
    let mut p = AuthorizeParams::default();
    for (name, value) in pairs {
        domain::text::checked(&name, &value)?;
        if name == "resource" {
            p.resources.push(value);
            continue;
        }
        let slot = match name.as_str() {
            "response_type" => &mut p.response_type,
            "client_id" => &mut p.client_id,
            "redirect_uri" => &mut p.redirect_uri,
            "state" => &mut p.state,
            "scope" => &mut p.scope,
            "code_challenge" => &mut p.code_challenge,
            "code_challenge_method" => &mut p.code_challenge_method,
            "prompt" => &mut p.prompt,
            _ => continue,
        };
        if slot.replace(value).is_some() && p.repeated.is_none() {
            p.repeated = Some(name);
        }
    }
    Ok(p)
}

/// Starts an agent's connection (OAuth 2.1 authorization code with PKCE).
///
/// The person's browser is sent to the portal's consent page (`303 See Other`, `Location`:
/// the portal's `/connect/{id}`); they sign in there and decide, and the browser is sent on to
/// the client's redirect URI with `code`, `state` and `iss` (RFC 9207). A request naming an
/// unknown client, a redirect URI the client did not register, no
/// S256 code challenge, or a resource other than this service is refused here (400, a page,
/// or JSON when asked) and never redirected; other faults are sent to the client's redirect
/// URI with `error`, `state` and `iss`. Without a portal in the deployment, every request is
/// refused here.
#[utoipa::path(
    get,
    path = "/oauth/authorize",
    operation_id = "authorize",
    tag = "discovery",
    security(()),
    params(
        ("response_type" = String, Query, description = "`code`"),
        ("client_id" = String, Query, description = "A registered client's id, or the https URL of its metadata document"),
        ("redirect_uri" = Option<String>, Query, description = "One the client registered (a loopback one at any port)"),
        ("code_challenge" = String, Query, description = "PKCE: the S256 challenge"),
        ("code_challenge_method" = String, Query, description = "`S256`"),
        ("state" = Option<String>, Query, description = "Echoed back"),
        ("scope" = Option<String>, Query, description = "Scopes the client asks for; the person chooses"),
        ("resource" = Option<String>, Query, description = "RFC 8707: this origin or `<origin>/mcp` (the default)"),
        ("prompt" = Option<String>, Query, description = "`consent` and `login` are honoured; `none` is answered `consent_required`"),
    ),
    responses(
        (status = 400, description = "Refused without redirecting (a page for a browser, this body for `Accept: application/json`)", body = OAuthErrorBody),
    )
)]
pub async fn authorize(req: HttpRequest, services: AppServices) -> HttpResponse {
    let params = match params(req.query_string()) {
        Ok(p) => p,
        Err(f) => return shown(&req, StatusCode::BAD_REQUEST, "invalid_request", &f.message),
    };
    let consent = req.app_data::<web::Data<ConsentPage>>().cloned();
    if !consent.as_ref().is_some_and(|c| c.available()) {
        return shown(
            &req,
            StatusCode::BAD_REQUEST,
            "unsupported_response_type",
            "this deployment has no portal for people to sign in: tokens are issued by client credentials only",
        );
    }
    let issuer = origin(&req);
    match services
        .oauth
        .authorize(&params, &our_resources(&issuer), &issuer)
        .await
    {
        Ok(id) => match consent.and_then(|c| c.url(&id)) {
            Some(page) => see_other(&page),
            None => shown(
                &req,
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "the portal is not available",
            ),
        },
        Err(AuthorizeError::Refused(AuthorizeRefusal::Shown { error, description })) => {
            shown(&req, StatusCode::BAD_REQUEST, error, &description)
        }
        Err(AuthorizeError::Refused(AuthorizeRefusal::Redirected {
            redirect_uri,
            error,
            description,
            state,
        })) => see_other(&error_redirect(
            &redirect_uri,
            error,
            &description,
            state.as_deref(),
            &issuer,
        )),
        Err(AuthorizeError::Failed(f)) => {
            api_core::log_cause(&f, None);
            shown(
                &req,
                StatusCode::from_u16(f.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                "server_error",
                "the request could not be taken; try again",
            )
        }
    }
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish()
}

/// A registered client (RFC 7591 §3.2.1).
#[derive(Serialize, utoipa::ToSchema)]
pub struct RegisteredClientBody {
    pub client_id: String,
    /// Seconds since the epoch.
    pub client_id_issued_at: i64,
    /// Only for a confidential client (`client_secret_basic` or `client_secret_post`), shown
    /// this once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `0` (it does not expire) when a secret is issued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<i64>,
    pub client_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<&'static str>,
    pub response_types: Vec<&'static str>,
    pub token_endpoint_auth_method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

fn registration_error(f: &Failure) -> HttpResponse {
    api_core::log_cause(f, None);
    let mut r = HttpResponse::build(
        StatusCode::from_u16(f.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    );
    r.insert_header((header::CACHE_CONTROL, "no-store"));
    api_core::insert_retry_after(f, &mut r);
    r.json(OAuthErrorBody {
        error: f.code.as_str().to_owned(),
        message: f.message.clone(),
        error_description: f.message.clone(),
    })
}

/// Registers a client of the authorization-code flow (RFC 7591).
///
/// Anyone may register; registration grants nothing until a person consents. A public client
/// (`token_endpoint_auth_method` `none`) that sends the same metadata again gets the same
/// `client_id`; a confidential one gets a secret, shown once. Redirect URIs: https, http on a
/// loopback host (any port at request time), or an app's own scheme; grant types idreg does
/// not serve are dropped. Rate-limited per address; a registration no person consents to
/// within 24 hours lapses.
#[utoipa::path(
    post,
    path = "/oauth/register",
    operation_id = "register_client",
    tag = "discovery",
    security(()),
    request_body(description = "RFC 7591 client metadata", content = crate::request::RegisterRequestBody, content_type = "application/json"),
    responses(
        (status = 201, description = "The registered client", body = RegisteredClientBody),
        (status = 400, description = "`invalid_redirect_uri` or `invalid_client_metadata`", body = OAuthErrorBody),
        (status = 429, description = "`rate_limited`", body = OAuthErrorBody),
    )
)]
pub async fn register(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let body = match read_body(payload).await {
        Ok(b) => b,
        Err(f) => return registration_error(&f),
    };
    let metadata = match api_core::oauth::client_metadata(&body) {
        Ok(m) => m,
        Err(why) => {
            return registration_error(&Failure::new(domain::ErrorCode::InvalidClientMetadata, why))
        }
    };
    match services
        .oauth
        .register(&metadata, &request_context(&req))
        .await
    {
        Ok(registered) => {
            let c = registered.client;
            HttpResponse::Created()
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .insert_header((header::PRAGMA, "no-cache"))
                .json(RegisteredClientBody {
                    client_id_issued_at: c.created_at.timestamp(),
                    client_secret_expires_at: registered.secret.as_ref().map(|_| 0),
                    client_secret: registered.secret.map(|s| s.expose().to_owned()),
                    client_name: c.name.clone(),
                    client_uri: c.client_uri.clone(),
                    redirect_uris: c
                        .redirect_uris
                        .iter()
                        .map(|u| u.as_str().to_owned())
                        .collect(),
                    grant_types: c.grant_types.iter().map(|g| g.as_str()).collect(),
                    response_types: vec!["code"],
                    token_endpoint_auth_method: c.auth_method.as_str(),
                    scope: c.scope.clone(),
                    client_id: c.client_id,
                })
        }
        Err(f) => registration_error(&f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_parameter_is_named_and_resources_may_repeat() {
        let p = params("client_id=a&client_id=b&resource=x&resource=y").unwrap();
        assert_eq!(p.repeated.as_deref(), Some("client_id"));
        assert_eq!(p.resources, vec!["x".to_owned(), "y".to_owned()]);
        assert!(params("state=%00").is_err());
    }

    #[test]
    fn the_refusal_page_escapes_what_it_shows() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
