//! Screening policies: the thresholds that turn a matcher score into a band (`clear`,
//! `review`, `hit`) and the weights the scorer uses, as versioned values. A check records the
//! policy version (and the tenant's override version) it ran under, so a re-run with the same
//! versions bands the same.
//!
//! The service publishes **policy versions** (the operator command line); exactly one is
//! active at a time, and none active means no check can run (503 `screening_unavailable`).
//! A tenant may adjust it with an **override version**: proposed as a draft, approved by
//! another operator (four eyes), then activated, which retires the tenant's previously
//! active one. An override changes only what it names.
//!
//! A policy also says whether PEP lists are screened, and how long after leaving office a
//! position still makes a person exposed ([`PepPolicy`]); a tenant changes either with an
//! override, under the same four eyes.

use crate::ids::{OverrideVersionId, PolicyVersionId, TenantId};
use crate::screening::matcher::score::Weights;
use crate::screening::sanctions::ListKind;
use chrono::{DateTime, Utc};

/// A check's or a candidate's band.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Band {
    Clear,
    Review,
    Hit,
}

impl Band {
    pub fn as_str(self) -> &'static str {
        match self {
            Band::Clear => "clear",
            Band::Review => "review",
            Band::Hit => "hit",
        }
    }

    pub fn parse(s: &str) -> Option<Band> {
        [Band::Clear, Band::Review, Band::Hit]
            .into_iter()
            .find(|b| b.as_str() == s)
    }
}

/// The thresholds and weights of a policy (the service's, or a tenant's override of it).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyConfig {
    /// A candidate scoring at least this is put before a person.
    pub review: f64,
    /// A candidate scoring at least this is a hit.
    pub hit: f64,
    pub weights: Weights,
    pub peps: PepPolicy,
}

/// How PEP lists count under a policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PepPolicy {
    /// Whether checks screen the active PEP lists at all.
    pub screened: bool,
    /// How many months after leaving office a position still makes its holder (and the
    /// holder's relatives and associates) exposed. EU law sets at least 12 (Directive (EU)
    /// 2015/849 Art. 22; Regulation (EU) 2024/1624 Art. 45), and so do the bounds here.
    pub after_office_months: u32,
}

/// The shortest after-office window a policy may set: the law's floor.
pub const MIN_AFTER_OFFICE_MONTHS: u32 = 12;
/// The longest: fifty years, which is no expiry in practice.
pub const MAX_AFTER_OFFICE_MONTHS: u32 = 600;

impl Default for PepPolicy {
    /// PEP lists screened; a former office counts for 12 months after it ended.
    fn default() -> Self {
        PepPolicy {
            screened: true,
            after_office_months: MIN_AFTER_OFFICE_MONTHS,
        }
    }
}

/// Why a policy's numbers are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("thresholds must satisfy 0 < review <= hit <= 1")]
    Thresholds,
    #[error("weights must be between 0 and 1")]
    Weights,
    #[error("a former office counts for 12 to 600 months after it ended (EU law's floor is 12)")]
    AfterOffice,
}

impl Default for PolicyConfig {
    /// The service's first policy: review at 0.80, hit at 0.92 (tuned on the development
    /// share of the evaluation set; see `docs/decisions.md`, "The matcher").
    fn default() -> Self {
        PolicyConfig {
            review: 0.80,
            hit: 0.92,
            weights: Weights::default(),
            peps: PepPolicy::default(),
        }
    }
}

impl PolicyConfig {
    /// Checks the numbers: thresholds ordered within 0..=1, every weight within 0..=1.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        if !(self.review > 0.0 && self.review <= self.hit && unit(self.hit)) {
            return Err(PolicyError::Thresholds);
        }
        let w = &self.weights;
        let all = [
            w.birth_date_exact,
            w.birth_date_partial,
            w.birth_date_mismatch,
            w.nationality_match,
            w.nationality_mismatch,
            w.country_match,
            w.weak_alias,
        ];
        if !all.iter().all(|x| unit(*x)) {
            return Err(PolicyError::Weights);
        }
        if !(MIN_AFTER_OFFICE_MONTHS..=MAX_AFTER_OFFICE_MONTHS)
            .contains(&self.peps.after_office_months)
        {
            return Err(PolicyError::AfterOffice);
        }
        Ok(())
    }

    /// Whether checks under this policy screen the lists of `kind`: sanctions lists always,
    /// PEP lists unless the policy leaves them out.
    pub fn screens(&self, kind: ListKind) -> bool {
        kind == ListKind::Sanctions || self.peps.screened
    }

    /// The band of a score under this policy.
    pub fn band(&self, score: f64) -> Band {
        if score >= self.hit {
            Band::Hit
        } else if score >= self.review {
            Band::Review
        } else {
            Band::Clear
        }
    }
}

