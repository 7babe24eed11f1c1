//! The consumer-facing failure: a closed set of codes from the spec, each with its status.
//!
//! Every use case answers `Result<T, Failure>`. Each surface maps a `Failure` to its wire form
//! in exactly one place (REST: `{error, message}` and the status; MCP: an `isError` result).

use std::any::Any;
use std::fmt;

/// Every error code of the interface, with its HTTP status.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorCode {
    BadRequest,
    InvalidIdentifier,
    InvalidCursor,
    LegalBasisInvalid,
    NameIsIdentifier,
    GrantCountriesInvalid,
    ProvisionedCountriesInvalid,
    /// `/oauth/token`: a `resource` (RFC 8707) that is not this service.
    InvalidTarget,
    /// `/oauth/token`: a scope list naming no scope the grant holds, from a client that
    /// asked for what a resource's metadata advertises (RFC 6749 §5.2).
    InvalidScope,
    Unauthorized,
    InvalidClient,
    InvalidLink,
    LinkExpired,
    LinkInvalid,
    LinkUsed,
    Forbidden,
    CountryNotGranted,
    CountryNotProvisioned,
    PersonregPermitRequired,
    PersonregPermitSuspended,
    TenantPending,
    NotFound,
    RefConflict,
    SubscriptionExists,
    SubscriptionEnded,
    IdentifierInArgument,
    BudgetExceeded,
    InternalError,
    CountryNotSupported,
    UpstreamUnavailable,
    ScreeningUnavailable,
    /// `/mcp` transport: a method other than POST.
    MethodNotAllowed,
    /// `/mcp` transport: `Accept` lacks `application/json` or `text/event-stream`.
    NotAcceptable,
    /// `/mcp` transport: a browser `Origin` other than this server's own.
    OriginNotAllowed,
    /// An `Idempotency-Key` first used for a different request (another body, path or
    /// credential).
    IdempotencyKeyReused,
    /// An `Idempotency-Key` whose first request is still running.
    IdempotencyKeyInUse,
    /// The credential holds the most webhook endpoints it may (added in 1.8.0).
    WebhookLimitReached,
    /// `/oauth/token`: an authorization code or refresh token that is invalid, expired,
    /// used, revoked, or another client's (RFC 6749 §5.2; added in 1.8.0).
    InvalidGrant,
    /// `/oauth/register`: a redirect URI that is not one a client may register (RFC 7591
    /// §3.2.2; added in 1.8.0).
    InvalidRedirectUri,
    /// `/oauth/register`: other client metadata that cannot be registered (added in 1.8.0).
    InvalidClientMetadata,
    /// Too many requests of a kind from one place in a window (added in 1.8.0).
    RateLimited,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 41] = [
        ErrorCode::BadRequest,
        ErrorCode::InvalidIdentifier,
        ErrorCode::InvalidCursor,
        ErrorCode::LegalBasisInvalid,
        ErrorCode::NameIsIdentifier,
        ErrorCode::GrantCountriesInvalid,
        ErrorCode::ProvisionedCountriesInvalid,
        ErrorCode::InvalidTarget,
        ErrorCode::InvalidScope,
        ErrorCode::Unauthorized,
        ErrorCode::InvalidClient,
        ErrorCode::InvalidLink,
        ErrorCode::LinkExpired,
        ErrorCode::LinkInvalid,
        ErrorCode::LinkUsed,
        ErrorCode::Forbidden,
        ErrorCode::CountryNotGranted,
        ErrorCode::CountryNotProvisioned,
        ErrorCode::PersonregPermitRequired,
        ErrorCode::PersonregPermitSuspended,
        ErrorCode::TenantPending,
        ErrorCode::NotFound,
        ErrorCode::RefConflict,
        ErrorCode::SubscriptionExists,
        ErrorCode::SubscriptionEnded,
        ErrorCode::IdentifierInArgument,
        ErrorCode::BudgetExceeded,
        ErrorCode::InternalError,
        ErrorCode::CountryNotSupported,
        ErrorCode::UpstreamUnavailable,
        ErrorCode::ScreeningUnavailable,
        ErrorCode::MethodNotAllowed,
        ErrorCode::NotAcceptable,
        ErrorCode::OriginNotAllowed,
        ErrorCode::IdempotencyKeyReused,
        ErrorCode::IdempotencyKeyInUse,
        ErrorCode::WebhookLimitReached,
        ErrorCode::InvalidGrant,
        ErrorCode::InvalidRedirectUri,
        ErrorCode::InvalidClientMetadata,
        ErrorCode::RateLimited,
    ];

    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            BadRequest => "bad_request",
            InvalidIdentifier => "invalid_identifier",
            InvalidCursor => "invalid_cursor",
            LegalBasisInvalid => "legal_basis_invalid",
            NameIsIdentifier => "name_is_identifier",
            GrantCountriesInvalid => "grant_countries_invalid",
            ProvisionedCountriesInvalid => "provisioned_countries_invalid",
            InvalidTarget => "invalid_target",
            InvalidScope => "invalid_scope",
            Unauthorized => "unauthorized",
            InvalidClient => "invalid_client",
            InvalidLink => "invalid_link",
            LinkExpired => "link_expired",
            LinkInvalid => "link_invalid",
            LinkUsed => "link_used",
            Forbidden => "forbidden",
            CountryNotGranted => "country_not_granted",
            CountryNotProvisioned => "country_not_provisioned",
            PersonregPermitRequired => "personreg_permit_required",
            PersonregPermitSuspended => "personreg_permit_suspended",
            TenantPending => "tenant_pending",
            NotFound => "not_found",
            RefConflict => "ref_conflict",
            SubscriptionExists => "subscription_exists",
            SubscriptionEnded => "subscription_ended",
            IdentifierInArgument => "identifier_in_argument",
            BudgetExceeded => "budget_exceeded",
            InternalError => "internal_error",
            CountryNotSupported => "country_not_supported",
            UpstreamUnavailable => "upstream_unavailable",
            ScreeningUnavailable => "screening_unavailable",
            MethodNotAllowed => "method_not_allowed",
            NotAcceptable => "not_acceptable",
            OriginNotAllowed => "origin_not_allowed",
            IdempotencyKeyReused => "idempotency_key_reused",
            IdempotencyKeyInUse => "idempotency_key_in_use",
            WebhookLimitReached => "webhook_limit_reached",
            InvalidGrant => "invalid_grant",
            InvalidRedirectUri => "invalid_redirect_uri",
            InvalidClientMetadata => "invalid_client_metadata",
            RateLimited => "rate_limited",
        }
    }

    pub fn status(self) -> u16 {
        use ErrorCode::*;
        match self {
            BadRequest
            | InvalidIdentifier
            | InvalidCursor
            | LegalBasisInvalid
            | NameIsIdentifier
            | GrantCountriesInvalid
            | ProvisionedCountriesInvalid
            | InvalidTarget
            | InvalidScope
            | InvalidGrant
            | InvalidRedirectUri
            | InvalidClientMetadata => 400,
            Unauthorized | InvalidClient | InvalidLink | LinkExpired | LinkInvalid | LinkUsed => {
                401
            }
            Forbidden
            | CountryNotGranted
            | CountryNotProvisioned
            | PersonregPermitRequired
            | PersonregPermitSuspended
            | TenantPending
            | OriginNotAllowed => 403,
            NotFound => 404,
            RefConflict | SubscriptionExists | SubscriptionEnded | IdempotencyKeyInUse
            | WebhookLimitReached => 409,
            IdentifierInArgument | IdempotencyKeyReused => 422,
            BudgetExceeded | RateLimited => 429,
            InternalError => 500,
            CountryNotSupported => 501,
            UpstreamUnavailable | ScreeningUnavailable => 503,
            MethodNotAllowed => 405,
            NotAcceptable => 406,
        }
    }

    /// Whether a failure with this code is a refusal by an access guard (scope, country,
    /// permit, credential, tenant state) rather than a failure of the work itself.
    pub fn is_guard_refusal(self) -> bool {
        matches!(self.status(), 401 | 403)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure as the consumer sees it: a code and a message. The message names fields and
/// scopes, never a value the caller sent. `internal` carries detail for the log only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: ErrorCode,
    pub message: String,
    /// Cause of an internal error, for the server log (never sent to the caller).
    pub internal: Option<String>,
}

