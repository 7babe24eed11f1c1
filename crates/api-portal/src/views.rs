//! The portal's pages as values: one struct per template (`templates/`), filled by the
//! handlers in [`crate::pages`] from what the use cases answered. Askama escapes every value
//! it writes into HTML.

use api_core::dto::screening::ScreeningCheckDto;
use askama::Template;

/// The signed-in part of every page: who, where, and the session's CSRF token for the
/// sign-out form.
pub struct Nav {
    /// The signed-in user's address (shown to them; never an audit row's actor).
    pub email: String,
    pub role: &'static str,
    pub tenant_id: String,
    pub csrf: String,
}

#[derive(Template)]
#[template(path = "sign_in.html")]
pub struct SignInPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub sent: bool,
}

#[derive(Template)]
#[template(path = "complete.html")]
pub struct CompletePage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub link: String,
}

#[derive(Template)]
#[template(path = "problem.html")]
pub struct ProblemPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub status: u16,
    pub code: &'static str,
    pub message: String,
    pub back: String,
}

#[derive(Template)]
#[template(path = "secret.html")]
pub struct SecretPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub what: &'static str,
    pub grant_id: String,
    pub client_id: String,
    pub client_secret: String,
}

pub struct GrantView {
    pub id: String,
    /// `active`, `expired` or `revoked`.
    pub state: &'static str,
    /// `live` or `test`.
    pub mode: &'static str,
    /// Made in the portal (the tenant revokes and narrows it), not provisioned by the
    /// operator on paper terms.
    pub tenant_owned: bool,
    pub client_id: String,
    pub scopes: String,
    pub countries: String,
    pub expires: String,
    pub created: String,
    pub scope_choices: Vec<(&'static str, bool)>,
    pub country_choices: Vec<(&'static str, bool)>,
}

#[derive(Template)]
#[template(path = "grants.html")]
pub struct GrantsPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    pub admin: bool,
    pub scopes: Vec<&'static str>,
    pub countries: Vec<&'static str>,
    pub grants: Vec<GrantView>,
}

#[derive(Template)]
#[template(path = "usage.html")]
pub struct UsagePage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    /// The test twin's figures rather than the live tenant's.
    pub test: bool,
    /// `None`: test mode was asked and no test-mode grant was ever made.
    pub report: Option<UsageFigures>,
}

pub struct UsageFigures {
    pub day: String,
    pub time_zone: &'static str,
    pub on_demand: i64,
    pub on_demand_cap: i64,
    pub scheduled: i64,
    pub scheduled_cap: i64,
    pub person_lookups: i64,
    pub person_ceiling: i64,
    pub renews_at: String,
    /// Day, on demand, monitoring, total.
    pub days: Vec<(String, i64, i64, i64)>,
}

pub struct AuditRow {
    pub when: String,
    /// The grant whose request it was, or the portal user who acted.
    pub who: String,
    pub surface: String,
    pub route: String,
    pub status: u16,
    pub outcome: String,
    pub code: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
pub struct AuditLogPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub grant_choices: Vec<(String, bool)>,
    pub route: String,
    pub routes: Vec<String>,
    /// The test twin's log is shown.
    pub test: bool,
    pub outcome_choices: Vec<(&'static str, bool)>,
    pub entries: Vec<AuditRow>,
    /// The next page's address, when there are older rows.
    pub next: Option<String>,
}

pub struct CheckRow {
    pub id: String,
    pub when: String,
    pub screened: String,
    pub band: &'static str,
    pub candidates: u32,
}

#[derive(Template)]
#[template(path = "screening.html")]
pub struct ScreeningPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub checks: Vec<CheckRow>,
}

#[derive(Template)]
#[template(path = "check.html")]
pub struct CheckPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    /// What a whitelist entry proposed from this check clears: the subject, or for an ad-hoc
    /// check its input hash.
    pub clears: String,
    pub c: ScreeningCheckDto,
    pub subject: String,
    pub input: String,
    pub override_version: String,
    pub list_versions: String,
    pub degraded: String,
}

pub struct EntryView {
    pub id: String,
    /// `proposed`, `in effect`, `expired` or `revoked`.
    pub state: &'static str,
    pub clears: String,
    pub source: &'static str,
    pub source_entry_id: String,
    pub reason: String,
    pub created_by: String,
    pub approved_by: String,
    pub expires: String,
}

#[derive(Template)]
#[template(path = "whitelist.html")]
pub struct WhitelistPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    pub sources: Vec<&'static str>,
    pub entries: Vec<EntryView>,
}

pub struct UserView {
    pub id: String,
    pub email: String,
    pub role: &'static str,
    pub state: &'static str,
    pub created: String,
    pub is_self: bool,
}

#[derive(Template)]
#[template(path = "users.html")]
pub struct UsersPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    pub admin: bool,
    pub users: Vec<UserView>,
}
