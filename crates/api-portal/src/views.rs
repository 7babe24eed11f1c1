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
    /// Agents people connected (each a grant bound to an OAuth client).
    pub connections: Vec<ConnectionView>,
}

/// An agent connection as the grants page lists it.
pub struct ConnectionView {
    pub grant_id: String,
    pub client_name: String,
    /// The host of its metadata document, or how it registered.
    pub client_host: String,
    /// Who consented (their address, or their id when they are no longer a user).
    pub consented_by: String,
    /// `active`, `expired` or `revoked`.
    pub state: &'static str,
    pub mode: &'static str,
    pub scopes: String,
    pub countries: String,
    pub created: String,
    pub expires: String,
    /// Whether the viewer may revoke it (an admin, or the person who made it).
    pub revocable: bool,
}

/// The consent page: an agent asks to connect.
#[derive(Template)]
#[template(path = "consent.html")]
pub struct ConsentPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    pub request_id: String,
    pub client_name: String,
    /// The host of the client's id (its metadata document); empty for a dynamic registration.
    pub client_host: String,
    /// Where the answer goes: the redirect URI's host (or scheme for an app's own scheme).
    pub redirect_host: String,
    /// The answer goes to a listener on the person's own computer.
    pub loopback: bool,
    pub resource: String,
    /// What the client asked for, as idreg names scopes (empty: nothing idreg knows).
    pub asked: Vec<&'static str>,
    /// Each scope the person may hand out: its name, what it lets the agent do, whether it is
    /// ticked at first, and whether the app asked for it.
    pub scope_choices: Vec<(&'static str, &'static str, bool, bool)>,
    pub countries: Vec<&'static str>,
    pub tenant_name: String,
    pub member: bool,
}

/// The page between the app's redirect and the portal: a browser that came from another
/// site sends no session cookie (SameSite=Strict), so the portal's own page moves it on.
#[derive(Template)]
#[template(path = "continue.html")]
pub struct ContinuePage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub next: String,
}

#[derive(Template)]
#[template(path = "usage.html")]
pub struct UsagePage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    /// The test twin's figures rather than the live tenant's.
    pub test: bool,
    /// The tenant's assistant model calls today and its allowance (live mode, assistant on).
    pub assistant_calls: Option<(u32, u32)>,
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
    /// The same days drawn.
    pub chart: UsageChart,
}

/// The last 30 days of paid calls as a bar chart: server-drawn SVG, no script. Each day's bar
/// stacks monitoring on on-demand calls; the table beside it carries the figures.
pub struct UsageChart {
    pub width: u32,
    pub height: u32,
    /// The bars' baseline.
    pub base: u32,
    pub bar: u32,
    pub bars: Vec<ChartBar>,
    /// The chart in one sentence, its accessible name.
    pub summary: String,
    pub first: String,
    pub last: String,
    pub most: i64,
}

pub struct ChartBar {
    pub x: u32,
    pub on_demand_y: u32,
    pub on_demand_h: u32,
    pub monitoring_y: u32,
    pub monitoring_h: u32,
    /// The day and its figures, shown on hover.
    pub title: String,
}

impl UsageChart {
    const BAR: u32 = 10;
    const GAP: u32 = 4;
    const PLOT: u32 = 100;
    const TOP: u32 = 4;

