//! Agents connecting as people do: the consent page an app's authorization request leads to
//! (`/connect/{id}`), the decision, and revoking a connection. The rules are the use case's
//! (`domain::oauth::service::OAuthService`); these handlers only carry them.
//!
//! An app's request reaches the portal by a redirect from another site, so the session
//! cookie (SameSite=Strict) is not sent with it: without one, the page moves the browser on
//! from the portal itself (a same-site navigation, which carries the cookie); a browser with
//! no session is sent to sign in, and back here after (`NEXT_COOKIE`).

use crate::page::{caller, day, nav, page, problem, render, see_other, write, Form};
use crate::views::{ConnectionView, ConsentPage, ContinuePage};
use crate::{cookie, set_cookie};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{request_context, AppServices};
use askama::Template;
use domain::access::grant::GrantLapse;
use domain::oauth::client::RedirectUri;
use domain::oauth::consent::ConsentChoice;
use domain::portal::service::PortalCaller;
use domain::portal::user::PortalRole;
use domain::{ErrorCode, Failure};

/// The cookie that brings a browser back to a consent page after signing in.
pub const NEXT_COOKIE: &str = "idreg_portal_next";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/connect/{id}", web::get().to(connect_page))
        .route("/connect/{id}", web::post().to(consent))
        .route("/connect/{id}/refuse", web::post().to(refuse))
        .route("/connections/{id}/revoke", web::post().to(revoke));
}

/// Whether `id` has the shape of a request id (`ar_` and base64url), so that it may go into
/// a path, a cookie and a page.
fn request_id(id: &str) -> Result<&str, Failure> {
    let ok = id.len() <= 64
        && id.strip_prefix("ar_").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if ok {
        Ok(id)
    } else {
        Err(Failure::new(
            ErrorCode::NotFound,
            "this connection request has expired or was already decided: start again from the app",
        ))
    }
}

/// The consent page's path, when a cookie or query names a well-formed one.
pub(crate) fn next_after_sign_in(req: &HttpRequest) -> Option<String> {
    let next = cookie(req, NEXT_COOKIE)?;
    let id = next.strip_prefix("/connect/")?;
    request_id(id).ok().map(|id| format!("/connect/{id}"))
}

/// Sends the browser to sign in, to come back to `path` after.
fn sign_in_then(req: &HttpRequest, path: &str) -> HttpResponse {
    let mut r = see_other("/sign-in");
    if let Ok(v) = header::HeaderValue::from_str(&set_cookie(req, NEXT_COOKIE, path, 15 * 60)) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

#[derive(serde::Deserialize)]
struct ContinueQuery {
    #[serde(default, rename = "continue")]
    moved_on: Option<String>,
}

/// `GET /connect/{id}`: the consent page.
async fn connect_page(
    req: HttpRequest,
    path: web::Path<String>,
    services: AppServices,
) -> HttpResponse {
    let id = match request_id(&path) {
        Ok(id) => id.to_owned(),
        Err(f) => return problem(&f, None, "/"),
    };
    let here = format!("/connect/{id}");
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(_) => {
            let moved_on = crate::page::query::<ContinueQuery>(&req)
                .ok()
                .and_then(|q| q.moved_on)
                .is_some();
            return if moved_on {
                sign_in_then(&req, &here)
            } else {
                render(&ContinuePage {
                    title: "Connect an app",
                    nav: None,
                    next: format!("{here}?continue=1"),
                })
            };
        }
    };
    match services
        .oauth
        .review(&request_context(&req), &caller, &id)
        .await
    {
        Ok(review) => {
            let redirect = RedirectUri::parse(&review.pending.request.redirect_uri).ok();
            let asked: Vec<&'static str> = review.pending.request.scopes.names();
            let page_html = ConsentPage {
                title: "Connect an app",
                nav: Some(nav(&caller)),
                csrf: caller.csrf.clone(),
                request_id: id.clone(),
                client_name: review.client.name.clone(),
                client_host: review.client.id_host(),
                redirect_host: redirect
                    .as_ref()
                    .map(|r| r.shown_host())
                    .unwrap_or_default(),
                loopback: redirect.as_ref().is_some_and(|r| r.is_loopback()),
                resource: review.pending.request.resource.clone(),
                asked,
                scope_choices: review
                    .allowed
                    .iter()
                    .map(|s| {
                        (
                            s.as_str(),
                            domain::oauth::consent::plain_words(s),
                            review.proposed.contains(s),
                            review.pending.request.scopes.contains(s),
                        )
                    })
                    .collect(),
                countries: review.tenant.provisioned.codes(),
                tenant_name: review.tenant.name.clone(),
                member: caller.session.role == PortalRole::Member,
            }
            .render();
            let mut r = page(StatusCode::OK, page_html);
            // The decision's answer is a redirect to the app: the page's forms may lead there.
            if let Some(source) = redirect.as_ref().and_then(form_source) {
                if let Ok(v) = header::HeaderValue::from_str(&format!(
                    "default-src 'none'; style-src 'self'; img-src 'self'; \
                     form-action 'self' {source}; frame-ancestors 'none'; base-uri 'none'"
                )) {
                    r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
                }
            }
            r
        }
        Err(f) if f.code == ErrorCode::Unauthorized => sign_in_then(&req, &here),
        Err(f) => problem(&f, Some(&caller), "/grants"),
    }
}

