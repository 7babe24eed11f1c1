//! Bolagsverket "API för värdefulla datamängder" (VDM v1), under [`crate::VDM_PREFIX`].
//!
//! `POST /oauth2/token` (client credentials, form or HTTP Basic), `GET /isalive`,
//! `POST /organisationer`, `POST /dokumentlista`, `GET /dokument/{dokumentId}`.
//! Shapes follow Bolagsverket's OpenAPI 3.0.3 document and the recorded TEST responses,
//! including field order, the `dataproducent`/`fel` wrappers and SCB's padding of SNI
//! lists to five entries.

use crate::faults::{Source, Upstream};
use crate::state::{IssuedToken, SandboxState};
use crate::util::lock;
use crate::util::{luhn_valid, now_utc_seconds, random_uuid};
use crate::{CLIENT_ID, CLIENT_SECRET, VDM_PREFIX};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Scope for `/organisationer`, `/dokumentlista` and `/dokument`.
pub const SCOPE_READ: &str = "vardefulla-datamangder:read";
/// The paid company-information API's read scope. The gateway's token endpoint (here) grants
/// the scopes of both APIs it fronts, so it names them both; `foretagsinformation` takes its
/// scope from here.
pub const FORETAGSINFORMATION_SCOPE: &str = "foretagsinformation:read";
/// Scope for `/isalive`.
pub const SCOPE_PING: &str = "vardefulla-datamangder:ping";

mod answers;

use answers::{apply_field_fel, validate_field_fel};
pub use answers::{
    dokumentlista_svar, fel_beskrivning, organisationer_svar, OrganisationerSvar,
    BOLAGSVERKET_GROUPS, FEL_TYPER, FINNS_EJ_BOLAGSVERKET, FINNS_EJ_SCB, SCB_GROUPS,
};

/// VDM's data routes as the fault injector sees them.
pub(crate) const DATA: Upstream = Upstream {
    source: Source::Bolagsverket,
    error: server_error,
    field_fel: Some(validate_field_fel),
};

/// VDM's token endpoint as the fault injector sees it.
pub(crate) const TOKEN: Upstream = Upstream {
    source: Source::BolagsverketToken,
    error: token_error,
    field_fel: None,
};

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(VDM_PREFIX)
            .route("/oauth2/token", web::post().to(token))
            .route("/isalive", web::get().to(isalive))
            .route("/organisationer", web::post().to(organisationer))
            .route("/dokumentlista", web::post().to(dokumentlista))
            .route("/dokument/{dokumentId}", web::get().to(dokument)),
    );
}

// ---------------------------------------------------------------------------------------
// Errors (RFC 7807 `ApiError`)
// ---------------------------------------------------------------------------------------

#[derive(Serialize)]
struct ApiError {
    r#type: &'static str,
    instance: &'static str,
    status: u16,
    title: &'static str,
    detail: String,
    #[serde(rename = "requestId")]
    request_id: Option<String>,
    timestamp: Option<String>,
}

