//! The users page: the tenant's portal users, adding and disabling one.
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs` (`an_admin_adds_and_disables_users_and_a_disabled_users_session_ends`).

use super::console_write;
use crate::page::{caller, day, nav, problem, render, see_other};
use crate::views::*;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::AppServices;
use domain::portal::user::PortalRole;

pub(super) async fn users(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    match services.portal_console.users(&caller).await {
        Ok(users) => render(&UsersPage {
            title: "Users",
            nav: Some(nav(&caller)),
            csrf: caller.csrf.clone(),
            admin: caller.session.role == PortalRole::Admin,
            users: users
                .iter()
                .map(|u| UserView {
                    id: u.id.to_string(),
                    email: u.email.as_str().to_owned(),
                    role: u.role.as_str(),
                    state: if u.active() { "active" } else { "disabled" },
                    created: day(u.created_at),
                    is_self: u.id == caller.session.user_id,
                })
                .collect(),
        }),
        Err(f) => problem(&f, Some(&caller), "/"),
    }
}

pub(super) async fn add_user(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/users",
        async |console, ctx, caller, form| {
            console
                .add_user(ctx, caller, form.get("email"), form.get("role"))
                .await?;
            Ok(see_other("/users"))
        },
    )
    .await
}

pub(super) async fn disable_user(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/users",
        async |console, ctx, caller, _| {
            console.disable_user(ctx, caller, path.as_str()).await?;
            Ok(see_other("/users"))
        },
    )
    .await
}
