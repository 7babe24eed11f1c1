//! The command line: `serve`, `migrate`, `demo`, and the operator's `admin` commands (the
//! `lists` and `screening` commands are in their own modules).
//!
//! Every `admin` command prints one JSON object on stdout. On failure it prints
//! `{"error": <code>, "message": <text>}` and exits non-zero.

use crate::app::App;
use crate::config::Config;
use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Parser, Subcommand};
use domain::access::admin::{IssuedGrant, NewGrant, NewTenant};
use domain::access::grant::Grant;
use domain::access::scope::ScopeSet;
use domain::access::tenant::{Budget, PermitStatus, Tenant};
use domain::countries::country::{Country, CountrySet};
use domain::{ErrorCode, Failure};
use serde_json::{json, Value};

#[derive(Parser, Debug)]
#[command(
    name = "idreg",
    version,
    about = "Verified identity and registry data, with evidence, for many tenants."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Runs the service (migrations are applied on start).
    Serve(ServeArgs),
    /// Applies pending database migrations and exits.
    Migrate,
    /// Runs the default embedded setup: the service, a demo tenant and grant, and a curl
    /// walk-through printed on start.
    Demo(ServeArgs),
    /// Operator commands; each prints one JSON object.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Sanctions lists: import a file as a new version, show the active ones.
    #[command(subcommand)]
    Lists(crate::lists::ListsCommand),
    /// Screening configuration: policy versions, tenants' override versions and whitelist
    /// entries (four eyes); each prints one JSON object.
    #[command(subcommand)]
    Screening(crate::screening::ScreeningCommand),
    /// The store itself: copy an evaluation's embedded store into PostgreSQL.
    #[command(subcommand)]
    Store(StoreCommand),
    /// The signing and master keys: make a pair, compare them with the store's record, adopt
    /// a rotated signing key; each prints one JSON object.
    #[command(subcommand)]
    Keys(KeysCommand),
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Prints a fresh signing key and master key (hex) for the operator's secret store, and
    /// their fingerprints. Nothing is written or recorded.
    Generate,
    /// Prints the configured keys' fingerprints beside the store's record of them.
    Show,
    /// A signing-key rotation: records the configured signing key as the store's (the
    /// configured master key must be the store's). Replicas still on the old key then report
    /// not ready, and tokens they minted are refused by the others.
    AdoptSigningKey,
}

#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// Copies every row of an embedded store (`sqlite://<path>`) into an empty PostgreSQL
    /// database (`postgres://...`, created and migrated if missing): tenants, grants,
    /// subjects, caches, events, subscriptions, lists, screening. Prints what it copied.
    Copy {
        /// The store copied from: `sqlite://<path>` (default: this configuration's store).
        #[arg(long)]
        from: Option<String>,
        /// The store copied into: `postgres://...`.
        #[arg(long)]
        to: String,
    },
}

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on (default 127.0.0.1:8080, or IDREG_LISTEN).
    #[arg(long)]
    pub listen: Option<String>,
    /// Address of the operator's metrics listener, `GET /metrics` in the Prometheus text
    /// format (default: none, or IDREG_METRICS_LISTEN). Keep it off the consumer origin.
    #[arg(long)]
    pub metrics_listen: Option<String>,
    /// Serve from the built-in upstream sandbox (synthetic registry data) instead of the
    /// real registries; prints the sandbox's control address.
    #[arg(long)]
    pub sandbox: bool,
}

#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    #[command(subcommand)]
    Tenant(TenantCommand),
    #[command(subcommand)]
    Permit(PermitCommand),
    #[command(subcommand)]
    Budget(BudgetCommand),
    #[command(subcommand)]
    Grant(GrantCommand),
    #[command(subcommand)]
    Subject(SubjectCommand),
    /// People at a tenant who sign in to the tenant portal.
    #[command(subcommand)]
    PortalUser(PortalUserCommand),
}

#[derive(Subcommand, Debug)]
pub enum PortalUserCommand {
    /// Adds a portal user to a live tenant (a tenant's first is made here; its admins add the
    /// others). The user signs in by a one-time link mailed to the address.
    Create {
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        email: String,
        /// `admin` (users and grants) or `member`.
        #[arg(long, default_value = "admin")]
        role: String,
    },
    /// The tenant's portal users, oldest first.
    List { tenant_id: String },
}

