//! `idreg screening ...`: the operator's screening configuration, a thin surface over the
//! domain's `ScreeningAdmin`: the service's policy versions, a tenant's override versions and
//! a tenant's whitelist entries (both with four eyes: whoever proposes or makes one never
//! approves it).
//!
//! Every command prints one JSON object on stdout, like the `admin` and `lists` commands
//! (override versions and whitelist entries in the shape the REST reads give them, with
//! their `tenant_id`); a refusal prints `{"error", "message"}` there and the message on
//! stderr, and exits non-zero.

use crate::app::App;
use api_core::dto::screening::{OverrideVersionDto, WhitelistEntryDto};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use clap::Subcommand;
use domain::screening::admin::NewWhitelistEntry;
use domain::screening::matcher::score::Weights;
use domain::screening::policy::{
    OverrideConfig, OverrideVersion, PolicyConfig, PolicyVersion, WeightOverrides,
};
use domain::screening::service::WhitelistView;
use domain::screening::whitelist::WhitelistEntry;
use domain::Failure;
use serde_json::{json, Value};

#[derive(Subcommand, Debug)]
pub enum ScreeningCommand {
    /// The service's policy versions (thresholds and weights); exactly one is active, or none.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// A tenant's override versions of the policy (draft → approved → active → retired).
    #[command(subcommand)]
    Override(OverrideCommand),
    /// A tenant's whitelist entries ("this list entry is not our customer").
    #[command(subcommand)]
    Whitelist(WhitelistCommand),
}

#[derive(Subcommand, Debug)]
pub enum PolicyCommand {
    /// Publishes a policy version and makes it the active one (the previous one retires).
    /// Options not given keep the default policy's values (review 0.80, hit 0.92).
    Publish {
        /// The operator publishing it.
        #[arg(long)]
        by: String,
        /// A candidate scoring at least this is put before a person.
        #[arg(long)]
        review: Option<f64>,
        /// A candidate scoring at least this is a hit.
        #[arg(long)]
        hit: Option<f64>,
        /// A weight, e.g. `birth_date_mismatch=0.10`; repeat for several.
        #[arg(long = "weight", value_name = "NAME=VALUE")]
        weights: Vec<String>,
        #[command(flatten)]
        peps: PepOptions,
    },
    /// Retires a policy version (when it was the active one, no check runs until another is
    /// published).
    Retire { id: String },
    /// Every policy version, newest first.
    List,
}

/// How a policy (or an override) treats PEP lists.
#[derive(clap::Args, Debug, Default)]
pub struct PepOptions {
    /// Whether checks screen the PEP lists (`on` or `off`); a policy screens them unless
    /// told `off`.
    #[arg(long, value_enum)]
    peps: Option<OnOff>,
    /// How many months after leaving office a position still makes its holder exposed: 12
    /// (EU law's floor, the default) to 600.
    #[arg(long)]
    pep_after_office_months: Option<u32>,
}

#[derive(clap::ValueEnum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Subcommand, Debug)]
pub enum OverrideCommand {
    /// Proposes an override version (a draft): only what it names changes; `--review` and
    /// `--hit` go together.
    Propose {
        tenant: String,
        /// The operator proposing it.
        #[arg(long)]
        by: String,
        #[arg(long)]
        review: Option<f64>,
        #[arg(long)]
        hit: Option<f64>,
        /// A weight, e.g. `weak_alias=0.20`; repeat for several.
        #[arg(long = "weight", value_name = "NAME=VALUE")]
        weights: Vec<String>,
        #[command(flatten)]
        peps: PepOptions,
    },
    /// Approves a draft: by an operator other than its proposer.
    Approve {
        tenant: String,
        id: String,
        #[arg(long)]
        by: String,
    },
    /// Activates an approved version; the tenant's active one retires.
    Activate { tenant: String, id: String },
    /// Retires (or withdraws) a version.
    Retire { tenant: String, id: String },
    /// The tenant's override versions, newest first.
    List { tenant: String },
}

