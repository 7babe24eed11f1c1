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

/// A token request after the surface has parsed it.
#[derive(Clone, Debug)]
pub struct TokenRequest {
    pub client_id: String,
    pub client_secret: String,
    /// The requested scope list; `None` means every scope the grant holds.
    pub scope: Option<String>,
}

/// The answer to a successful token request.
#[derive(Clone, Debug)]
pub struct IssuedToken {
    pub access_token: String,
    pub expires_in: i64,
    pub scopes: ScopeSet,
    pub countries: CountrySet,
}