#[derive(Subcommand, Debug)]
pub enum SubjectCommand {
    /// Merges subject FROM into INTO (the same company or person under two ids): FROM stays
    /// a valid alias of INTO; a `subject.merged` event is logged.
    Merge {
        tenant_id: String,
        from: String,
        into: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum TenantCommand {
    /// Creates a tenant (pending unless --activate).
    Create {
        #[arg(long)]
        name: String,
        /// The tenant's own country, e.g. SE.
        #[arg(long)]
        country: String,
        /// Provisioned countries, e.g. SE,LT (default: the own country).
        #[arg(long)]
        provision: Option<String>,
        #[arg(long)]
        activate: bool,
    },
    /// Activates a pending tenant.
    Activate { tenant_id: String },
    /// Shows a tenant.
    Show { tenant_id: String },
    /// Deletes the test-mode data of a tenant (its test twin's subjects, events, checks,
    /// caches); test grants and the audit trail stay. Live data is never touched.
    WipeTest { tenant_id: String },
    /// Replaces the provisioned countries (the own country must stay).
    Countries {
        tenant_id: String,
        #[arg(long)]
        provision: String,
    },
    /// Sets how many days an ended subscription's events keep their data before the purge
    /// (default 90); subscriptions that end afterwards use it.
    Retention {
        tenant_id: String,
        #[arg(long, allow_negative_numbers = true)]
        days: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum PermitCommand {
    /// Records the tenant's person-register permit (a new permit each time).
    Set {
        tenant_id: String,
        #[arg(long)]
        valid_from: String,
        #[arg(long)]
        valid_to: String,
        /// active or suspended.
        #[arg(long)]
        status: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum BudgetCommand {
    /// Sets the tenant's limits; options not given keep their current value.
    Set {
        tenant_id: String,
        #[arg(long)]
        daily_paid: Option<i64>,
        #[arg(long)]
        monitoring_share: Option<f64>,
        #[arg(long)]
        person_ceiling: Option<i64>,
    },
    /// Shows the tenant's daily paid-call budget and person-lookup ceiling and their use
    /// today (or on `--day`), in the budget's time zone (Europe/Stockholm).
    Show {
        tenant_id: String,
        /// A day (YYYY-MM-DD) other than today.
        #[arg(long)]
        day: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum GrantCommand {
    /// Creates a grant and prints its client credentials (the secret is shown once).
    Create {
        #[arg(long)]
        tenant: String,
        /// Space-separated scopes, e.g. "kyb:read events:read".
        #[arg(long)]
        scopes: String,
        /// Countries, e.g. SE or SE,LT.
        #[arg(long)]
        countries: String,
        /// Expiry as RFC 3339, e.g. 2027-01-01T00:00:00Z.
        #[arg(long)]
        expires_at: Option<String>,
        /// A test-mode grant: on the tenant's test twin (made on first use: its own data,
        /// served by the sandbox registers), credentials `cid_test_...` and `cs_test_...`.
        #[arg(long)]
        test: bool,
    },
    /// Narrows or widens a grant's scopes and/or countries.
    Update {
        grant_id: String,
        #[arg(long)]
        scopes: Option<String>,
        #[arg(long)]
        countries: Option<String>,
    },
    /// Revokes a grant: its tokens stop working on the next request.
    Revoke { grant_id: String },
    /// Issues a new client secret; tokens minted before stop working.
    RotateSecret { grant_id: String },
}

/// Runs one admin command against a prepared app.
pub async fn execute_admin(app: &App, command: AdminCommand) -> Result<Value, Failure> {
    let admin = &app.services.admin;
    match command {
        AdminCommand::Tenant(TenantCommand::Create {
            name,
            country,
            provision,
            activate,
        }) => {
            let own_country = Country::from_code(&country)
                .ok_or_else(|| Failure::bad_request("country", "unknown country code"))?;
            let provisioned = provision
                .as_deref()
                .map(parse_countries("provision"))
                .transpose()?;
            let tenant = admin
                .create_tenant(NewTenant {
                    name,
                    own_country,
                    provisioned,
                    activate,
                })
                .await?;
            Ok(tenant_json(&tenant))
        }
        AdminCommand::Tenant(TenantCommand::Activate { tenant_id }) => {
            Ok(tenant_json(&admin.activate_tenant(&tenant_id).await?))
        }
        AdminCommand::Tenant(TenantCommand::WipeTest { tenant_id }) => {
            let (twin, deleted) = admin.wipe_test_data(&tenant_id).await?;
            Ok(json!({
                "test_tenant_id": twin.id.to_string(),
                "rows_deleted": deleted,
            }))
        }
        AdminCommand::Tenant(TenantCommand::Show { tenant_id }) => {
            Ok(tenant_json(&admin.tenant(&tenant_id).await?))
        }
        AdminCommand::Tenant(TenantCommand::Countries {
            tenant_id,
            provision,
        }) => {
            let countries = parse_countries("provision")(&provision)?;
            Ok(tenant_json(
                &admin.set_tenant_countries(&tenant_id, countries).await?,
            ))
        }
        AdminCommand::Tenant(TenantCommand::Retention { tenant_id, days }) => {
            Ok(tenant_json(&admin.set_retention(&tenant_id, days).await?))
        }
        AdminCommand::Permit(PermitCommand::Set {
            tenant_id,
            valid_from,
            valid_to,
            status,
        }) => {
            let valid_from = parse_date("valid-from", &valid_from)?;
            let valid_to = parse_date("valid-to", &valid_to)?;
            let status = PermitStatus::parse(&status)
                .ok_or_else(|| Failure::bad_request("status", "must be active or suspended"))?;
            Ok(tenant_json(
                &admin
                    .set_permit(&tenant_id, valid_from, valid_to, status)
                    .await?,
            ))
        }
        AdminCommand::Budget(BudgetCommand::Set {
            tenant_id,
            daily_paid,
            monitoring_share,
            person_ceiling,
        }) => {
            let current = admin.tenant(&tenant_id).await?.budget;
            let budget = Budget {
                daily_paid_calls: daily_paid.unwrap_or(current.daily_paid_calls),
                monitoring_share: monitoring_share.unwrap_or(current.monitoring_share),
                person_lookup_ceiling: person_ceiling.unwrap_or(current.person_lookup_ceiling),
            };
            Ok(tenant_json(&admin.set_budget(&tenant_id, budget).await?))
        }
        AdminCommand::Subject(SubjectCommand::Merge {
            tenant_id,
            from,
            into,
        }) => {
            let record = app
                .services
                .subject_merge
                .merge(&tenant_id, &from, &into)
                .await?;
            Ok(serde_json::json!({
                "tenant_id": tenant_id,
                "subject_id": record.subject_id.to_string(),
                "aliases": record.aliases.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "identifiers": record.identifiers.len(),
            }))
        }
        AdminCommand::Budget(BudgetCommand::Show { tenant_id, day }) => {
            let day = day.map(|d| parse_date("day", &d)).transpose()?;
            let st = admin.budget_statement(&tenant_id, day).await?;
            use domain::companies::budget::Spender;
            Ok(serde_json::json!({
                "tenant_id": tenant_id,
                "day": st.day.to_string(),
                "time_zone": st.time_zone,
                "renews_at": st.renews_at.to_rfc3339(),
                "daily_paid_calls": st.budget.daily_paid_calls,
                "monitoring_share": st.budget.monitoring_share,
                "on_demand": {
                    "cap": st.budget.cap(Spender::OnDemand),
                    "used": st.usage.on_demand,
                    "remaining": st.remaining(Spender::OnDemand),
                },
                "scheduled": {
                    "cap": st.budget.cap(Spender::Scheduled),
                    "used": st.usage.scheduled,
                    "remaining": st.remaining(Spender::Scheduled),
                },
                "person_lookup_ceiling": st.budget.person_lookup_ceiling,
                "person_lookups": {
                    "ceiling": st.budget.person_lookup_ceiling,
                    "used": st.person_lookups,
                    "remaining": st.person_lookups_remaining(),
                },
            }))
        }
        AdminCommand::Grant(GrantCommand::Create {
            tenant,
            scopes,
            countries,
            expires_at,
            test,
        }) => {
            let tenant_id = tenant.parse().map_err(|_| Failure::not_found("tenant"))?;
            let scopes = parse_scopes(&scopes)?;
            let countries = parse_countries("countries")(&countries)?;
            let expires_at = expires_at
                .as_deref()
                .map(parse_time("expires-at"))
                .transpose()?;
            let issued = admin
                .create_grant(NewGrant {
                    tenant_id,
                    scopes,
                    countries,
                    expires_at,
                    test,
                    // Provisioned by the operator, on paper terms.
                    owner: domain::access::grant::GrantOwner::Operator,
                })
                .await?;
            Ok(issued_json(&issued))
        }
        AdminCommand::Grant(GrantCommand::Update {
            grant_id,
            scopes,
            countries,
        }) => {
            let scopes = scopes.as_deref().map(parse_scopes).transpose()?;
            let countries = countries
                .as_deref()
                .map(parse_countries("countries"))
                .transpose()?;
            Ok(grant_json(
                &admin.update_grant(&grant_id, scopes, countries).await?,
            ))
        }
        AdminCommand::Grant(GrantCommand::Revoke { grant_id }) => {
            Ok(grant_json(&admin.revoke_grant(&grant_id).await?))
        }
        AdminCommand::Grant(GrantCommand::RotateSecret { grant_id }) => {
            Ok(issued_json(&admin.rotate_secret(&grant_id).await?))
        }
        AdminCommand::PortalUser(PortalUserCommand::Create {
            tenant,
            email,
            role,
        }) => {
            let user = app
                .services
                .portal_admin
                .create_user(&tenant, &email, &role, None)
                .await?;
            Ok(portal_user_json(&user))
        }
        AdminCommand::PortalUser(PortalUserCommand::List { tenant_id }) => {
            let users = app.services.portal_admin.users(&tenant_id).await?;
            Ok(json!({ "portal_users": users.iter().map(portal_user_json).collect::<Vec<_>>() }))
        }
    }
}

fn parse_scopes(list: &str) -> Result<ScopeSet, Failure> {
    ScopeSet::parse_grantable(list).map_err(|e| Failure::bad_request("scopes", &e.to_string()))
}

fn parse_countries(field: &'static str) -> impl Fn(&str) -> Result<CountrySet, Failure> {
    move |list| {
        let set = CountrySet::parse_list(list).map_err(|e| Failure::bad_request(field, &e))?;
        if set.is_empty() && field == "countries" {
            return Err(Failure::new(
                ErrorCode::GrantCountriesInvalid,
                "a grant needs at least one country",
            ));
        }
        if set.is_empty() {
            return Err(Failure::new(
                ErrorCode::ProvisionedCountriesInvalid,
                "a tenant needs at least its own country",
            ));
        }
        Ok(set)
    }
}

fn parse_date(field: &str, s: &str) -> Result<NaiveDate, Failure> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| Failure::bad_request(field, "must be a date like 2026-01-31"))
}

fn parse_time(field: &'static str) -> impl Fn(&str) -> Result<DateTime<Utc>, Failure> {
    move |s| {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| {
                Failure::bad_request(field, "must be an RFC 3339 time like 2027-01-01T00:00:00Z")
            })
    }
}

pub fn tenant_json(t: &Tenant) -> Value {
    json!({
        "tenant_id": t.id.to_string(),
        "name": t.name,
        "country": t.own_country.code(),
        "provisioned_countries": t.provisioned.codes(),
        "status": t.status.as_str(),
        "permit": t.permit.as_ref().map(|p| json!({
            "valid_from": p.valid_from.to_string(),
            "valid_to": p.valid_to.to_string(),
            "status": p.status.as_str(),
            "recorded_at": api_core::dto::timestamp(p.recorded_at),
        })),
        "budget": {
            "daily_paid_calls": t.budget.daily_paid_calls,
            "monitoring_share": t.budget.monitoring_share,
            "person_lookup_ceiling": t.budget.person_lookup_ceiling,
        },
        "retention_days": t.retention_days,
        "created_at": api_core::dto::timestamp(t.created_at),
        "mode": t.mode.as_str(),
        "test_tenant_id": t.test_tenant.map(|id| id.to_string()),
    })
}

/// A portal user as the operator's commands print it.
pub fn portal_user_json(u: &domain::portal::user::PortalUser) -> Value {
    json!({
        "portal_user_id": u.id.to_string(),
        "tenant_id": u.tenant_id.to_string(),
        "email": u.email.as_str(),
        "role": u.role.as_str(),
        "created_at": u.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "disabled_at": u.disabled_at.map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    })
}

pub fn grant_json(g: &Grant) -> Value {
    json!({
        "grant_id": g.id.to_string(),
        "tenant_id": g.tenant_id.to_string(),
        "client_id": g.client_id.as_str(),
        "scopes": g.scopes.to_string(),
        "countries": g.countries.codes(),
        "expires_at": g.expires_at.map(api_core::dto::timestamp),
        "revoked_at": g.revoked_at.map(api_core::dto::timestamp),
        "credential_generation": g.credential_generation,
        "created_at": api_core::dto::timestamp(g.created_at),
        "mode": if g.client_id.is_test() { "test" } else { "live" },
        // Who revokes and narrows it: `operator` (paper terms) or `tenant` (made in the portal).
        "owner": g.owner.as_str(),
    })
}

fn issued_json(issued: &IssuedGrant) -> Value {
    let mut value = grant_json(&issued.grant);
    value["client_secret"] = Value::String(issued.client_secret.expose().to_owned());
    value
}

pub fn failure_json(f: &Failure) -> Value {
    json!({ "error": f.code.as_str(), "message": f.message })
}

/// Loads configuration and prepares the app for a command.
pub async fn prepare(config: Config) -> Result<App, Failure> {
    App::prepare_for_admin(config).await.map_err(|e| Failure {
        code: ErrorCode::InternalError,
        message: format!("{e:#}"),
        internal: None,
    })
}