/// The CSP source naming where a redirect URI leads: its origin (`https://host:port`), or
/// an app's own scheme (`cursor:`).
fn form_source(uri: &RedirectUri) -> Option<String> {
    let url = url::Url::parse(uri.as_str()).ok()?;
    match url.scheme() {
        "http" | "https" => Some(url.origin().ascii_serialization()),
        scheme => Some(format!("{scheme}:")),
    }
}

async fn decide(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
    id: &str,
    allow: bool,
) -> HttpResponse {
    let (caller, form) = match write(&req, payload, &services).await {
        Ok(w) => w,
        Err(f) if f.code == ErrorCode::Unauthorized => {
            return sign_in_then(&req, &format!("/connect/{id}"))
        }
        Err(f) => return problem(&f, None, "/grants"),
    };
    let choice = allow.then(|| choice(&form));
    match services
        .oauth
        .decide(&request_context(&req), &caller, id, choice.as_ref())
        .await
    {
        Ok(location) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, location))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::REFERRER_POLICY, "no-referrer"))
            .finish(),
        Err(f) => problem(&f, Some(&caller), &format!("/connect/{id}")),
    }
}

fn choice(form: &Form) -> ConsentChoice {
    ConsentChoice {
        scopes: form.all("scopes"),
        countries: form.all("countries"),
        test: form.get("mode") == "test",
    }
}

/// `POST /connect/{id}`: the person allows the connection, with what they chose.
async fn consent(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    match request_id(&path) {
        Ok(id) => decide(req.clone(), payload, services, id, true).await,
        Err(f) => problem(&f, None, "/grants"),
    }
}

/// `POST /connect/{id}/refuse`: the person refuses; the app is told `access_denied`.
async fn refuse(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    match request_id(&path) {
        Ok(id) => decide(req.clone(), payload, services, id, false).await,
        Err(f) => problem(&f, None, "/grants"),
    }
}

/// `POST /connections/{id}/revoke`.
async fn revoke(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let (caller, _) = match write(&req, payload, &services).await {
        Ok(w) => w,
        Err(f) => return problem(&f, None, "/grants"),
    };
    match services
        .oauth
        .revoke_connection(&request_context(&req), &caller, &path)
        .await
    {
        Ok(_) => see_other("/grants"),
        Err(f) => problem(&f, Some(&caller), "/grants"),
    }
}

/// The tenant's connections as the grants page lists them.
pub(crate) async fn connection_views(
    services: &AppServices,
    caller: &PortalCaller,
) -> Result<Vec<ConnectionView>, Failure> {
    let connections = services.oauth.connections(caller).await?;
    let users = services.portal_console.users(caller).await?;
    let now = services.clock.now();
    Ok(connections
        .into_iter()
        .map(|(c, g)| {
            let state = match g.lapse(now) {
                Some(GrantLapse::Revoked) => "revoked",
                Some(GrantLapse::Expired) => "expired",
                None => "active",
            };
            let host = url::Url::parse(&c.client_id)
                .ok()
                .filter(|u| u.scheme() == "https")
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| format!("registered here ({})", c.client_id));
            ConnectionView {
                grant_id: g.id.to_string(),
                client_name: c.client_name.clone(),
                client_host: host,
                consented_by: users.iter().find(|u| u.id == c.consented_by).map_or_else(
                    || c.consented_by.to_string(),
                    |u| u.email.as_str().to_owned(),
                ),
                state,
                mode: if g.client_id.is_test() {
                    "test"
                } else {
                    "live"
                },
                scopes: g.scopes.names().join(" "),
                countries: g.countries.codes().join(", "),
                created: day(c.created_at),
                expires: g.expires_at.map_or_else(|| "never".to_owned(), day),
                revocable: caller.session.role == PortalRole::Admin
                    || c.consented_by == caller.session.user_id,
            }
        })
        .collect())
}