impl Failure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            internal: None,
        }
    }

    pub fn status(&self) -> u16 {
        self.code.status()
    }

    /// `bad_request` naming the field at fault.
    pub fn bad_request(field: &str, problem: &str) -> Self {
        Failure::new(ErrorCode::BadRequest, format!("`{field}`: {problem}"))
    }

    pub fn invalid_identifier(message: impl Into<String>) -> Self {
        Failure::new(ErrorCode::InvalidIdentifier, message)
    }

    pub fn unauthorized() -> Self {
        Failure::new(ErrorCode::Unauthorized, "a valid bearer token is required")
    }

    pub fn forbidden(scopes: &[crate::access::scope::Scope]) -> Self {
        let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
        let message = match names.as_slice() {
            [one] => format!("this route requires the scope `{one}`"),
            many => format!(
                "this route requires one of the scopes `{}`",
                many.join("`, `")
            ),
        };
        Failure::new(ErrorCode::Forbidden, message)
    }

    pub fn not_found(what: &str) -> Self {
        Failure::new(ErrorCode::NotFound, format!("{what} not found"))
    }

    /// An unexpected failure: the caller sees only `internal_error`; the cause is logged.
    ///
    /// The one exception is a cause that is a `StoreError::Unavailable` (the storage could not
    /// be reached): that is not a fault of this request but an outage a retry outlives, so it
    /// becomes [`Failure::storage_unavailable`] (503). Every use case, the guard, the audit
    /// commit and the token endpoint turn storage errors into failures through this function,
    /// so this is the one place that decides it.
    pub fn internal(cause: impl fmt::Display + 'static) -> Self {
        // The cause arrives as an arbitrary `Display` (a store error, a crypto error, a
        // message); only a store error can say "unreachable".
        let any: &dyn Any = &cause;
        if let Some(StoreError::Unavailable(_)) = any.downcast_ref::<StoreError>() {
            return Failure::storage_unavailable(cause);
        }
        Failure {
            code: ErrorCode::InternalError,
            message: "internal error".to_owned(),
            internal: Some(cause.to_string()),
        }
    }

    /// The service's own storage could not be reached: 503 `upstream_unavailable` with a
    /// fixed message (the cause is logged, never sent), and a hint to retry shortly
    /// ([`Failure::retry_after`]).
    pub fn storage_unavailable(cause: impl fmt::Display) -> Self {
        Failure {
            code: ErrorCode::UpstreamUnavailable,
            message: STORAGE_UNAVAILABLE.to_owned(),
            internal: Some(cause.to_string()),
        }
    }

    /// Seconds after which a retry may succeed, when the failure is an outage of the service's
    /// own storage (the surface sends it as `Retry-After`); `None` for every other failure.
    pub fn retry_after(&self) -> Option<u32> {
        (self.code == ErrorCode::UpstreamUnavailable && self.message == STORAGE_UNAVAILABLE)
            .then_some(STORAGE_RETRY_AFTER_SECONDS)
    }
}

