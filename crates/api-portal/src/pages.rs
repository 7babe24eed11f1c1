//! The portal's server-rendered pages (`docs/decisions.md`, "The tenant portal").
//!
//! Every page needs a live session (its cookie); without one a page sends the browser to
//! `/sign-in`. Every write is a form POST carrying the session's CSRF token (`csrf`) and, when
//! the browser sends one, the portal's own `Origin`; it answers with a redirect to the page it
//! changed (post/redirect/get), or with a page that shows a secret once, or with the problem.
//! Each handler is thin: the rule lives in the use case it calls (`PortalConsole`,
//! `PortalSignIn`).

use crate::page::{caller, day, nav, page, problem, query, render, see_other, write, Form};
use crate::views::*;
use crate::{cookie, origin, same_origin, set_cookie, BINDING_COOKIE, SESSION_COOKIE};
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::dto::screening::ScreeningCheckDto;
use api_core::{request_context, AppServices};
use askama::Template;
use chrono::{DateTime, Utc};
use domain::access::audit::AuditFilter;
use domain::access::audit::RequestContext;
use domain::access::grant::{Grant, GrantLapse};
use domain::access::scope::Scope;
use domain::access::tenant::TenantMode;
use domain::countries::country::CountrySet;
use domain::ids::GrantId;
use domain::operation::Operation;
use domain::portal::action::PortalAction;
use domain::portal::console::{outcome_filter, GrantRequest, PortalConsole, WhitelistProposal};
use domain::portal::service::PortalCaller;
use domain::portal::sign_in::{LINK_LIFETIME, SESSION_LIFETIME};
use domain::portal::user::{PortalRole, PortalUser};
use domain::screening::sanctions::ListSource;
use domain::Failure;

/// Registers the pages and the stylesheet.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/assets/portal.css", web::get().to(stylesheet))
        .route("/sign-in", web::get().to(sign_in_page))
        .route("/sign-in", web::post().to(sign_in))
        .route("/sign-in/complete", web::get().to(complete_page))
        .route("/sign-in/complete", web::post().to(complete))
        .route("/sign-out", web::post().to(sign_out))
        .route("/grants", web::get().to(grants))
        .route("/grants", web::post().to(create_grant))
        .route("/grants/{id}", web::post().to(update_grant))
        .route("/grants/{id}/rotate", web::post().to(rotate_grant))
        .route("/grants/{id}/revoke", web::post().to(revoke_grant))
        .route("/usage", web::get().to(usage))
        .route("/audit", web::get().to(audit))
        .route("/screening", web::get().to(checks))
        .route("/screening/{id}", web::get().to(check))
        .route("/whitelist", web::get().to(whitelist))
        .route("/whitelist", web::post().to(propose))
        .route("/whitelist/{id}/approve", web::post().to(approve))
        .route("/whitelist/{id}/revoke", web::post().to(revoke_entry))
        .route("/users", web::get().to(users))
        .route("/users", web::post().to(add_user))
        .route("/users/{id}/disable", web::post().to(disable_user));
    crate::connect::configure(cfg);
}

const STYLESHEET: &str = include_str!("../assets/portal.css");