pub(crate) fn request_id_header(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

pub(crate) fn with_request_id(mut resp: HttpResponse, req: &HttpRequest) -> HttpResponse {
    if let Some(v) = req.headers().get("x-request-id") {
        resp.headers_mut()
            .insert(header::HeaderName::from_static("x-request-id"), v.clone());
    }
    resp
}

fn api_error(
    status: StatusCode,
    r#type: &'static str,
    instance: &'static str,
    detail: &str,
    req: &HttpRequest,
) -> HttpResponse {
    let body = ApiError {
        r#type,
        instance,
        status: status.as_u16(),
        title: status.canonical_reason().unwrap_or("Error"),
        detail: detail.to_owned(),
        request_id: Some(request_id_header(req).unwrap_or_else(random_uuid)),
        timestamp: Some(now_utc_seconds()),
    };
    with_request_id(HttpResponse::build(status).json(body), req)
}

fn bad_request(detail: &str, req: &HttpRequest) -> HttpResponse {
    api_error(
        StatusCode::BAD_REQUEST,
        "about:blank",
        "client.error",
        detail,
        req,
    )
}

/// The 5xx answer of the gateway (used by fault injection).
/// The token endpoint's answer when it fails (RFC 6749 error shape).
fn token_error(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    HttpResponse::build(status).json(serde_json::json!({
        "error": "temporarily_unavailable",
        "error_description": "The authorization server is currently unable to handle the request."
    }))
}

pub(crate) fn server_error(status: StatusCode, req: &HttpRequest) -> HttpResponse {
    match status.as_u16() {
        504 => api_error(
            status,
            "urn:bolagsverket:error:network",
            "network.timeout",
            "Tidsgränsen för anropet överskreds.",
            req,
        ),
        502 | 503 => api_error(
            status,
            "urn:bolagsverket:error:network",
            "network.error",
            "Tjänsten är för tillfället inte tillgänglig.",
            req,
        ),
        _ => api_error(
            status,
            "about:blank",
            "server.error",
            "Ett ohanterat fel har uppstått.",
            req,
        ),
    }
}

fn unauthorized(req: &HttpRequest) -> HttpResponse {
    let body = ApiError {
        r#type: "about:blank",
        instance: "client.error",
        status: 401,
        title: "Unauthorized",
        detail: "Anroparen saknar giltiga autentiseringsuppgifter.".into(),
        request_id: request_id_header(req),
        timestamp: None,
    };
    with_request_id(
        HttpResponse::Unauthorized()
            .insert_header((
                header::WWW_AUTHENTICATE,
                "Bearer realm=\"vardefulla-datamangder\", error=\"invalid_token\"",
            ))
            .json(body),
        req,
    )
}

fn forbidden(req: &HttpRequest) -> HttpResponse {
    api_error(
        StatusCode::FORBIDDEN,
        "about:blank",
        "client.error",
        "Anroparen saknar behörighet till resursen.",
        req,
    )
}

// ---------------------------------------------------------------------------------------
// OAuth2
// ---------------------------------------------------------------------------------------

fn oauth_error(status: StatusCode, error: &str, description: &str) -> HttpResponse {
    let mut b = HttpResponse::build(status);
    b.insert_header((header::CACHE_CONTROL, "no-store"));
    if status == StatusCode::UNAUTHORIZED {
        b.insert_header((header::WWW_AUTHENTICATE, "Basic realm=\"oauth2\""));
    }
    b.json(serde_json::json!({ "error": error, "error_description": description }))
}

fn basic_credentials(req: &HttpRequest) -> Option<(String, String)> {
    let v = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = v.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(rest.trim())
        .ok()?;
    let s = String::from_utf8(raw).ok()?;
    let (id, secret) = s.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

async fn token(state: web::Data<SandboxState>, req: HttpRequest, body: web::Bytes) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(
            &TOKEN,
            &req,
            move |_| async move { issue_token(&st, &r, &body) },
        )
        .await
}

fn issue_token(state: &SandboxState, req: &HttpRequest, body: &[u8]) -> HttpResponse {
    let text = std::str::from_utf8(body).unwrap_or("");
    let form: HashMap<String, String> = web::Query::<HashMap<String, String>>::from_query(text)
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let creds = basic_credentials(req).or_else(|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    });
    match creds {
        Some((id, secret)) if id == CLIENT_ID && secret == CLIENT_SECRET => {}
        _ => {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client Authentication failed.",
            )
        }
    }
    match form.get("grant_type").map(String::as_str) {
        Some("client_credentials") => {}
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "Unsupported grant_type value",
            )
        }
    }
    let mut scopes: Vec<String> = form
        .get("scope")
        .map(|s| {
            s.split_whitespace()
                .filter(|x| *x == SCOPE_READ || *x == SCOPE_PING || *x == FORETAGSINFORMATION_SCOPE)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    scopes.dedup();
    let scope_text = if scopes.is_empty() {
        "default".to_owned()
    } else {
        scopes.join(" ")
    };
    let access_token = random_uuid();
    let ttl = state.token_ttl;
    lock(&state.tokens).insert(
        access_token.clone(),
        IssuedToken {
            expires_at: Instant::now() + ttl,
            scopes,
        },
    );
    let expires_in = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(serde_json::json!({
            "access_token": access_token,
            "scope": scope_text,
            "token_type": "Bearer",
            "expires_in": expires_in,
        }))
}

/// Checks the bearer token and its scope.
pub(crate) fn authorize(
    state: &SandboxState,
    req: &HttpRequest,
    scope: &str,
) -> Result<(), Box<HttpResponse>> {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| rest.trim().to_owned())
        })
        .ok_or_else(|| Box::new(unauthorized(req)))?;
    let mut tokens = lock(&state.tokens);
    let issued = match tokens.get(&token) {
        Some(t) if t.expires_at > Instant::now() => t.clone(),
        Some(_) => {
            tokens.remove(&token);
            return Err(Box::new(unauthorized(req)));
        }
        None => return Err(Box::new(unauthorized(req))),
    };
    drop(tokens);
    if state.enforce_scopes && !issued.scopes.iter().any(|s| s == scope) {
        return Err(Box::new(forbidden(req)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

async fn isalive(state: web::Data<SandboxState>, req: HttpRequest) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_PING) {
                return *resp;
            }
            HttpResponse::Ok().content_type("text/plain").body("OK")
        })
        .await
}

