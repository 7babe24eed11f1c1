//! Screening policies: the thresholds that turn a matcher score into a band (`clear`,
//! `review`, `hit`) and the weights the scorer uses, as versioned values. A check records the
//! policy version (and the tenant's override version) it ran under, so a re-run with the same
//! versions bands the same.

use crate::matcher::score::Weights;

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
}

/// Why a policy's numbers are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("thresholds must satisfy 0 < review <= hit <= 1")]
    Thresholds,
    #[error("weights must be between 0 and 1")]
    Weights,
}

impl Default for PolicyConfig {
    /// The service's first policy: review at 0.80, hit at 0.92 (tuned on the development
    /// share of the evaluation set; see `docs/decisions.md`, "The matcher").
    fn default() -> Self {
        PolicyConfig {
            review: 0.80,
            hit: 0.92,
            weights: Weights::default(),
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
        if all.iter().all(|x| unit(*x)) {
            Ok(())
        } else {
            Err(PolicyError::Weights)
        }
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
}