#[derive(Subcommand, Debug)]
pub enum WhitelistCommand {
    /// Adds an entry clearing one list entry for a subject or for a check's input hash; it
    /// takes effect once another operator approves it.
    Add {
        tenant: String,
        /// The subject it clears.
        #[arg(long)]
        subject_id: Option<String>,
        /// The `input_hash` of the ad-hoc check it clears.
        #[arg(long)]
        input_hash: Option<String>,
        /// The list: un_sc, ofac_sdn, ofac_cons, eu_fsf, uk_fcdo, opensanctions, ftm_peps or
        /// se_riksdagen.
        #[arg(long)]
        source: String,
        /// The list's own id of the entry (a candidate's `source_entry_id`).
        #[arg(long)]
        entry: String,
        #[arg(long)]
        reason: String,
        /// A date (YYYY-MM-DD: in effect through that day, UTC) or an RFC 3339 time; at most
        /// three years ahead.
        #[arg(long)]
        expires: String,
        /// The operator making it.
        #[arg(long)]
        by: String,
    },
    /// Approves an entry: by an operator other than its maker.
    Approve {
        tenant: String,
        id: String,
        #[arg(long)]
        by: String,
    },
    /// Revokes an entry at once.
    Revoke { tenant: String, id: String },
    /// The tenant's entries, newest first, each with whether it is in effect now.
    List { tenant: String },
}

pub async fn execute_screening(app: &App, command: ScreeningCommand) -> Result<Value, Failure> {
    let admin = &app.services.screening_admin;
    match command {
        ScreeningCommand::Policy(PolicyCommand::Publish {
            by,
            review,
            hit,
            weights,
            peps,
        }) => {
            let config = policy_config(review, hit, &weights, &peps)?;
            Ok(policy_json(&admin.publish_policy(config, &by).await?))
        }
        ScreeningCommand::Policy(PolicyCommand::Retire { id }) => {
            Ok(policy_json(&admin.retire_policy(&id).await?))
        }
        ScreeningCommand::Policy(PolicyCommand::List) => {
            let policies = admin.policies().await?;
            Ok(json!({ "policies": policies.iter().map(policy_json).collect::<Vec<_>>() }))
        }
        ScreeningCommand::Override(OverrideCommand::Propose {
            tenant,
            by,
            review,
            hit,
            weights,
            peps,
        }) => {
            let config = override_config(review, hit, &weights, &peps)?;
            Ok(override_json(
                &admin.propose_override(&tenant, config, &by).await?,
            ))
        }
        ScreeningCommand::Override(OverrideCommand::Approve { tenant, id, by }) => Ok(
            override_json(&admin.approve_override(&tenant, &id, &by).await?),
        ),
        ScreeningCommand::Override(OverrideCommand::Activate { tenant, id }) => {
            Ok(override_json(&admin.activate_override(&tenant, &id).await?))
        }
        ScreeningCommand::Override(OverrideCommand::Retire { tenant, id }) => {
            Ok(override_json(&admin.retire_override(&tenant, &id).await?))
        }
        ScreeningCommand::Override(OverrideCommand::List { tenant }) => {
            let versions = admin.overrides(&tenant).await?;
            Ok(json!({
                "tenant_id": tenant,
                "versions": versions.iter().map(override_json).collect::<Vec<_>>(),
            }))
        }
        ScreeningCommand::Whitelist(WhitelistCommand::Add {
            tenant,
            subject_id,
            input_hash,
            source,
            entry,
            reason,
            expires,
            by,
        }) => {
            let expires_at = parse_expiry(&expires)?;
            let entry = admin
                .add_whitelist_entry(NewWhitelistEntry {
                    tenant,
                    subject_id,
                    input_hash,
                    source_id: source,
                    source_entry_id: entry,
                    reason,
                    created_by: by,
                    expires_at,
                })
                .await?;
            Ok(whitelist_json(&entry, Utc::now()))
        }
        ScreeningCommand::Whitelist(WhitelistCommand::Approve { tenant, id, by }) => {
            let entry = admin.approve_whitelist_entry(&tenant, &id, &by).await?;
            Ok(whitelist_json(&entry, Utc::now()))
        }
        ScreeningCommand::Whitelist(WhitelistCommand::Revoke { tenant, id }) => {
            let entry = admin.revoke_whitelist_entry(&tenant, &id).await?;
            Ok(whitelist_json(&entry, Utc::now()))
        }
        ScreeningCommand::Whitelist(WhitelistCommand::List { tenant }) => {
            let entries = admin.whitelist(&tenant).await?;
            let now = Utc::now();
            Ok(json!({
                "tenant_id": tenant,
                "entries": entries.iter().map(|e| whitelist_json(e, now)).collect::<Vec<_>>(),
            }))
        }
    }
}

