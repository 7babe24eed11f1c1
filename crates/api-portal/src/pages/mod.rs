//! The portal's server-rendered pages (`docs/decisions.md`, "The tenant portal").
//!
//! Every page needs a live session (its cookie); without one a page sends the browser to
//! `/sign-in`. Every write is a form POST carrying the session's CSRF token (`csrf`) and, when
//! the browser sends one, the portal's own `Origin`; it answers with a redirect to the page it
//! changed (post/redirect/get), or with a page that shows a secret once, or with the problem.
//! Each handler is thin: the rule lives in the use case it calls (`PortalConsole`,
//! `PortalSignIn`).
//!
//! This file registers the pages and holds what they share; each page is a file of its own
//! (`sign_in`, `grants`, `usage`, `audit`, `screening`, `whitelist`, `users`) with its unit
//! tests, and names the black-box tests that drive it over HTTP (every page, and the CSRF
//! and origin checks of every write, in `tests/blackbox/portal_pages.rs`).

use crate::page::{caller, problem, see_other, write, Form};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{request_context, AppServices};
use domain::access::audit::RequestContext;
use domain::access::tenant::TenantMode;
use domain::portal::console::PortalConsole;
use domain::portal::service::PortalCaller;
use domain::portal::user::PortalUser;
use domain::Failure;

mod audit;
mod grants;
mod screening;
mod sign_in;
mod usage;
mod users;
mod whitelist;

/// Registers the pages and the stylesheet.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/assets/portal.css", web::get().to(stylesheet))
        .route("/sign-in", web::get().to(sign_in::sign_in_page))
        .route("/sign-in", web::post().to(sign_in::sign_in))
        .route("/sign-in/complete", web::get().to(sign_in::complete_page))
        .route("/sign-in/complete", web::post().to(sign_in::complete))
        .route("/sign-out", web::post().to(sign_in::sign_out))
        .route("/grants", web::get().to(grants::grants))
        .route("/grants", web::post().to(grants::create_grant))
        .route("/grants/{id}", web::post().to(grants::update_grant))
        .route("/grants/{id}/rotate", web::post().to(grants::rotate_grant))
        .route("/grants/{id}/revoke", web::post().to(grants::revoke_grant))
        .route("/usage", web::get().to(usage::usage))
        .route("/audit", web::get().to(audit::audit))
        .route("/screening", web::get().to(screening::checks))
        .route("/screening/{id}", web::get().to(screening::check))
        .route("/whitelist", web::get().to(whitelist::whitelist))
        .route("/whitelist", web::post().to(whitelist::propose))
        .route(
            "/whitelist/{id}/approve",
            web::post().to(whitelist::approve),
        )
        .route(
            "/whitelist/{id}/revoke",
            web::post().to(whitelist::revoke_entry),
        )
        .route("/users", web::get().to(users::users))
        .route("/users", web::post().to(users::add_user))
        .route("/users/{id}/disable", web::post().to(users::disable_user));
    crate::connect::configure(cfg);
}

const STYLESHEET: &str = include_str!("../../assets/portal.css");

/// A console write from a form: the session, the portal's origin and the session's CSRF
/// token checked ([`write`]), then `act`, which answers the page (or redirect) to send; a
/// failure is the problem page, with a way back to `back`.
pub(super) async fn console_write<A>(
    req: &HttpRequest,
    payload: web::Payload,
    services: &AppServices,
    back: &str,
    act: A,
) -> HttpResponse
where
    A: AsyncFnOnce(
        &PortalConsole,
        &RequestContext,
        &PortalCaller,
        &Form,
    ) -> Result<HttpResponse, Failure>,
{
    let (caller, form) = match write(req, payload, services).await {
        Ok(w) => w,
        Err(f) => return problem(&f, None, back),
    };
    match act(
        &services.portal_console,
        &request_context(req),
        &caller,
        &form,
    )
    .await
    {
        Ok(page) => page,
        Err(f) => problem(&f, Some(&caller), back),
    }
}

async fn home(req: HttpRequest, services: AppServices) -> HttpResponse {
    match caller(&req, &services).await {
        Ok(_) => see_other("/grants"),
        Err(_) => see_other("/sign-in"),
    }
}

async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "max-age=300"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(STYLESHEET)
}

/// The query of a page that reads the live tenant's data or its test twin's.
#[derive(serde::Deserialize, Default)]
pub(super) struct ModeQuery {
    #[serde(default)]
    mode: String,
}

/// `mode` (a tenant mode's name, `live` when empty): whether the test twin is asked for.
pub(super) fn mode(value: &str) -> Result<bool, Failure> {
    match value.trim() {
        "" => Ok(false),
        named => TenantMode::parse(named)
            .map(|m| m == TenantMode::Test)
            .ok_or_else(|| Failure::bad_request("mode", "must be live or test")),
    }
}

/// A portal user named in a row (by id) as the tenant's pages show them: by address; any
/// other actor (an operator's name, a user since gone) as written.
pub(super) fn shown_by_address(users: &[PortalUser], actor: &str) -> String {
    users
        .iter()
        .find(|u| u.id.to_string() == actor)
        .map_or_else(|| actor.to_owned(), |u| u.email.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::ids::{PortalUserId, TenantId};
    use domain::portal::user::{Email, PortalRole};

    #[test]
    fn a_page_reads_live_data_unless_test_is_asked_for_and_refuses_any_other_mode() {
        assert!(!mode("").unwrap());
        assert!(!mode("  ").unwrap());
        assert!(!mode("live").unwrap());
        assert!(mode("test").unwrap());
        for other in ["Test", "sandbox", "live test", "1"] {
            let refused = mode(other).unwrap_err();
            assert_eq!(refused.code, domain::ErrorCode::BadRequest, "{other}");
        }
    }

    #[test]
    fn a_user_named_in_a_row_is_shown_by_address_and_any_other_actor_as_written() {
        let user = PortalUser {
            id: PortalUserId::generate(),
            tenant_id: TenantId::generate(),
            email: Email::parse("analyst@example.com").unwrap(),
            role: PortalRole::Admin,
            created_at: chrono::Utc::now(),
            created_by: None,
            disabled_at: None,
        };
        let users = [user.clone()];
        assert_eq!(
            shown_by_address(&users, &user.id.to_string()),
            "analyst@example.com"
        );
        assert_eq!(shown_by_address(&users, "operator"), "operator");
        let gone = PortalUserId::generate().to_string();
        assert_eq!(shown_by_address(&users, &gone), gone);
    }
}
