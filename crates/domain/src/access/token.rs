//! Access tokens (OAuth 2.0 client credentials): what a token carries and what a token
//! request and its answer hold. The endpoint's use case is `token_issuer`.

use crate::access::scope::ScopeSet;
use crate::countries::country::CountrySet;
use crate::ids::{GrantId, TenantId};
use chrono::{DateTime, Utc};

/// What a token carries: a copy of the grant at minting time. The grant record governs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenClaims {
    pub tenant_id: TenantId,
    pub grant_id: GrantId,
    pub scopes: ScopeSet,
    pub countries: CountrySet,
    pub credential_generation: i32,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The resources (RFC 8707) it was minted for; empty for a client-credentials token,
    /// which any resource of this service accepts. A resource not named refuses the token.
    pub audience: Vec<String>,
}

impl TokenClaims {
    /// What a token minted at `now` for `grant` carries: `scopes` (the grant's, or fewer),
    /// the grant's countries and credential generation, `audience`, and an expiry `lifetime`
    /// on that never outlives the grant's.
    pub fn for_grant(
        grant: &crate::access::grant::Grant,
        scopes: ScopeSet,
        now: DateTime<Utc>,
        lifetime: chrono::Duration,
        audience: Vec<String>,
    ) -> TokenClaims {
        let mut expires_at = now + lifetime;
        if let Some(grant_expiry) = grant.expires_at {
            expires_at = expires_at.min(grant_expiry);
        }
        TokenClaims {
            tenant_id: grant.tenant_id,
            grant_id: grant.id,
            scopes,
            countries: grant.countries.clone(),
            credential_generation: grant.credential_generation,
            issued_at: now,
            expires_at,
            audience,
        }
    }

    /// Seconds from `now` to the expiry (never below zero): the answer's `expires_in`.
    pub fn expires_in(&self, now: DateTime<Utc>) -> i64 {
        (self.expires_at - now).num_seconds().max(0)
    }
}

/// Why a presented token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenRejection {
    #[error("token is not well-formed")]
    Malformed,
    #[error("token signature does not verify")]
    BadSignature,
    #[error("token has expired")]
    Expired(Box<TokenClaims>),
}

/// A token request after the surface has parsed it. The secret is a [`ClientSecret`], whose
/// `Debug` prints nothing of it: the request can be logged whole.
#[derive(Clone, Debug)]
pub struct TokenRequest {
    pub client_id: String,
    pub client_secret: crate::access::grant::ClientSecret,
    pub scope: ScopeRequest,
}

/// What a token request asks for, and how firmly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopeRequest {
    /// No scope list: every scope the grant holds.
    Granted,
    /// A space-separated list the token must carry exactly: a scope the grant lacks is
    /// refused (400 `bad_request` naming it), never silently dropped.
    Exactly(String),
    /// A list from a client that named the resource it wants a token for (RFC 8707): such a
    /// client asks for what the resource's metadata or challenge advertises, not for what it
    /// knows it holds, so the list is an upper bound. The token carries the scopes the grant
    /// holds among them (the answer's `scope` says which, RFC 6749 §3.3); none is 400
    /// `invalid_scope`.
    AtMost(String),
}

impl ScopeRequest {
    /// The request as the wire sent it: a `scope` field (absent, empty or blank: every scope
    /// granted), and whether the request named a resource (RFC 8707).
    pub fn from_wire(scope: Option<&str>, names_resource: bool) -> ScopeRequest {
        match scope.map(str::trim).filter(|s| !s.is_empty()) {
            None => ScopeRequest::Granted,
            Some(list) if names_resource => ScopeRequest::AtMost(list.to_owned()),
            Some(list) => ScopeRequest::Exactly(list.to_owned()),
        }
    }
}

/// The answer to a successful token request.
#[derive(Clone, Debug)]
pub struct IssuedToken {
    pub access_token: String,
    pub expires_in: i64,
    pub scopes: ScopeSet,
    pub countries: CountrySet,
    /// Live, or test mode (the grant is a test twin's).
    pub mode: crate::access::tenant::TenantMode,
    /// The next refresh token of an agent connection (never for client credentials).
    pub refresh_token: Option<String>,
}

#[cfg(test)]
mod secret_tests {
    use super::*;

    #[test]
    fn a_token_request_logs_no_secret() {
        let request = TokenRequest {
            client_id: "cid_01".into(),
            client_secret: crate::access::grant::ClientSecret::new("cs_very_secret".into()),
            scope: ScopeRequest::from_wire(None, false),
        };
        let logged = format!("{request:?} {request:#?}");
        assert!(!logged.contains("cs_very_secret"), "{logged}");
        assert!(logged.contains("cid_01"));
    }
}