/// `--weight name=value` options, by the weights' wire names.
fn weight_overrides(options: &[String]) -> Result<WeightOverrides, Failure> {
    let mut weights = WeightOverrides::default();
    let names = || {
        WeightOverrides::default()
            .fields()
            .map(|(name, _)| name)
            .join(", ")
    };
    for option in options {
        let (name, value) = option.split_once('=').ok_or_else(|| {
            Failure::bad_request("weight", &format!("`{option}` is not NAME=VALUE"))
        })?;
        let value: f64 = value.trim().parse().map_err(|_| {
            Failure::bad_request("weight", &format!("`{option}`: the value is not a number"))
        })?;
        if !weights.set(name.trim(), value) {
            return Err(Failure::bad_request(
                "weight",
                &format!(
                    "unknown weight `{}`; the weights are {}",
                    name.trim(),
                    names()
                ),
            ));
        }
    }
    Ok(weights)
}

/// The policy to publish: the default policy with what the options name.
fn policy_config(
    review: Option<f64>,
    hit: Option<f64>,
    weights: &[String],
    peps: &PepOptions,
) -> Result<PolicyConfig, Failure> {
    let default = PolicyConfig::default();
    let changes = OverrideConfig {
        thresholds: Some((review.unwrap_or(default.review), hit.unwrap_or(default.hit))),
        weights: weight_overrides(weights)?,
        peps_screened: peps.peps.map(|p| p == OnOff::On),
        pep_after_office_months: peps.pep_after_office_months,
    };
    changes
        .apply(&default)
        .map_err(|e| Failure::bad_request("policy", &e.to_string()))
}

/// The override to propose: only what the options name.
fn override_config(
    review: Option<f64>,
    hit: Option<f64>,
    weights: &[String],
    peps: &PepOptions,
) -> Result<OverrideConfig, Failure> {
    let thresholds = match (review, hit) {
        (Some(review), Some(hit)) => Some((review, hit)),
        (None, None) => None,
        _ => {
            return Err(Failure::bad_request(
                "review",
                "an override sets --review and --hit together, or neither",
            ))
        }
    };
    let config = OverrideConfig {
        thresholds,
        weights: weight_overrides(weights)?,
        peps_screened: peps.peps.map(|p| p == OnOff::On),
        pep_after_office_months: peps.pep_after_office_months,
    };
    if config == OverrideConfig::default() {
        return Err(Failure::bad_request(
            "override",
            "names nothing to change (give --review and --hit, --weight, --peps or \
             --pep-after-office-months)",
        ));
    }
    config
        .validate()
        .map_err(|e| Failure::bad_request("override", &e.to_string()))?;
    Ok(config)
}

/// `--expires`: a date is in effect through that day (UTC), so it expires at the next
/// midnight; otherwise an RFC 3339 time.
fn parse_expiry(s: &str) -> Result<DateTime<Utc>, Failure> {
    let s = s.trim();
    if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok((day + Duration::days(1))
            .and_time(chrono::NaiveTime::MIN)
            .and_utc());
    }
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            Failure::bad_request(
                "expires",
                "must be a date like 2027-06-30 or an RFC 3339 time like 2027-06-30T12:00:00Z",
            )
        })
}

fn timestamp(t: DateTime<Utc>) -> String {
    api_core::dto::timestamp(t)
}

fn weights_json(w: &Weights) -> Value {
    json!({
        "birth_date_exact": w.birth_date_exact,
        "birth_date_partial": w.birth_date_partial,
        "birth_date_mismatch": w.birth_date_mismatch,
        "nationality_match": w.nationality_match,
        "nationality_mismatch": w.nationality_mismatch,
        "country_match": w.country_match,
        "weak_alias": w.weak_alias,
    })
}