/// One published version of the service's policy.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyVersion {
    pub id: PolicyVersionId,
    /// 1, 2, 3, ... in publishing order.
    pub version: u32,
    pub config: PolicyConfig,
    /// The operator who published it.
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    /// Whether checks run under it now (at most one version is active).
    pub active: bool,
}

/// What a tenant's override changes: the thresholds (both or neither) and any weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverrideConfig {
    /// `(review, hit)`.
    pub thresholds: Option<(f64, f64)>,
    pub weights: WeightOverrides,
    /// Whether PEP lists are screened; `None` keeps the policy's.
    pub peps_screened: Option<bool>,
    /// The after-office window in months; `None` keeps the policy's.
    pub pep_after_office_months: Option<u32>,
}

/// Weights an override sets; `None` keeps the policy's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeightOverrides {
    pub birth_date_exact: Option<f64>,
    pub birth_date_partial: Option<f64>,
    pub birth_date_mismatch: Option<f64>,
    pub nationality_match: Option<f64>,
    pub nationality_mismatch: Option<f64>,
    pub country_match: Option<f64>,
    pub weak_alias: Option<f64>,
}

impl WeightOverrides {
    /// Every weight by its wire name, set or not, in a fixed order.
    pub fn fields(&self) -> [(&'static str, Option<f64>); 7] {
        [
            ("birth_date_exact", self.birth_date_exact),
            ("birth_date_partial", self.birth_date_partial),
            ("birth_date_mismatch", self.birth_date_mismatch),
            ("nationality_match", self.nationality_match),
            ("nationality_mismatch", self.nationality_mismatch),
            ("country_match", self.country_match),
            ("weak_alias", self.weak_alias),
        ]
    }

    /// Sets a weight by its wire name; `false` when no weight has that name.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        let slot = match name {
            "birth_date_exact" => &mut self.birth_date_exact,
            "birth_date_partial" => &mut self.birth_date_partial,
            "birth_date_mismatch" => &mut self.birth_date_mismatch,
            "nationality_match" => &mut self.nationality_match,
            "nationality_mismatch" => &mut self.nationality_mismatch,
            "country_match" => &mut self.country_match,
            "weak_alias" => &mut self.weak_alias,
            _ => return false,
        };
        *slot = Some(value);
        true
    }
}

impl OverrideConfig {
    /// The policy with this override applied, validated.
    pub fn apply(&self, policy: &PolicyConfig) -> Result<PolicyConfig, PolicyError> {
        let mut out = policy.clone();
        if let Some((review, hit)) = self.thresholds {
            out.review = review;
            out.hit = hit;
        }
        let o = &self.weights;
        let w = &mut out.weights;
        let pairs: [(&mut f64, Option<f64>); 7] = [
            (&mut w.birth_date_exact, o.birth_date_exact),
            (&mut w.birth_date_partial, o.birth_date_partial),
            (&mut w.birth_date_mismatch, o.birth_date_mismatch),
            (&mut w.nationality_match, o.nationality_match),
            (&mut w.nationality_mismatch, o.nationality_mismatch),
            (&mut w.country_match, o.country_match),
            (&mut w.weak_alias, o.weak_alias),
        ];
        for (slot, value) in pairs {
            if let Some(v) = value {
                *slot = v;
            }
        }
        if let Some(screened) = self.peps_screened {
            out.peps.screened = screened;
        }
        if let Some(months) = self.pep_after_office_months {
            out.peps.after_office_months = months;
        }
        out.validate()?;
        Ok(out)
    }

    /// Checks the override on its own: it holds against any valid policy, because it sets
    /// both thresholds or neither and each weight lies within 0..=1.
    pub fn validate(&self) -> Result<(), PolicyError> {
        self.apply(&PolicyConfig::default()).map(|_| ())
    }
}

/// Where an override version stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OverrideStatus {
    Draft,
    Approved,
    Active,
    Retired,
}

