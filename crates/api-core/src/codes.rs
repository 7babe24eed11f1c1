//! What each error code means, in words: when the interface answers it (the contract's
//! `condition`, from the Errors part of the specification) and its fixed summary (a problem
//! details `title`). The OpenAPI document, `contract/error-codes.json`, problem details and
//! the served pages of `/docs/errors` all read them here.

use domain::ErrorCode;

/// When the interface answers each error code (the Errors part of the spec).
pub fn condition(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        BadRequest => "The body or query failed the route's schema validation; `message` names the field.",
        InvalidIdentifier => "An organisation number or other identifier (path, or request body) is not well-formed, or its country prefix is unknown.",
        InvalidCursor => "The event cursor is malformed; restart from cursor 0.",
        LegalBasisInvalid => "`legal_basis` is not one of `aml_cdd`, `contract`, `legal_obligation`, `consent`, `legitimate_interest`.",
        NameIsIdentifier => "An ad-hoc screening `name` contains a number shaped like a personal identity number; nothing is looked up or stored and the value is not echoed. Resolve the person and screen by `subject_id`.",
        GrantCountriesInvalid => "A grant's countries must be a non-empty subset of the tenant's provisioned countries (operator routes).",
        ProvisionedCountriesInvalid => "A tenant's own country must remain in its provisioned set (operator routes).",
        InvalidTarget => "The token request's `resource` (RFC 8707) is not this service: its origin (the REST API) or `<origin>/mcp`.",
        InvalidScope => "The token request named a `resource` and a `scope` list holding no scope the client's grant carries.",
        Unauthorized => "No valid bearer token (missing, invalid, expired, revoked or rotated out) or portal session.",
        InvalidClient => "The client credentials at `/oauth/token` are invalid.",
        InvalidLink => "The portal sign-in link cannot be parsed.",
        LinkExpired => "The portal sign-in link has expired.",
        LinkInvalid => "The portal sign-in link is unknown.",
        LinkUsed => "The portal sign-in link was already used.",
        Forbidden => "A valid token lacking the route's scope; `message` names it.",
        CountryNotGranted => "The identifier's country is not carried by the grant.",
        CountryNotProvisioned => "The identifier's country is not provisioned for the tenant.",
        PersonregPermitRequired => "The tenant has no active person-register permit (missing, not yet valid, or past validity); no upstream call is made.",
        PersonregPermitSuspended => "The tenant's person-register permit is suspended; no upstream call is made.",
        TenantPending => "The tenant is not yet activated.",
        NotFound => "The resource is absent for the tenant, or lies outside the grant's countries and was asked for by id.",
        RefConflict => "The customer reference is already attached to a different subject.",
        SubscriptionExists => "An active subscription covers the subject and kind.",
        SubscriptionEnded => "The subscription already ended.",
        IdentifierInArgument => "Returned by no route: the portal assistant refused its own tool call containing a raw personal number.",
        BudgetExceeded => "The tenant's daily paid-call budget (or person-lookup ceiling) is exhausted; cached data may still be served as `stale: true`.",
        InternalError => "An unexpected server error; no detail is returned.",
        CountryNotSupported => "The country is granted and provisioned but the resource is not served there; do not retry.",
        UpstreamUnavailable => "The upstream is unavailable and no fresh cached value exists; on paths that allow stale data a later call may succeed with `stale: true`.",
        ScreeningUnavailable => "The screening matcher is unavailable or no screening policy version is active; nothing is performed or stored.",
        MethodNotAllowed => "A known path asked with a method it does not serve; `Allow` names the one it does (`/mcp`: POST only, it keeps no session and opens no event stream).",
        NotAcceptable => "`/mcp` only: the `Accept` header lacks `application/json` or `text/event-stream`.",
        OriginNotAllowed => "`/mcp` only: the request carries a browser `Origin` other than this server's own (a defence against DNS rebinding); requests without `Origin` pass.",
        IdempotencyKeyReused => "The `Idempotency-Key` was first used, within its 24 hours, for a different request (another body, path or credential); nothing was done. Use a new key for a new request.",
        IdempotencyKeyInUse => "The `Idempotency-Key`'s first request is still being answered; nothing was done. Retry after a moment to receive its answer.",
        WebhookLimitReached => "The credential holds the most webhook endpoints one may (10); nothing was made. Disable one you no longer use and register again, or use another credential.",
        InvalidGrant => "`/oauth/token` only: the authorization code or refresh token is invalid, expired, already used, revoked, another client's, or its PKCE verifier or redirect URI does not match. A code or retired refresh token presented again revokes its connection.",
        InvalidRedirectUri => "`/oauth/register` only: a redirect URI is not one a client may register (https, http on a loopback host, or a private-use scheme; no fragment).",
        InvalidClientMetadata => "`/oauth/register` only: other client metadata cannot be registered (`message` says which).",
        RateLimited => "Too many requests of this kind from one address in a short window (client registrations); nothing was done. Retry after a few minutes.",
    }
}

/// A short, fixed summary of each problem type (RFC 9457 `title`: the same for every
/// occurrence; `detail` says what happened this time).
pub fn title(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        BadRequest => "The request is malformed",
        InvalidIdentifier => "The identifier is not well-formed",
        InvalidCursor => "The event cursor is malformed",
        LegalBasisInvalid => "The legal basis is not one the interface knows",
        NameIsIdentifier => "The name holds a personal identity number",
        GrantCountriesInvalid => "The grant's countries are not the tenant's",
        ProvisionedCountriesInvalid => "The tenant's own country must stay provisioned",
        InvalidTarget => "The token's resource is not this service",
        InvalidScope => "No requested scope is granted",
        Unauthorized => "No valid credential",
        InvalidClient => "The client credentials are invalid",
        InvalidLink => "The sign-in link cannot be parsed",
        LinkExpired => "The sign-in link has expired",
        LinkInvalid => "The sign-in link is unknown",
        LinkUsed => "The sign-in link was already used",
        Forbidden => "The credential lacks the route's scope",
        CountryNotGranted => "The country is not granted to this credential",
        CountryNotProvisioned => "The country is not provisioned for the tenant",
        PersonregPermitRequired => "No person-register permit is in force",
        PersonregPermitSuspended => "The person-register permit is suspended",
        TenantPending => "The tenant is not yet activated",
        NotFound => "Not found",
        RefConflict => "The reference names another subject",
        SubscriptionExists => "A subscription already covers the subject",
        SubscriptionEnded => "The subscription has ended",
        IdentifierInArgument => "A tool argument holds a personal identity number",
        BudgetExceeded => "A daily limit is spent",
        InternalError => "An unexpected error",
        CountryNotSupported => "Not served for this country",
        UpstreamUnavailable => "Unavailable for now",
        ScreeningUnavailable => "Screening is unavailable",
        MethodNotAllowed => "The method is not served on this path",
        NotAcceptable => "The accepted media types cannot be served",
        OriginNotAllowed => "The browser origin is not allowed",
        IdempotencyKeyReused => "The idempotency key was used for another request",
        IdempotencyKeyInUse => "The idempotency key's first request is still running",
        WebhookLimitReached => "The credential holds the most webhook endpoints it may",
        InvalidGrant => "The code or refresh token is not valid",
        InvalidRedirectUri => "A redirect URI cannot be registered",
        InvalidClientMetadata => "The client metadata cannot be registered",
        RateLimited => "Too many requests of this kind",
    }
}
