//! What every portal page shares: the headers a page carries, rendering, the redirect, the
//! navigation, the problem page, a form read under the client-text rule, the session's
//! caller, and a write's checks (session, origin, CSRF). The pages (`pages`) and the consent
//! page (`connect`) both use them.

use crate::views::{Nav, ProblemPage};
use crate::{cookie, same_origin, SESSION_COOKIE};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{read_body, AppServices};
use askama::Template;
use chrono::{DateTime, Utc};
use domain::portal::service::PortalCaller;
use domain::{ErrorCode, Failure};

/// Headers every page carries: no caching (pages hold a tenant's data and secrets), a
/// referrer only to the portal itself (a sign-in link's address must not leak elsewhere; with
/// `no-referrer` a browser sends `Origin: null` on the portal's own form posts, which the
/// origin check refuses), no framing, nothing run but the page.
pub(crate) fn page(status: StatusCode, body: Result<String, askama::Error>) -> HttpResponse {
    with_policy(
        status,
        body,
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
         frame-ancestors 'none'; base-uri 'none'",
    )
}

/// The one page that runs a script (the Assistant's): as [`page`], and its own script from
/// the portal's origin, which may fetch from that origin alone.
pub(crate) fn page_with_script(
    status: StatusCode,
    body: Result<String, askama::Error>,
) -> HttpResponse {
    with_policy(
        status,
        body,
        "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; \
         connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
}

fn with_policy(
    status: StatusCode,
    body: Result<String, askama::Error>,
    policy: &'static str,
) -> HttpResponse {
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(error = %e, "a portal page failed to render");
            return HttpResponse::InternalServerError()
                .content_type("text/plain; charset=utf-8")
                .body("The page could not be shown.");
        }
    };
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::CONTENT_SECURITY_POLICY, policy))
        .body(body)
}

pub(crate) fn render(t: &impl Template) -> HttpResponse {
    page(StatusCode::OK, t.render())
}

pub(crate) fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

pub(crate) fn nav(c: &PortalCaller) -> Nav {
    Nav {
        email: c.session.email.as_str().to_owned(),
        role: c.session.role.as_str(),
        tenant_id: c.session.tenant_id.to_string(),
        csrf: c.csrf.clone(),
    }
}

/// The page of a failure; a missing session sends the browser to sign in.
pub(crate) fn problem(f: &Failure, caller: Option<&PortalCaller>, back: &str) -> HttpResponse {
    if f.code == ErrorCode::Unauthorized {
        return see_other("/sign-in");
    }
    api_core::log_cause(f, None);
    let status = StatusCode::from_u16(f.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    page(
        status,
        ProblemPage {
            title: "That did not work",
            nav: caller.map(nav),
            status: status.as_u16(),
            code: f.code.as_str(),
            message: f.message.clone(),
            back: back.to_owned(),
        }
        .render(),
    )
}

pub(crate) fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// A form body (`application/x-www-form-urlencoded`), fields in order; a field named twice
/// (checkboxes) keeps each value.
pub(crate) struct Form(Vec<(String, String)>);

impl Form {
    /// The form, each field passing the client-text rule (`domain::text`) before anything
    /// reads it.
    pub(crate) async fn read(payload: web::Payload) -> Result<Form, Failure> {
        let body = read_body(payload).await?;
        let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(&body)
            .map_err(|_| Failure::bad_request("body", "is not a form"))?;
        for (name, value) in &fields {
            domain::text::checked("body", name)?;
            domain::text::checked(name, value)?;
        }
        Ok(Form(fields))
    }

    /// A form of these fields, as a test would post it.
    #[cfg(test)]
    pub(crate) fn of(fields: &[(&str, &str)]) -> Form {
        Form(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    pub(crate) fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// Every value of `name`, space-separated.
    pub(crate) fn all(&self, name: &str) -> String {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

pub(crate) async fn caller(
    req: &HttpRequest,
    services: &AppServices,
) -> Result<PortalCaller, Failure> {
    services
        .portal_sign_in
        .caller(cookie(req, SESSION_COOKIE).as_deref())
        .await
}

/// A write's caller and form: a live session, the portal's origin and the session's CSRF
/// token, checked before the form's fields are read by anyone.
pub(crate) async fn write(
    req: &HttpRequest,
    payload: web::Payload,
    services: &AppServices,
) -> Result<(PortalCaller, Form), Failure> {
    same_origin(req)?;
    let caller = caller(req, services).await?;
    let form = Form::read(payload).await?;
    services
        .portal_sign_in
        .check_csrf(&caller, Some(form.get("csrf")))?;
    Ok((caller, form))
}

/// A page's query string, each value passing the client-text rule, or 400 naming it.
pub(crate) fn query<T: serde::de::DeserializeOwned>(req: &HttpRequest) -> Result<T, Failure> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(req.query_string())
        .map_err(|_| Failure::bad_request("query", "is not this page's query"))?;
    for (name, value) in &pairs {
        domain::text::checked("query", name)?;
        domain::text::checked(name, value)?;
    }
    serde_urlencoded::from_str(req.query_string())
        .map_err(|_| Failure::bad_request("query", "is not this page's query"))
}
