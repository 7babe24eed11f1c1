//! Signing in: the address form, the mailed link's page and its POST, signing out.
//!
//! Over HTTP: `tests/blackbox/portal.rs` (`sign_in_by_one_time_link_answers_the_specifications_codes_and_keeps_the_credentials_apart`,
//! `a_poisoned_host_header_never_becomes_the_mailed_links_origin`).

use crate::page::{page, problem, query, render, see_other, write, Form};
use crate::views::*;
use crate::{cookie, origin, same_origin, set_cookie, BINDING_COOKIE, SESSION_COOKIE};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::{request_context, AppServices};
use askama::Template;
use domain::portal::sign_in::{LINK_LIFETIME, SESSION_LIFETIME};

pub(super) async fn sign_in_page() -> HttpResponse {
    render(&SignInPage {
        title: "Sign in",
        nav: None,
        sent: false,
    })
}

/// `POST /sign-in` `email=`: the same page for any address.
pub(super) async fn sign_in(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let answer = async {
        same_origin(&req)?;
        let form = Form::read(payload).await?;
        services
            .portal_sign_in
            .request_link(
                &request_context(&req),
                form.get("email"),
                cookie(&req, BINDING_COOKIE).as_deref(),
                &origin(&req)?,
            )
            .await
    }
    .await;
    match answer {
        Ok(requested) => {
            let mut r = render(&SignInPage {
                title: "Sign in",
                nav: None,
                sent: true,
            });
            r.headers_mut().insert(
                header::SET_COOKIE,
                header::HeaderValue::from_str(&set_cookie(
                    &req,
                    BINDING_COOKIE,
                    &requested.binding,
                    LINK_LIFETIME.num_seconds(),
                ))
                .expect("a cookie of token characters"),
            );
            r
        }
        Err(f) => problem(&f, None, "/sign-in"),
    }
}

#[derive(serde::Deserialize)]
struct LinkQuery {
    #[serde(default)]
    link: String,
}

/// The mailed link's page: a button that POSTs the link, so that a mail scanner fetching the
/// address does not use it up.
pub(super) async fn complete_page(req: HttpRequest) -> HttpResponse {
    match query::<LinkQuery>(&req) {
        Ok(q) => render(&CompletePage {
            title: "Sign in",
            nav: None,
            link: q.link,
        }),
        Err(f) => problem(&f, None, "/sign-in"),
    }
}

pub(super) async fn complete(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let answer = async {
        same_origin(&req)?;
        let form = Form::read(payload).await?;
        services
            .portal_sign_in
            .redeem(
                &request_context(&req),
                form.get("link"),
                cookie(&req, BINDING_COOKIE).as_deref(),
            )
            .await
    }
    .await;
    match answer {
        Ok(signed) => {
            // Back to the consent page that sent the browser to sign in, if one did.
            let next = crate::connect::next_after_sign_in(&req);
            let mut r = see_other(next.as_deref().unwrap_or("/grants"));
            if next.is_some() {
                r.headers_mut().append(
                    header::SET_COOKIE,
                    header::HeaderValue::from_str(&set_cookie(
                        &req,
                        crate::connect::NEXT_COOKIE,
                        "",
                        0,
                    ))
                    .expect("an empty cookie"),
                );
            }
            r.headers_mut().append(
                header::SET_COOKIE,
                header::HeaderValue::from_str(&set_cookie(
                    &req,
                    SESSION_COOKIE,
                    &signed.session_token,
                    SESSION_LIFETIME.num_seconds(),
                ))
                .expect("a cookie of token characters"),
            );
            r
        }
        // The four link codes are 401s: show them (a missing session is not the matter).
        Err(f) => page(
            StatusCode::from_u16(f.status()).unwrap_or(StatusCode::UNAUTHORIZED),
            ProblemPage {
                title: "That link did not sign you in",
                nav: None,
                status: f.status(),
                code: f.code.as_str(),
                message: f.message.clone(),
                back: "/sign-in".to_owned(),
            }
            .render(),
        ),
    }
}

pub(super) async fn sign_out(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    let answer = async {
        let (caller, _) = write(&req, payload, &services).await?;
        services
            .portal_sign_in
            .sign_out(
                &request_context(&req),
                &caller,
                cookie(&req, SESSION_COOKIE).as_deref(),
            )
            .await
    }
    .await;
    match answer {
        Ok(()) => {
            let mut r = see_other("/sign-in");
            r.headers_mut().insert(
                header::SET_COOKIE,
                header::HeaderValue::from_str(&set_cookie(&req, SESSION_COOKIE, "", 0))
                    .expect("an empty cookie"),
            );
            r
        }
        Err(f) => problem(&f, None, "/grants"),
    }
}