/// Validates an identitetsbeteckning as the service does: the spec pattern, then the
/// Luhn check digit. Returns the 400 `detail` on failure.
pub fn validate_identitetsbeteckning(id: &str) -> Result<(), &'static str> {
    const FORMAT: &str = "Identitetsbeteckning har felaktigt format.";
    if !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FORMAT);
    }
    match id.len() {
        10 => {}
        11 if id.starts_with("302") => return Ok(()),
        12 => {
            let b = id.as_bytes();
            let century_ok = &id[..2] == "19" || &id[..2] == "20";
            let month: u32 = id[4..6].parse().unwrap_or(0);
            let (d1, d2) = (b[6], b[7]);
            let day_ok = match d1 {
                b'0' | b'6' => d2 != b'0',
                b'1' | b'2' | b'7' | b'8' => true,
                b'3' | b'9' => d2 == b'0' || d2 == b'1',
                _ => false,
            };
            if !century_ok || !(1..=12).contains(&month) || !day_ok {
                return Err(FORMAT);
            }
        }
        _ => return Err(FORMAT),
    }
    if luhn_valid(id) {
        Ok(())
    } else {
        Err("Identitetsbeteckning har ogiltig kontrollsiffra.")
    }
}

/// Reads `{"identitetsbeteckning": "..."}`; on error the 400 response.
fn read_identitetsbeteckning(body: &[u8], req: &HttpRequest) -> Result<String, Box<HttpResponse>> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| Box::new(bad_request("JSON parse error", req)))?;
    let id = v
        .get("identitetsbeteckning")
        .and_then(|x| x.as_str())
        .ok_or_else(|| Box::new(bad_request("Identitetsbeteckning saknas i begäran.", req)))?;
    validate_identitetsbeteckning(id).map_err(|d| Box::new(bad_request(d, req)))?;
    Ok(id.to_owned())
}

async fn organisationer(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |ff| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let id = match read_identitetsbeteckning(&body, &r) {
                Ok(id) => id,
                Err(resp) => return *resp,
            };
            let mut svar = organisationer_svar(&st.read(), &id);
            if let Some(ff) = ff {
                apply_field_fel(&mut svar, &ff);
            }
            with_request_id(HttpResponse::Ok().json(svar), &r)
        })
        .await
}

async fn dokumentlista(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let id = match read_identitetsbeteckning(&body, &r) {
                Ok(id) => id,
                Err(resp) => return *resp,
            };
            let svar = dokumentlista_svar(st.read().company(&id));
            with_request_id(HttpResponse::Ok().json(svar), &r)
        })
        .await
}

async fn dokument(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    let id = path.into_inner();
    state
        .faults
        .guarded(&DATA, &req, move |_| async move {
            if let Err(resp) = authorize(&st, &r, SCOPE_READ) {
                return *resp;
            }
            let zip = {
                let ds = st.read();
                ds.document(&id)
                    .map(|(c, rep)| crate::annual_report::package(c, rep))
            };
            match zip {
                Some(Ok(bytes)) => with_request_id(
                    HttpResponse::Ok()
                        .content_type("application/zip")
                        .insert_header((
                            header::CONTENT_DISPOSITION,
                            HeaderValue::from_str(&format!("attachment; filename=\"{id}.zip\""))
                                .unwrap_or(HeaderValue::from_static("attachment")),
                        ))
                        .body(bytes),
                    &r,
                ),
                Some(Err(e)) => {
                    tracing::error!(error = %e, "building the annual report package failed");
                    server_error(StatusCode::INTERNAL_SERVER_ERROR, &r)
                }
                None => api_error(
                    StatusCode::NOT_FOUND,
                    "about:blank",
                    "client.error",
                    "Dokument kunde inte hittas.",
                    &r,
                ),
            }
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identitetsbeteckning_rules() {
        assert!(validate_identitetsbeteckning("5560021361").is_ok());
        assert!(validate_identitetsbeteckning("198101052382").is_ok());
        assert_eq!(
            validate_identitetsbeteckning("5560021362"),
            Err("Identitetsbeteckning har ogiltig kontrollsiffra.")
        );
        assert!(validate_identitetsbeteckning("556002-1361").is_err());
        assert!(validate_identitetsbeteckning("191313121212").is_err());
        assert!(validate_identitetsbeteckning("12345").is_err());
    }
}
