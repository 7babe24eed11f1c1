#![doc = include_str!("../README.md")]

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{read_body, AppServices, ErrorBody, JsonBody};
use domain::portal::service::PortalCaller;
use domain::portal::sign_in::{LINK_LIFETIME, SESSION_LIFETIME};
use domain::{ErrorCode, Failure};
use serde_json::{json, Value};

pub mod assistant;
mod assistant_page;
mod connect;
mod page;
mod pages;
mod views;

/// The binding cookie: which browser asked for a link.
pub const BINDING_COOKIE: &str = "idreg_portal_binding";
/// The session cookie.
pub const SESSION_COOKIE: &str = "idreg_portal_session";
/// The header a write carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The portal's origin (`https://portal.example.com`, no trailing slash): the configured
/// `IDREG_PORTAL_URL`, or the loopback address the demo's listener is bound to. It alone names
/// the mailed link's origin, decides the cookies' `Secure` flag and is the origin a write's
/// `Origin` must name; nothing a request sends (`Host`, `X-Forwarded-Host`, `Forwarded`,
/// `X-Forwarded-Proto`) is ever read for any of them.
#[derive(Clone, Debug)]
pub struct PortalOrigin(String);

impl PortalOrigin {
    /// An origin already checked to be `scheme://host[:port]`
    /// ([`api_core::discovery::checked_origin`]).
    pub fn new(origin: &str) -> Result<PortalOrigin, String> {
        api_core::discovery::checked_origin(origin).map(PortalOrigin)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Registers the portal's pages and JSON routes. Everything else on the listener is a JSON
/// 404.
pub fn configure(cfg: &mut web::ServiceConfig) {
    pages::configure(cfg);
    assistant::configure(cfg);
    assistant_page::configure(cfg);
    cfg.route("/v1/portal/sign-in", web::post().to(sign_in))
        .route("/v1/portal/sign-in/complete", web::post().to(complete))
        .route("/v1/portal/session", web::get().to(session))
        .route("/v1/portal/sign-out", web::post().to(sign_out));
}

/// The portal's answer to a path it does not serve (consumer routes included).
pub async fn not_found() -> HttpResponse {
    fail(&Failure::new(ErrorCode::NotFound, "no such portal route"))
}

fn fail(f: &Failure) -> HttpResponse {
    api_core::log_cause(f, None);
    let mut r = HttpResponse::build(
        StatusCode::from_u16(f.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    );
    api_core::insert_retry_after(f, &mut r);
    r.json(ErrorBody::of(f))
}

/// The portal's origin ([`PortalOrigin`], app data the binary always sets). A portal served
/// without it is a wiring fault: every write and every link fails, never falling back to a
/// request's header.
pub(crate) fn origin(req: &HttpRequest) -> Result<String, Failure> {
    req.app_data::<web::Data<PortalOrigin>>()
        .map(|d| d.get_ref().0.clone())
        .ok_or_else(|| Failure::internal("the portal is served without its origin"))
}

pub(crate) fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

pub(crate) fn set_cookie(req: &HttpRequest, name: &str, value: &str, max_age: i64) -> String {
    let secure = if origin(req).is_ok_and(|o| o.starts_with("https://")) {
        "; Secure"
    } else {
        ""
    };
    format!("{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}")
}

/// A write must come from the portal's own pages: an `Origin` header, when sent, names it.
pub(crate) fn same_origin(req: &HttpRequest) -> Result<(), Failure> {
    match req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
    {
        Some(o) if o.trim_end_matches('/') != origin(req)? => Err(Failure::new(
            ErrorCode::Forbidden,
            "the request comes from another origin than the portal's",
        )),
        _ => Ok(()),
    }
}

async fn json_field(payload: web::Payload, field: &str) -> Result<String, Failure> {
    JsonBody::parse(&read_body(payload).await?)?.required_str(field)
}

fn session_json(c: &PortalCaller) -> Value {
    let s = &c.session;
    json!({
        "portal_user_id": s.user_id.to_string(),
        "email": s.email.as_str(),
        "tenant_id": s.tenant_id.to_string(),
        "role": s.role.as_str(),
        "signed_in_at": api_core::dto::timestamp(s.created_at),
        "expires_at": api_core::dto::timestamp(s.expires_at),
        "csrf_token": c.csrf,
    })
}

/// `POST /v1/portal/sign-in` `{email}`.
async fn sign_in(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    let answer = async {
        same_origin(&req)?;
        let email = json_field(payload, "email").await?;
        services
            .portal_sign_in
            .request_link(
                &api_core::request_context(&req),
                &email,
                cookie(&req, BINDING_COOKIE).as_deref(),
                &origin(&req)?,
            )
            .await
    }
    .await;
    match answer {
        Ok(requested) => HttpResponse::Accepted()
            .insert_header((
                header::SET_COOKIE,
                set_cookie(&req, BINDING_COOKIE, &requested.binding, LINK_LIFETIME.num_seconds()),
            ))
            .json(json!({
                "message": "If the address is a portal user's, a sign-in link is on its way. It works once, for 15 minutes, in this browser."
            })),
        Err(f) => fail(&f),
    }
}

/// `POST /v1/portal/sign-in/complete` `{link}`.
async fn complete(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    let answer = async {
        same_origin(&req)?;
        let link = json_field(payload, "link").await?;
        services
            .portal_sign_in
            .redeem(
                &api_core::request_context(&req),
                &link,
                cookie(&req, BINDING_COOKIE).as_deref(),
            )
            .await
    }
    .await;
    match answer {
        Ok(signed) => {
            let caller = PortalCaller {
                session: signed.session,
                csrf: signed.csrf,
            };
            HttpResponse::Ok()
                .insert_header((
                    header::SET_COOKIE,
                    set_cookie(
                        &req,
                        SESSION_COOKIE,
                        &signed.session_token,
                        SESSION_LIFETIME.num_seconds(),
                    ),
                ))
                .json(session_json(&caller))
        }
        Err(f) => fail(&f),
    }
}

/// `GET /v1/portal/session`.
async fn session(req: HttpRequest, services: AppServices) -> HttpResponse {
    match services
        .portal_sign_in
        .caller(cookie(&req, SESSION_COOKIE).as_deref())
        .await
    {
        Ok(c) => HttpResponse::Ok().json(session_json(&c)),
        Err(f) => fail(&f),
    }
}

/// `POST /v1/portal/sign-out`: a write, so it carries the session's CSRF token.
async fn sign_out(req: HttpRequest, services: AppServices) -> HttpResponse {
    let token = cookie(&req, SESSION_COOKIE);
    let answer = async {
        same_origin(&req)?;
        let caller = services.portal_sign_in.caller(token.as_deref()).await?;
        let presented = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        services.portal_sign_in.check_csrf(&caller, presented)?;
        services
            .portal_sign_in
            .sign_out(&api_core::request_context(&req), &caller, token.as_deref())
            .await
    }
    .await;
    match answer {
        Ok(()) => HttpResponse::NoContent()
            .insert_header((header::SET_COOKIE, set_cookie(&req, SESSION_COOKIE, "", 0)))
            .finish(),
        Err(f) => fail(&f),
    }
}
