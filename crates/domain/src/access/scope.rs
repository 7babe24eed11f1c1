//! Scopes: what a grant lets a consumer do.

use std::collections::BTreeSet;
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    IdentityRead,
    KybRead,
    KycRead,
    MonitoringRead,
    MonitoringSubscribe,
    DecisionsWrite,
    EventsRead,
    ScreeningRead,
    ScreeningRun,
    KybRefresh,
    /// Exists, but is not a consumer scope: no grant may carry it.
    ScreeningPolicy,
}

impl Scope {
    /// The ten scopes a consumer grant may carry, in the spec's order.
    pub const CONSUMER: [Scope; 10] = [
        Scope::IdentityRead,
        Scope::KybRead,
        Scope::KycRead,
        Scope::MonitoringRead,
        Scope::MonitoringSubscribe,
        Scope::DecisionsWrite,
        Scope::EventsRead,
        Scope::ScreeningRead,
        Scope::ScreeningRun,
        Scope::KybRefresh,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::IdentityRead => "identity:read",
            Scope::KybRead => "kyb:read",
            Scope::KycRead => "kyc:read",
            Scope::MonitoringRead => "monitoring:read",
            Scope::MonitoringSubscribe => "monitoring:subscribe",
            Scope::DecisionsWrite => "decisions:write",
            Scope::EventsRead => "events:read",
            Scope::ScreeningRead => "screening:read",
            Scope::ScreeningRun => "screening:run",
            Scope::KybRefresh => "kyb:refresh",
            Scope::ScreeningPolicy => "screening:policy",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::CONSUMER
            .into_iter()
            .chain([Scope::ScreeningPolicy])
            .find(|scope| scope.as_str() == s)
    }

    pub fn is_consumer_scope(self) -> bool {
        self != Scope::ScreeningPolicy
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a scope list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeListError {
    #[error("unknown scope `{0}`")]
    Unknown(String),
    #[error("scope `{0}` is not a consumer scope")]
    NotGrantable(Scope),
    #[error("at least one scope is required")]
    Empty,
}

/// An ordered set of scopes; renders as the OAuth space-separated list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(BTreeSet<Scope>);

impl ScopeSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a space- (or comma-) separated list of scope names. Any unknown name refuses
    /// the whole list.
    pub fn parse_list(list: &str) -> Result<ScopeSet, ScopeListError> {
        let mut set = ScopeSet::new();
        for part in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
        {
            set.0.insert(
                Scope::parse(part).ok_or_else(|| ScopeListError::Unknown(part.to_owned()))?,
            );
        }
        Ok(set)
    }

    /// Parses a list that a consumer grant will carry: non-empty, consumer scopes only.
    pub fn parse_grantable(list: &str) -> Result<ScopeSet, ScopeListError> {
        let set = Self::parse_list(list)?;
        if set.is_empty() {
            return Err(ScopeListError::Empty);
        }
        if let Some(s) = set.iter().find(|s| !s.is_consumer_scope()) {
            return Err(ScopeListError::NotGrantable(s));
        }
        Ok(set)
    }

    pub fn contains(&self, s: Scope) -> bool {
        self.0.contains(&s)
    }
    pub fn contains_any(&self, scopes: &[Scope]) -> bool {
        scopes.iter().any(|s| self.0.contains(s))
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }
    pub fn is_subset(&self, other: &ScopeSet) -> bool {
        self.0.is_subset(&other.0)
    }
    pub fn intersection(&self, other: &ScopeSet) -> ScopeSet {
        ScopeSet(self.0.intersection(&other.0).copied().collect())
    }
    pub fn difference(&self, other: &ScopeSet) -> ScopeSet {
        ScopeSet(self.0.difference(&other.0).copied().collect())
    }
    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(Scope::as_str).collect()
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        ScopeSet(iter.into_iter().collect())
    }
}

impl fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(" "))
    }
}

/// `scope` of a token request: consumer scope names separated by spaces or commas
/// (`ScopeSet::parse_list`), or blank for every scope of the grant.
pub fn scope_list_pattern() -> String {
    let names = Scope::CONSUMER
        .iter()
        .map(|s| crate::pattern::regex_escape(s.as_str()))
        .collect::<Vec<_>>()
        .join("|");
    format!("^(?:\\s*|[\\s,]*(?:{names})(?:[\\s,]+(?:{names}))*[\\s,]*)$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_consumer_scope_round_trips() {
        for s in Scope::CONSUMER {
            assert_eq!(Scope::parse(s.as_str()), Some(s));
        }
    }

    #[test]
    fn screening_policy_is_not_grantable() {
        assert_eq!(
            ScopeSet::parse_grantable("kyb:read screening:policy"),
            Err(ScopeListError::NotGrantable(Scope::ScreeningPolicy))
        );
        assert_eq!(ScopeSet::parse_grantable("  "), Err(ScopeListError::Empty));
        assert!(matches!(
            ScopeSet::parse_list("kyb:write"),
            Err(ScopeListError::Unknown(_))
        ));
    }
}