    /// `days` oldest first: (day, on demand, monitoring).
    pub fn of(days: &[(String, i64, i64)]) -> UsageChart {
        let most = days.iter().map(|(_, o, m)| o + m).max().unwrap_or(0);
        let scale = |n: i64| -> u32 {
            if most == 0 {
                0
            } else {
                // At least a pixel for a day that spent anything.
                let h = (n.max(0) as f64 / most as f64 * f64::from(Self::PLOT)).round() as u32;
                if n > 0 {
                    h.max(1)
                } else {
                    0
                }
            }
        };
        let base = Self::TOP + Self::PLOT;
        let bars = days
            .iter()
            .enumerate()
            .map(|(i, (day, on_demand, monitoring))| {
                let on_demand_h = scale(*on_demand);
                let monitoring_h = scale(on_demand + monitoring).saturating_sub(on_demand_h);
                ChartBar {
                    x: i as u32 * (Self::BAR + Self::GAP),
                    on_demand_y: base - on_demand_h,
                    on_demand_h,
                    monitoring_y: base - on_demand_h - monitoring_h,
                    monitoring_h,
                    title: format!("{day}: {on_demand} on demand, {monitoring} by monitoring"),
                }
            })
            .collect();
        let total: i64 = days.iter().map(|(_, o, m)| o + m).sum();
        let summary = match days.iter().max_by_key(|(_, o, m)| o + m) {
            Some((day, o, m)) if total > 0 => format!(
                "Paid calls per day over the last {} days: {total} in all, the most on {day} ({})",
                days.len(),
                o + m
            ),
            _ => format!("No paid calls in the last {} days", days.len()),
        };
        UsageChart {
            width: (days.len() as u32 * (Self::BAR + Self::GAP)).max(Self::BAR),
            height: base + 16,
            base,
            bar: Self::BAR,
            bars,
            summary,
            first: days.first().map(|d| d.0.clone()).unwrap_or_default(),
            last: days.last().map(|d| d.0.clone()).unwrap_or_default(),
            most,
        }
    }
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
    /// The test twin's checks (made with test-mode credentials) rather than the live tenant's.
    pub test: bool,
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

#[cfg(test)]
mod chart_tests {
    use super::*;

    #[test]
    fn bars_stack_to_scale_and_the_summary_names_the_busiest_day() {
        let days: Vec<(String, i64, i64)> = (1..=30)
            .map(|d| {
                (
                    format!("2026-11-{d:02}"),
                    if d == 20 { 6 } else { 0 },
                    if d == 20 { 4 } else { i64::from(d == 3) },
                )
            })
            .collect();
        let c = UsageChart::of(&days);
        assert_eq!(c.bars.len(), 30);
        assert_eq!(c.most, 10);
        let tallest = &c.bars[19];
        assert_eq!(tallest.on_demand_h + tallest.monitoring_h, 100);
        assert_eq!(tallest.on_demand_h, 60);
        assert_eq!(
            tallest.monitoring_y + tallest.monitoring_h,
            tallest.on_demand_y
        );
        // A day with one call still shows; a day with none draws nothing.
        assert_eq!(c.bars[2].monitoring_h, 10);
        assert_eq!(c.bars[0].on_demand_h + c.bars[0].monitoring_h, 0);
        assert!(
            c.summary.contains("11 in all") && c.summary.contains("2026-11-20 (10)"),
            "{}",
            c.summary
        );
        let idle = UsageChart::of(
            &days
                .iter()
                .map(|(d, _, _)| (d.clone(), 0, 0))
                .collect::<Vec<_>>(),
        );
        assert!(idle
            .bars
            .iter()
            .all(|b| b.on_demand_h + b.monitoring_h == 0));
        assert_eq!(idle.summary, "No paid calls in the last 30 days");
    }
}

/// A grant a conversation may run under, as the Assistant page offers it.
pub struct AssistantGrant {
    pub id: String,
    pub label: String,
}

/// One of the person's conversations in the page's list.
pub struct ConversationItem {
    pub id: String,
    pub title: String,
    pub updated: String,
    pub current: bool,
}

/// One piece of a turn as the page shows it: `text`, `tool_call` (the tool's name) or
/// `tool_result` (its summary or refusal; `state` is `ok` or `failed`).
pub struct BlockView {
    pub kind: &'static str,
    pub text: String,
    pub state: &'static str,
}

pub struct TurnView {
    /// `user`, `assistant`, or `tools` (the results of the tools the assistant called).
    pub role: &'static str,
    /// Who spoke, as the page says it.
    pub label: &'static str,
    pub blocks: Vec<BlockView>,
}

pub struct OpenConversation {
    pub id: String,
    pub title: String,
    pub grant_id: String,
    pub turns: Vec<TurnView>,
}

#[derive(Template)]
#[template(path = "assistant.html")]
pub struct AssistantPage {
    pub title: &'static str,
    pub nav: Option<Nav>,
    pub csrf: String,
    pub enabled: bool,
    pub model: String,
    pub grants: Vec<AssistantGrant>,
    pub conversations: Vec<ConversationItem>,
    pub open: Option<OpenConversation>,
}