impl OverrideStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OverrideStatus::Draft => "draft",
            OverrideStatus::Approved => "approved",
            OverrideStatus::Active => "active",
            OverrideStatus::Retired => "retired",
        }
    }

    pub fn parse(s: &str) -> Option<OverrideStatus> {
        [
            OverrideStatus::Draft,
            OverrideStatus::Approved,
            OverrideStatus::Active,
            OverrideStatus::Retired,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
    }

    /// The moves allowed: draft → approved → active → retired; a draft or an approved
    /// version may be retired (withdrawn) without ever being active. Nothing leaves
    /// `retired`.
    pub fn may_become(self, to: OverrideStatus) -> bool {
        use OverrideStatus::*;
        matches!(
            (self, to),
            (Draft, Approved) | (Approved, Active) | (Draft | Approved | Active, Retired)
        )
    }
}

/// One version of a tenant's override.
#[derive(Clone, Debug, PartialEq)]
pub struct OverrideVersion {
    pub id: OverrideVersionId,
    pub tenant_id: TenantId,
    /// 1, 2, 3, ... per tenant, in proposing order.
    pub version: u32,
    pub config: OverrideConfig,
    pub proposed_by: String,
    pub approved_by: Option<String>,
    pub status: OverrideStatus,
    /// When it became active (`None` until then).
    pub effective_from: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_band_at_the_thresholds() {
        let p = PolicyConfig::default();
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.band(0.79), Band::Clear);
        assert_eq!(p.band(0.80), Band::Review);
        assert_eq!(p.band(0.919), Band::Review);
        assert_eq!(p.band(0.92), Band::Hit);
        assert_eq!(p.band(1.0), Band::Hit);
        assert!(Band::Hit > Band::Review && Band::Review > Band::Clear);
        assert!(p.screens(ListKind::Sanctions) && p.screens(ListKind::Pep));
        let no_peps = PolicyConfig {
            peps: PepPolicy {
                screened: false,
                ..PepPolicy::default()
            },
            ..PolicyConfig::default()
        };
        assert!(no_peps.screens(ListKind::Sanctions) && !no_peps.screens(ListKind::Pep));
        assert_eq!(Band::parse("review"), Some(Band::Review));
    }

    #[test]
    fn disordered_or_out_of_range_numbers_are_refused() {
        let mut p = PolicyConfig {
            review: 0.95,
            ..PolicyConfig::default()
        };
        assert_eq!(p.validate(), Err(PolicyError::Thresholds));
        p.review = 0.0;
        assert_eq!(p.validate(), Err(PolicyError::Thresholds));
        p.review = 0.8;
        p.weights.weak_alias = 1.5;
        assert_eq!(p.validate(), Err(PolicyError::Weights));
        p.weights.weak_alias = f64::NAN;
        assert_eq!(p.validate(), Err(PolicyError::Weights));
    }

    #[test]
    fn an_override_changes_only_what_it_names() {
        let mut o = OverrideConfig {
            thresholds: Some((0.85, 0.95)),
            ..OverrideConfig::default()
        };
        assert!(o.weights.set("weak_alias", 0.2));
        assert!(!o.weights.set("no_such_weight", 0.2));
        let p = o.apply(&PolicyConfig::default()).unwrap();
        assert_eq!((p.review, p.hit), (0.85, 0.95));
        assert_eq!(p.weights.weak_alias, 0.2);
        assert_eq!(
            p.weights.birth_date_exact,
            Weights::default().birth_date_exact
        );
        assert_eq!(p.peps, PepPolicy::default());
        o.thresholds = Some((0.95, 0.85));
        assert_eq!(o.validate(), Err(PolicyError::Thresholds));
    }

    #[test]
    fn an_override_may_leave_peps_out_or_widen_the_window_never_below_the_floor() {
        let o = OverrideConfig {
            peps_screened: Some(false),
            pep_after_office_months: Some(60),
            ..OverrideConfig::default()
        };
        let p = o.apply(&PolicyConfig::default()).unwrap();
        assert_eq!(
            p.peps,
            PepPolicy {
                screened: false,
                after_office_months: 60
            }
        );
        for months in [0, 11, 601] {
            let o = OverrideConfig {
                pep_after_office_months: Some(months),
                ..OverrideConfig::default()
            };
            assert_eq!(o.validate(), Err(PolicyError::AfterOffice), "{months}");
        }
    }

    #[test]
    fn override_statuses_move_one_way() {
        use OverrideStatus::*;
        assert!(Draft.may_become(Approved));
        assert!(Approved.may_become(Active));
        assert!(Active.may_become(Retired));
        assert!(Draft.may_become(Retired));
        assert!(!Draft.may_become(Active));
        assert!(!Retired.may_become(Active));
        assert!(!Active.may_become(Approved));
        assert_eq!(OverrideStatus::parse("approved"), Some(Approved));
    }
}