pub fn policy_json(p: &PolicyVersion) -> Value {
    json!({
        "id": p.id.to_string(),
        "version": p.version,
        "config": {
            "review": p.config.review,
            "hit": p.config.hit,
            "weights": weights_json(&p.config.weights),
            "peps": {
                "screened": p.config.peps.screened,
                "after_office_months": p.config.peps.after_office_months,
            },
        },
        "created_by": p.created_by,
        "created_at": timestamp(p.created_at),
        "active": p.active,
    })
}

/// An override version as `GET /v1/screening/overrides` shows it, with its tenant.
pub fn override_json(o: &OverrideVersion) -> Value {
    let mut value = serde_json::to_value(OverrideVersionDto::from(o)).unwrap_or_default();
    value["tenant_id"] = Value::String(o.tenant_id.to_string());
    value
}

/// An entry as `GET /v1/screening/whitelist` shows it (`effective` computed at `now`), with
/// its tenant.
pub fn whitelist_json(e: &WhitelistEntry, now: DateTime<Utc>) -> Value {
    let view = WhitelistView {
        effective: e.effective(now),
        entry: e.clone(),
    };
    let mut value = serde_json::to_value(WhitelistEntryDto::from(&view)).unwrap_or_default();
    value["tenant_id"] = Value::String(e.tenant_id.to_string());
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_core::dto::screening::OverrideConfigDto;

    #[test]
    fn a_date_expires_at_the_next_midnight_and_a_time_is_taken_as_given() {
        assert_eq!(
            parse_expiry("2027-06-30").unwrap(),
            "2027-07-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            parse_expiry("2027-06-30T12:00:00+02:00").unwrap(),
            "2027-06-30T10:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert!(parse_expiry("30/06/2027").is_err());
    }

    #[test]
    fn weights_are_named_and_thresholds_go_together() {
        let p = policy_config(
            None,
            None,
            &["weak_alias=0.2".into()],
            &PepOptions::default(),
        )
        .unwrap();
        assert_eq!((p.review, p.hit, p.weights.weak_alias), (0.80, 0.92, 0.2));
        assert!(
            policy_config(Some(0.95), None, &[], &PepOptions::default()).is_err(),
            "review above hit"
        );
        let none = PepOptions::default();
        assert!(policy_config(None, None, &["nope=0.1".into()], &none).is_err());
        assert!(policy_config(None, None, &["weak_alias".into()], &none).is_err());
        assert!(override_config(Some(0.85), None, &[], &none).is_err());
        assert!(override_config(None, None, &[], &none).is_err());
        let o =
            override_config(Some(0.85), Some(0.95), &["country_match=0".into()], &none).unwrap();
        assert_eq!(o.thresholds, Some((0.85, 0.95)));
        let shown = serde_json::to_value(OverrideConfigDto::from(&o)).unwrap();
        assert_eq!(
            shown,
            json!({"review": 0.85, "hit": 0.95, "weights": {"country_match": 0.0}})
        );
    }

    #[test]
    fn peps_are_screened_unless_told_off_and_the_window_keeps_the_floor() {
        let none = PepOptions::default();
        let p = policy_config(None, None, &[], &none).unwrap();
        assert!(p.peps.screened && p.peps.after_office_months == 12);
        let off = PepOptions {
            peps: Some(OnOff::Off),
            pep_after_office_months: Some(24),
        };
        let p = policy_config(None, None, &[], &off).unwrap();
        assert!(!p.peps.screened && p.peps.after_office_months == 24);
        let o = override_config(None, None, &[], &off).unwrap();
        assert_eq!(
            serde_json::to_value(OverrideConfigDto::from(&o)).unwrap(),
            json!({"weights": {}, "peps_screened": false, "pep_after_office_months": 24})
        );
        let short = PepOptions {
            peps: None,
            pep_after_office_months: Some(6),
        };
        assert!(policy_config(None, None, &[], &short).is_err());
        assert!(override_config(None, None, &[], &short).is_err());
    }
}
