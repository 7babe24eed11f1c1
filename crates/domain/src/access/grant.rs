//! Grants: one consumer's credentials, scopes and countries under one tenant.

use crate::access::scope::ScopeSet;
use crate::countries::country::CountrySet;
use crate::ids::{ClientId, GrantId, TenantId};
use chrono::{DateTime, Utc};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct Grant {
    pub id: GrantId,
    pub tenant_id: TenantId,
    pub client_id: ClientId,
    pub scopes: ScopeSet,
    pub countries: CountrySet,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// Bumped by every secret rotation; tokens minted under an older generation stop working.
    pub credential_generation: i32,
    pub created_at: DateTime<Utc>,
    /// Who revokes and narrows it: the operator for a grant provisioned on paper terms, the
    /// tenant for one it made in the portal.
    pub owner: GrantOwner,
}

/// The owner of a grant's terms (the specification's grant lifecycle: a grant is "revoked or
/// narrowed by the owner (the tenant for portal-created grants, the operator for paper-term
/// grants)").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GrantOwner {
    /// Provisioned by the operator (`idreg admin grant create`) on paper terms.
    Operator,
    /// Made by the tenant in the portal.
    Tenant,
}

impl GrantOwner {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantOwner::Operator => "operator",
            GrantOwner::Tenant => "tenant",
        }
    }

    pub fn parse(s: &str) -> Option<GrantOwner> {
        [GrantOwner::Operator, GrantOwner::Tenant]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// Why a grant no longer admits anyone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GrantLapse {
    Revoked,
    Expired,
}

impl GrantLapse {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantLapse::Revoked => "grant_revoked",
            GrantLapse::Expired => "grant_expired",
        }
    }
}

impl Grant {
    /// An expired grant behaves as revoked.
    pub fn lapse(&self, now: DateTime<Utc>) -> Option<GrantLapse> {
        if self.revoked_at.is_some() {
            Some(GrantLapse::Revoked)
        } else if self.expires_at.is_some_and(|e| e <= now) {
            Some(GrantLapse::Expired)
        } else {
            None
        }
    }
}

/// A client secret in the clear: exists only between generation and the one time it is
/// shown, and while a token request is checked. Never printed by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl ClientSecret {
    pub fn new(s: String) -> Self {
        ClientSecret(s)
    }

    /// The same secret marked as a test-mode grant's (`cs_test_...` for `cs_...`), so a
    /// test credential is visibly one wherever it is pasted.
    pub fn for_test(self) -> Self {
        match self.0.strip_prefix("cs_") {
            Some(rest) if !rest.starts_with("test_") => ClientSecret(format!("cs_test_{rest}")),
            _ => self,
        }
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

/// A slow hash of a client secret (PHC string).
#[derive(Clone, PartialEq, Eq)]
pub struct SecretHash(pub String);

impl fmt::Debug for SecretHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretHash(..)")
    }
}
