//! `GET /v1/usage` and the quota lines a metered MCP tool carries in `structuredContent`.

use super::timestamp;
use domain::companies::budget::Spender;
use domain::usage::quota::{QuotaLine, Usage, WINDOW_SECONDS};
use serde::Serialize;

/// The tenant's standing against its daily limits now.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = Usage)]
#[schemars(rename = "Usage")]
pub struct UsageDto {
    /// The budget's calendar day (`YYYY-MM-DD` in `time_zone`).
    pub day: String,
    /// `Europe/Stockholm`: every limit renews at its midnight.
    pub time_zone: &'static str,
    /// When the limits renew (RFC 3339, UTC).
    pub resets_at: String,
    /// Seconds until they renew (as `t` of the `RateLimit` field).
    pub reset_seconds: i64,
    /// The daily paid-call budget (paid tier and refresh), in its two parts.
    pub paid_calls: PaidCallsDto,
    /// The daily person-lookup ceiling (person reads).
    pub person_lookups: PartDto,
    /// Every limit a consumer's request spends, as the `RateLimit-Policy` and `RateLimit`
    /// fields name them.
    pub quotas: Vec<QuotaDto>,
}

/// The paid-call budget: what scheduled monitoring may take is reserved for it, and
/// on-demand reads (the consumer's) take the rest.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = PaidCallsUsage)]
#[schemars(rename = "PaidCallsUsage")]
pub struct PaidCallsDto {
    /// Paid calls a day, both parts together.
    pub daily_limit: i64,
    /// The share of it reserved for scheduled monitoring (0 to 1).
    pub monitoring_share: f64,
    /// The consumer's reads: the paid tier and forced refreshes.
    pub on_demand: PartDto,
    /// Scheduled monitoring's full refreshes.
    pub scheduled: PartDto,
}

/// One limit's figures for the day.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = UsagePart)]
#[schemars(rename = "UsagePart")]
pub struct PartDto {
    pub limit: i64,
    pub used: i64,
    /// `limit - used`, never below 0.
    pub remaining: i64,
}

/// One quota policy with the caller's standing against it: the numbers of the
/// `RateLimit-Policy` (`q`, `w`) and `RateLimit` (`r`, `t`) fields.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = Quota)]
#[schemars(rename = "Quota")]
pub struct QuotaDto {
    /// `paid` (the paid-call budget's on-demand part) or `person_lookups`.
    pub policy: &'static str,
    /// What the policy allows a day (`q`).
    pub quota: i64,
    /// Left today (`r`).
    pub remaining: i64,
    /// The policy's window in seconds (`w`): one day.
    pub window_seconds: i64,
    /// Seconds until it renews (`t`).
    pub reset_seconds: i64,
}

impl From<&QuotaLine> for QuotaDto {
    fn from(line: &QuotaLine) -> Self {
        QuotaDto {
            policy: line.limit.policy(),
            quota: line.quota,
            remaining: line.remaining,
            window_seconds: WINDOW_SECONDS,
            reset_seconds: line.reset_seconds,
        }
    }
}

impl From<&Usage> for UsageDto {
    fn from(usage: &Usage) -> Self {
        let s = &usage.statement;
        let part = |spender: Spender, used: i64| PartDto {
            limit: s.budget.cap(spender),
            used,
            remaining: s.remaining(spender),
        };
        UsageDto {
            day: s.day.format("%Y-%m-%d").to_string(),
            time_zone: s.time_zone,
            resets_at: timestamp(s.renews_at),
            reset_seconds: usage.reset_seconds(),
            paid_calls: PaidCallsDto {
                daily_limit: s.budget.daily_paid_calls.max(0),
                monitoring_share: s.budget.monitoring_share.clamp(0.0, 1.0),
                on_demand: part(Spender::OnDemand, s.usage.on_demand),
                scheduled: part(Spender::Scheduled, s.usage.scheduled),
            },
            person_lookups: PartDto {
                limit: s.budget.person_lookup_ceiling.max(0),
                used: s.person_lookups,
                remaining: s.person_lookups_remaining(),
            },
            quotas: usage
                .lines(&domain::usage::quota::Limit::ALL)
                .iter()
                .map(QuotaDto::from)
                .collect(),
        }
    }
}