/// A console write from a form: the session, the portal's origin and the session's CSRF
/// token checked ([`write`]), then `act`, which answers the page (or redirect) to send; a
/// failure is the problem page, with a way back to `back`.
async fn console_write<A>(
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

async fn sign_in_page() -> HttpResponse {
    render(&SignInPage {
        title: "Sign in",
        nav: None,
        sent: false,
    })
}

/// `POST /sign-in` `email=`: the same page for any address.
async fn sign_in(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
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
async fn complete_page(req: HttpRequest) -> HttpResponse {
    match query::<LinkQuery>(&req) {
        Ok(q) => render(&CompletePage {
            title: "Sign in",
            nav: None,
            link: q.link,
        }),
        Err(f) => problem(&f, None, "/sign-in"),
    }
}

async fn complete(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
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

async fn sign_out(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
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

async fn grants(req: HttpRequest, services: AppServices) -> HttpResponse {
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

async fn create_grant(
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

async fn update_grant(
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

async fn rotate_grant(
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

async fn revoke_grant(
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

async fn usage(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: ModeQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/usage"),
    };
    let test = match mode(&q.mode) {
        Ok(test) => test,
        Err(f) => return problem(&f, Some(&caller), "/usage"),
    };
    // The assistant's model calls are the tenant's (whichever grant a conversation runs
    // under): shown with the live figures.
    let assistant_calls = match crate::assistant::assistant(&req) {
        Ok(a) if !test => match a.calls_today(&caller).await {
            Ok(calls) => calls,
            Err(f) => return problem(&f, Some(&caller), "/usage"),
        },
        _ => None,
    };
    match services.portal_console.usage(&caller, test).await {
        Ok(None) => render(&UsagePage {
            title: "Usage",
            nav: Some(nav(&caller)),
            test,
            assistant_calls,
            report: None,
        }),
        Ok(Some(report)) => {
            use domain::companies::budget::Spender;
            let t = &report.today;
            render(&UsagePage {
                title: "Usage",
                nav: Some(nav(&caller)),
                test,
                assistant_calls,
                report: Some(UsageFigures {
                    day: t.day.to_string(),
                    time_zone: t.time_zone,
                    on_demand: t.usage.on_demand,
                    on_demand_cap: t.budget.cap(Spender::OnDemand),
                    scheduled: t.usage.scheduled,
                    scheduled_cap: t.budget.cap(Spender::Scheduled),
                    person_lookups: t.person_lookups,
                    person_ceiling: t.budget.person_lookup_ceiling,
                    renews_at: day(t.renews_at),
                    days: report
                        .days
                        .iter()
                        .map(|(d, u)| {
                            (
                                d.to_string(),
                                u.on_demand,
                                u.scheduled,
                                u.on_demand + u.scheduled,
                            )
                        })
                        .collect(),
                    chart: UsageChart::of(
                        &report
                            .days
                            .iter()
                            .rev()
                            .map(|(d, u)| (d.to_string(), u.on_demand, u.scheduled))
                            .collect::<Vec<_>>(),
                    ),
                }),
            })
        }
        Err(f) => problem(&f, Some(&caller), "/"),
    }
}

/// The query of a page that reads the live tenant's data or its test twin's.
#[derive(serde::Deserialize, Default)]
struct ModeQuery {
    #[serde(default)]
    mode: String,
}

/// `mode` (a tenant mode's name, `live` when empty): whether the test twin is asked for.
fn mode(value: &str) -> Result<bool, Failure> {
    match value.trim() {
        "" => Ok(false),
        named => TenantMode::parse(named)
            .map(|m| m == TenantMode::Test)
            .ok_or_else(|| Failure::bad_request("mode", "must be live or test")),
    }
}

/// A portal user named in a row (by id) as the tenant's pages show them: by address; any
/// other actor (an operator's name, a user since gone) as written.
fn shown_by_address(users: &[PortalUser], actor: &str) -> String {
    users
        .iter()
        .find(|u| u.id.to_string() == actor)
        .map_or_else(|| actor.to_owned(), |u| u.email.as_str().to_owned())
}

#[derive(serde::Deserialize, Default)]
struct AuditQuery {
    #[serde(default)]
    grant: String,
    #[serde(default)]
    route: String,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    before: String,
    /// `live` (the default) or `test`: which log, when no grant is named.
    #[serde(default)]
    mode: String,
}

/// Every route template a row can name: the consumer interface's and the portal's.
fn route_templates() -> Vec<String> {
    let mut routes: Vec<String> = Operation::ROUTED
        .iter()
        .map(|op| op.route_template().to_owned())
        .chain(PortalAction::ALL.iter().map(|a| a.route().to_owned()))
        .collect();
    routes.sort();
    routes.dedup();
    routes
}

async fn audit(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: AuditQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/audit"),
    };
    let console = &services.portal_console;
    let answer = async {
        let grant = match q.grant.trim() {
            "" => None,
            g => Some(
                g.parse::<GrantId>()
                    .map_err(|_| Failure::bad_request("grant", "is not a grant id"))?,
            ),
        };
        let filter = AuditFilter {
            grant,
            route: Some(q.route.trim().to_owned()).filter(|r| !r.is_empty()),
            outcome: outcome_filter(&q.outcome)?,
            before: Some(q.before.trim().to_owned()).filter(|b| !b.is_empty()),
        };
        let test = mode(&q.mode)?;
        let page = console
            .audit(&request_context(&req), &caller, &filter, test)
            .await?;
        let grants = console.grants(&caller).await?;
        let users = console.users(&caller).await?;
        Ok::<_, Failure>((filter, page, grants, users, test))
    }
    .await;
    let (filter, found, grants, users, test) = match answer {
        Ok(a) => a,
        Err(f) => return problem(&f, Some(&caller), "/audit"),
    };
    let next = found.next.as_ref().map(|before| {
        let pairs = [
            ("grant", q.grant.trim()),
            ("route", q.route.trim()),
            ("outcome", q.outcome.trim()),
            ("mode", q.mode.trim()),
            ("before", before.as_str()),
        ];
        format!(
            "/audit?{}",
            serde_urlencoded::to_string(pairs).unwrap_or_default()
        )
    });
    let chosen = filter.outcome.map(|o| o.as_str()).unwrap_or("");
    render(&AuditLogPage {
        title: "Audit log",
        nav: Some(nav(&caller)),
        grant_choices: grants
            .iter()
            .map(|g| (g.id.to_string(), filter.grant == Some(g.id)))
            .collect(),
        route: q.route.trim().to_owned(),
        routes: route_templates(),
        test,
        outcome_choices: ["", "allowed", "refused", "failed"]
            .into_iter()
            .map(|o| (o, o == chosen))
            .collect(),
        entries: found
            .entries
            .iter()
            .map(|e| AuditRow {
                when: e.occurred_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                // A portal user is shown by address (as on the whitelist page), a grant by id.
                who: match &e.portal_user_id {
                    Some(id) => shown_by_address(&users, id),
                    None => e.grant_id.clone().unwrap_or_default(),
                },
                // The assistant's rows name their conversation; a tool call its tool.
                surface: match &e.conversation_id {
                    Some(c) => format!("{} ({c})", e.surface),
                    None => e.surface.clone(),
                },
                route: match &e.tool {
                    Some(tool) => format!("{} {} tool {tool}", e.method, e.route),
                    None => format!("{} {}", e.method, e.route),
                },
                status: e.status,
                outcome: e.outcome.clone(),
                code: e.error_code.clone().unwrap_or_default(),
            })
            .collect(),
        next,
    })
}

async fn checks(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let q: ModeQuery = match query(&req) {
        Ok(q) => q,
        Err(f) => return problem(&f, Some(&caller), "/screening"),
    };
    let test = match mode(&q.mode) {
        Ok(test) => test,
        Err(f) => return problem(&f, Some(&caller), "/screening"),
    };
    match services
        .portal_console
        .checks(&request_context(&req), &caller, test)
        .await
    {
        Ok(found) => render(&ScreeningPage {
            title: "Screening checks",
            nav: Some(nav(&caller)),
            test,
            checks: found
                .iter()
                .map(|served| {
                    let dto = ScreeningCheckDto::from(served);
                    CheckRow {
                        when: dto.checked_at.clone(),
                        screened: screened(&dto),
                        band: dto.band,
                        candidates: dto.candidate_count,
                        id: dto.id,
                    }
                })
                .collect(),
        }),
        Err(f) => problem(&f, Some(&caller), "/"),
    }
}

/// What a check screened, as its (masked) input snapshot shows it.
fn screened(dto: &ScreeningCheckDto) -> String {
    let i = &dto.input_snapshot;
    let mut parts: Vec<String> = Vec::new();
    if let Some(name) = &i.name {
        parts.push(name.clone());
    }
    if let Some(orgnr) = &i.orgnr {
        parts.push(orgnr.clone());
    }
    if i.identifier_masked {
        parts.push("(organisation number masked)".to_owned());
    }
    if i.person_fields_masked {
        parts.push("(person fields masked)".to_owned());
    }
    if let Some(country) = &i.country {
        parts.push(country.clone());
    }
    if parts.is_empty() {
        dto.input_kind.to_owned()
    } else {
        parts.join(" · ")
    }
}

async fn check(req: HttpRequest, path: web::Path<String>, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    match services
        .portal_console
        .check(&request_context(&req), &caller, path.as_str())
        .await
    {
        Ok(served) => {
            let c = ScreeningCheckDto::from(&served);
            render(&CheckPage {
                title: "Screening check",
                nav: Some(nav(&caller)),
                csrf: caller.csrf.clone(),
                clears: served.check.whitelist_target().unwrap_or_default(),
                subject: c.subject_id.clone().unwrap_or_else(|| "ad hoc".to_owned()),
                input: screened(&c),
                override_version: c
                    .tenant_override_version_id
                    .clone()
                    .unwrap_or_else(|| "none".to_owned()),
                list_versions: c.source_version_ids.join(", "),
                degraded: c.degraded_sources.join(", "),
                c,
            })
        }
        Err(f) => problem(&f, Some(&caller), "/screening"),
    }
}

async fn whitelist(req: HttpRequest, services: AppServices) -> HttpResponse {
    let caller = match caller(&req, &services).await {
        Ok(c) => c,
        Err(f) => return problem(&f, None, "/"),
    };
    let console = &services.portal_console;
    let answer = async {
        Ok::<_, Failure>((
            console.whitelist(&caller).await?,
            console.users(&caller).await?,
        ))
    }
    .await;
    let (entries, users) = match answer {
        Ok(a) => a,
        Err(f) => return problem(&f, Some(&caller), "/"),
    };
    // Makers and approvers are portal users' ids (or an operator's name): shown by address.
    let who = |by: &str| shown_by_address(&users, by);
    let now = services.clock.now();
    render(&WhitelistPage {
        title: "Whitelist",
        nav: Some(nav(&caller)),
        csrf: caller.csrf.clone(),
        sources: ListSource::ALL.iter().map(|s| s.as_str()).collect(),
        entries: entries
            .iter()
            .map(|v| {
                let e = &v.entry;
                EntryView {
                    id: e.id.to_string(),
                    state: e.state(now).as_str(),
                    clears: e
                        .subject_id
                        .map(|s| s.to_string())
                        .or_else(|| e.input_hash.clone())
                        .unwrap_or_default(),
                    source: e.source.as_str(),
                    source_entry_id: e.source_entry_id.clone(),
                    reason: e.reason.clone(),
                    created_by: who(&e.created_by),
                    approved_by: e
                        .approved_by
                        .as_deref()
                        .map_or_else(|| "not yet".to_owned(), who),
                    expires: day(e.expires_at),
                }
            })
            .collect(),
    })
}

async fn propose(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, form| {
            let proposal = WhitelistProposal {
                clears: form.get("clears").to_owned(),
                source_id: form.get("source").to_owned(),
                source_entry_id: form.get("entry").to_owned(),
                reason: form.get("reason").to_owned(),
                expires: form.get("expires").to_owned(),
            };
            console
                .propose_whitelist_entry(ctx, caller, &proposal)
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}

async fn approve(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, _| {
            console
                .approve_whitelist_entry(ctx, caller, path.as_str())
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}

async fn revoke_entry(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> HttpResponse {
    console_write(
        &req,
        payload,
        &services,
        "/whitelist",
        async |console, ctx, caller, _| {
            console
                .revoke_whitelist_entry(ctx, caller, path.as_str())
                .await?;
            Ok(see_other("/whitelist"))
        },
    )
    .await
}

async fn users(req: HttpRequest, services: AppServices) -> HttpResponse {
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

async fn add_user(req: HttpRequest, payload: web::Payload, services: AppServices) -> HttpResponse {
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

async fn disable_user(
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