/// The message of a failure because the service's storage could not be reached.
const STORAGE_UNAVAILABLE: &str = "the service's storage is unavailable; retry shortly";

/// How long a consumer is told to wait before retrying after a storage outage.
pub const STORAGE_RETRY_AFTER_SECONDS: u32 = 5;

/// Failures of storage ports (declared with the other failures, so that [`Failure::internal`]
/// can tell an unreachable storage from a fault; every capability's `ports` answers it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("record not found")]
    NotFound,
    /// A customer reference is already attached to a different subject.
    #[error("customer reference attached to a different subject")]
    RefConflict,
    /// A subscription of the subject and kind that has not ended exists already.
    #[error("an unended subscription of the subject and kind exists")]
    SubscriptionExists,
    /// The change would leave these live grants carrying countries outside the tenant's set.
    #[error("grants would fall outside the tenant's countries")]
    GrantsOutsideCountries(Vec<crate::ids::GrantId>),
    /// A concurrent write took the place first (a conversation's next turn); nothing was
    /// written.
    #[error("a concurrent write came first")]
    Conflict,
    /// The storage could not be reached: no connection could be had (refused, lost, the
    /// checkout timed out) or the server is shutting down or starting up. A retry may succeed
    /// once it is back; `Failure::internal` answers it as 503 `upstream_unavailable`. The
    /// detail is for the log only.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The backend failed; the detail is for the log only.
    #[error("storage backend: {0}")]
    Backend(String),
}

/// Failures of the crypto ports. Details never include key material or plaintext.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    #[error("crypto failure: {0}")]
    Failed(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()));
            assert!(code
                .as_str()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
        }
    }

    #[test]
    fn internal_failures_hide_their_cause() {
        let f = Failure::internal("connection refused at 10.0.0.1");
        assert_eq!(f.message, "internal error");
        assert_eq!(f.status(), 500);
    }

    #[test]
    fn an_unreachable_storage_is_a_503_that_hides_its_cause() {
        let f = Failure::internal(StoreError::Unavailable(
            "connection refused at 10.0.0.1".into(),
        ));
        assert_eq!(f.code, ErrorCode::UpstreamUnavailable);
        assert_eq!(f.status(), 503);
        assert!(!f.message.contains("10.0.0.1"));
        assert!(f.internal.as_deref().unwrap().contains("10.0.0.1"));
        assert_eq!(f.retry_after(), Some(STORAGE_RETRY_AFTER_SECONDS));

        // Every other storage error stays a 500 without a retry hint.
        let f = Failure::internal(StoreError::Backend("syntax error".into()));
        assert_eq!(f.status(), 500);
        assert_eq!(f.retry_after(), None);
        // An upstream registry's outage is a 503 of its own, without the storage's hint.
        let f = Failure::new(
            ErrorCode::UpstreamUnavailable,
            "the registry is unavailable",
        );
        assert_eq!(f.retry_after(), None);
    }

    #[test]
    fn forbidden_names_the_scope() {
        let f = Failure::forbidden(&[crate::access::scope::Scope::KybRefresh]);
        assert!(f.message.contains("kyb:refresh"));
    }
}
