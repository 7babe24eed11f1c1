//! The credentials page: the tenant's grants, and creating, changing, rotating and revoking
//! one (a new secret shown once).
//!
//! Over HTTP: `tests/blackbox/portal_pages.rs` (`grants_made_in_the_portal_follow_the_operators_rules_and_codes`,
//! `test_mode_grants_are_made_and_managed_in_the_portal`).

use super::console_write;
use crate::page::{caller, day, nav, problem, render, see_other, Form};
use crate::views::*;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::AppServices;
use chrono::{DateTime, Utc};
use domain::access::grant::{Grant, GrantLapse};
use domain::access::scope::Scope;
use domain::countries::country::CountrySet;
use domain::portal::console::GrantRequest;
use domain::portal::service::PortalCaller;
use domain::portal::user::PortalRole;
use domain::Failure;

fn grant_view(g: &Grant, provisioned: &CountrySet, now: DateTime<Utc>) -> GrantView {
    let state = match g.lapse(now) {
        Some(GrantLapse::Revoked) => "revoked",
        Some(GrantLapse::Expired) => "expired",
        None => "active",
    };
    GrantView {
        id: g.id.to_string(),
        state,
        mode: if g.client_id.is_test() {
            "test"
        } else {
            "live"
        },
        tenant_owned: g.owner == domain::access::grant::GrantOwner::Tenant,
        client_id: g.client_id.as_str().to_owned(),
        scopes: g.scopes.names().join(" "),
        countries: g.countries.codes().join(", "),
        expires: g.expires_at.map_or_else(|| "never".to_owned(), day),
        created: day(g.created_at),
        scope_choices: Scope::CONSUMER
            .iter()
            .map(|s| (s.as_str(), g.scopes.contains(*s)))
            .collect(),
        country_choices: provisioned
            .iter()
            .map(|c| (c.code(), g.countries.contains(c)))
            .collect(),
    }
}

pub(super) async fn grants(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let console = &services.portal_console;
    let answer = async {
        let provisioned = console.provisioned(&caller).await?;
        let grants = console.grants(&caller).await?;
        let connections = crate::connect::connection_views(&services, &caller).await?;
        Ok::<_, Failure>((provisioned, grants, connections))
    }
    .await;
    match answer {
        Ok((provisioned, grants, connections)) => {
            // A connection's grant is listed with its app, not among the credentials.
            let connected: std::collections::HashSet<&str> =
                connections.iter().map(|c| c.grant_id.as_str()).collect();
            let now = services.clock.now();
            render(&GrantsPage {
                title: "Grants",
                nav: Some(nav(&caller)),
                csrf: caller.csrf.clone(),
                admin: caller.session.role == PortalRole::Admin,
                scopes: Scope::CONSUMER.iter().map(|s| s.as_str()).collect(),
                countries: provisioned.codes(),
                grants: grants
                    .iter()
                    .filter(|g| !connected.contains(g.id.to_string().as_str()))
                    .map(|g| grant_view(g, &provisioned, now))
                    .collect(),
                connections,
            })
        }
        Err(f) => problem(&f, Some(&caller), "/grants"),
    }
}

fn grant_request(form: &Form) -> GrantRequest {
    GrantRequest {
        scopes: form.all("scopes"),
        countries: form.all("countries"),
        expires: form.get("expires").to_owned(),
        test: form.get("test") == "on",
    }
}

fn secret_page(
    caller: &PortalCaller,
    what: &'static str,
    issued: &domain::access::admin::IssuedGrant,
) -> HttpResponse {
    render(&SecretPage {
        title: "The grant's secret",
        nav: Some(nav(caller)),
        what,
        grant_id: issued.grant.id.to_string(),
        client_id: issued.grant.client_id.as_str().to_owned(),
        client_secret: issued.client_secret.expose().to_owned(),
    })
}

pub(super) async fn create_grant(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/grants",
        async |console, ctx, caller, form| {
            let issued = console
                .create_grant(ctx, caller, &grant_request(form))
                .await?;
            Ok(secret_page(caller, "The grant is made.", &issued))
        },
    )
    .await
}

pub(super) async fn update_grant(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/grants",
        async |console, ctx, caller, form| {
            console
                .update_grant(ctx, caller, path.as_str(), &grant_request(form))
                .await?;
            Ok(see_other("/grants"))
        },
    )
    .await
}

pub(super) async fn rotate_grant(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/grants",
        async |console, ctx, caller, _| {
            let issued = console.rotate_grant(ctx, caller, path.as_str()).await?;
            Ok(secret_page(
                caller,
                "The secret is replaced: the old one and every token made with it stopped working.",
                &issued,
            ))
        },
    )
    .await
}

pub(super) async fn revoke_grant(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/grants",
        async |console, ctx, caller, _| {
            console.revoke_grant(ctx, caller, path.as_str()).await?;
            Ok(see_other("/grants"))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_form_keeps_every_ticked_scope_and_country_and_the_test_box() {
        let form = Form::of(&[
            ("scopes", "kyb:read"),
            ("countries", "SE"),
            ("scopes", "events:read"),
            ("countries", "LT"),
            ("expires", "2027-01-31"),
            ("test", "on"),
        ]);
        let request = grant_request(&form);
        assert_eq!(request.scopes, "kyb:read events:read");
        assert_eq!(request.countries, "SE LT");
        assert_eq!(request.expires, "2027-01-31");
        assert!(request.test);

        let live = grant_request(&Form::of(&[("scopes", "kyb:read")]));
        assert!(!live.test);
        assert_eq!(live.countries, "");
        assert_eq!(live.expires, "");
    }
}
