//! Request bodies as the REST surface reads them: [`JsonBody`] field by field, into the
//! domain's request types that the body functions of `api_core::bodies` take (an MCP tool
//! builds the same types from its arguments), and the bodies' schemas for the OpenAPI
//! document (they have no wire type of their own).

use domain::monitoring::subscription::SubscribeRequest;
use domain::screening::check::CheckRequest;
use domain::subjects::subject::ResolveRequest;
use domain::Failure;

pub use api_core::JsonBody;

/// The body of `POST /v1/subjects/resolve`.
pub fn resolve(body: &JsonBody) -> Result<ResolveRequest, Failure> {
    Ok(ResolveRequest {
        id_type: body.required_str("type")?,
        value: body.required_str("value")?,
        customer_ref: body.optional_str("ref")?,
    })
}

/// The body of `POST /v1/subscriptions`.
pub fn subscribe(body: &JsonBody) -> Result<SubscribeRequest, Failure> {
    Ok(SubscribeRequest {
        subject_id: body.required_str("subject_id")?,
        kind: body.required_str("kind")?,
        legal_basis: body.required_str("legal_basis")?,
        legal_basis_ref: body.optional_str("legal_basis_ref")?,
        check_days: body.optional_i64("check_days")?,
        full_refresh_days: body.optional_i64("full_refresh_days")?,
    })
}

/// The body of `POST /v1/screening/checks`. The fields are read by type here (a wrong type is
/// 400 naming the field); the use case judges their values.
pub fn screening_check(body: &JsonBody) -> Result<CheckRequest, Failure> {
    Ok(CheckRequest {
        subject_id: body.optional_str("subject_id")?,
        name: body.optional_str("name")?,
        birth_date: body.optional_str("birth_date")?,
        nationalities: body.optional_str_array("nationalities")?,
        orgnr: body.optional_str("orgnr")?,
        country: body.optional_str("country")?,
    })
}

/// The body of `POST /v1/webhooks`.
pub fn create_webhook(
    body: &JsonBody,
) -> Result<domain::webhooks::service::CreateEndpointRequest, Failure> {
    Ok(domain::webhooks::service::CreateEndpointRequest {
        url: body.required_str("url")?,
        types: body.optional_str_array("types")?,
        description: body.optional_str("description")?,
        start_after: body.optional_i64("start_after")?,
    })
}

// ---------------------------------------------------------------------------------------------
// The bodies' schemas (for the OpenAPI document only).

/// Body of `POST /oauth/token`, JSON or form-encoded. `client_id` and `client_secret` are
/// required unless the client authenticates with HTTP Basic (then `client_secret` must be
/// absent, and a `client_id` given must equal the Basic one). A form field must not repeat.
#[derive(utoipa::ToSchema)]
#[schema(as = TokenRequest)]
#[allow(dead_code)] // a schema only
pub struct TokenRequestBody {
    #[schema(schema_with = api_core::schema::grant_type)]
    grant_type: String,
    client_id: Option<String>,
    client_secret: Option<String>,
    /// Space-separated scopes. Omitted means all the grant's. Without `resource`, it must be a
    /// subset of the grant's (else 400 `bad_request` naming the others); with `resource`, it is
    /// an upper bound: the token carries the granted scopes among those named (the answer's
    /// `scope` says which), and none is 400 `invalid_scope`.
    scope: Option<String>,
    /// RFC 8707 resource indicator: this origin (the REST API) or `<origin>/mcp`; any other is
    /// 400 `invalid_target`. In a form body it may be repeated. A client-credentials token is
    /// valid for both; an agent connection's only for the resource it was authorized for.
    resource: Option<String>,
    /// `authorization_code`: the code the authorization response carried (added in 1.8.0).
    code: Option<String>,
    /// `authorization_code`: the PKCE verifier of the request's S256 challenge.
    code_verifier: Option<String>,
    /// `authorization_code`: the redirect URI the authorization request named.
    redirect_uri: Option<String>,
    /// `refresh_token`: the connection's current refresh token (added in 1.8.0).
    refresh_token: Option<String>,
}

/// The body of `POST /v1/subscriptions`.
#[derive(utoipa::ToSchema)]
#[schema(as = SubscribeRequest)]
#[allow(dead_code)] // a schema only
pub struct SubscribeRequestBody {
    /// The subject to watch (a subject id or one of its aliases).
    subject_id: String,
    /// `person` (tracks the tenant's permit) or `company`.
    kind: String,
    /// `aml_cdd`, `contract`, `legal_obligation`, `consent` or `legitimate_interest`; any
    /// other value is 400 `legal_basis_invalid`.
    legal_basis: String,
    /// Free text (at most 500 characters), never parsed.
    legal_basis_ref: Option<String>,
    /// Days between light checks: 1 to 365, default 1.
    check_days: Option<i64>,
    /// Days between paid full refreshes: `check_days` to 365, default 30.
    full_refresh_days: Option<i64>,
}

/// Body of `POST /v1/subjects/resolve`.
#[derive(utoipa::ToSchema)]
#[schema(
    as = ResolveRequest,
    example = json!({"type": "orgnr", "value": "556002-1361", "ref": "customer-42"})
)]
#[allow(dead_code)] // a schema only
pub struct ResolveRequestBody {
    #[schema(rename = "type", schema_with = api_core::schema::identifier_type)]
    id_type: String,
    /// The identifier in wire form `[<cc>:]<value>` (`se:` when unprefixed; the prefix must be
    /// lower case and of the type's country). A value that breaks its type's rules (shape,
    /// date, check digit) is 400 `invalid_identifier`.
    #[schema(pattern = r"\S")]
    value: String,
    /// A customer reference to attach (immutable once set; at most 200 characters, not blank).
    #[schema(rename = "ref", max_length = 200, pattern = r"\S")]
    reference: Option<String>,
}

/// The body of `POST /v1/screening/checks`: either `subject_id`, or an ad-hoc identity with
/// at least a `name` or an `orgnr`.
#[derive(utoipa::ToSchema)]
#[schema(as = ScreeningCheckRequest)]
#[allow(dead_code)] // a schema only
pub struct ScreeningCheckRequestBody {
    /// A subject of the tenant (not with the ad-hoc fields). A person subject's name and
    /// birth date are read from the population register (`kyc:read` and the tenant's
    /// permit); a company subject's name and number from its profile.
    subject_id: Option<String>,
    /// Ad hoc: the name to screen, at most 300 characters. A name holding a number shaped
    /// like a personal identity number is refused (400 `name_is_identifier`); screen the
    /// person by `subject_id` instead.
    #[schema(max_length = 300)]
    name: Option<String>,
    /// Ad hoc: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`, not in the future.
    birth_date: Option<String>,
    /// Ad hoc: ISO 3166-1 alpha-2 codes, at most 20 (a repeated code is screened once).
    nationalities: Option<Vec<String>>,
    /// Ad hoc: an organisation number in identifier wire form (`5560360793`,
    /// `se:5560360793`), compared with the lists' registration numbers; malformed is 400
    /// `invalid_identifier`, a country the credential lacks 403. It bounds who may read the
    /// check to grants of its country.
    orgnr: Option<String>,
    /// Ad hoc: ISO 3166-1 alpha-2 code of the screened party's country.
    country: Option<String>,
}

/// The body of `POST /v1/webhooks`.
#[derive(utoipa::ToSchema)]
#[schema(as = CreateWebhookRequest)]
#[allow(dead_code)] // a schema only
pub struct CreateWebhookRequestBody {
    /// Where deliveries are posted: an absolute `https` URL, at most 2048 bytes, without
    /// credentials or fragment, naming a publicly routable host.
    #[schema(max_length = 2048)]
    url: String,
    /// Event type names; absent for every type.
    #[schema(min_items = 1)]
    types: Option<Vec<String>>,
    /// Free text for the consumer's own use, at most 200 characters.
    #[schema(max_length = 200)]
    description: Option<String>,
    /// Deliver the events after this `seq` first (an earlier `next_cursor`; capped at the
    /// newest); absent: only events logged from now on.
    #[schema(minimum = 0)]
    start_after: Option<i64>,
}

/// The body of `POST /oauth/register` (RFC 7591 client metadata; other members are ignored).
#[derive(utoipa::ToSchema)]
#[schema(as = ClientRegistration)]
#[allow(dead_code)] // a schema only
pub struct RegisterRequestBody {
    /// Where the person's browser is sent back: https, http on a loopback host (any port at
    /// request time), or an app's own scheme; at least one, at most 10.
    redirect_uris: Vec<String>,
    /// The name the person is shown (cut at 100 characters).
    client_name: Option<String>,
    /// An https URL of the client's home page.
    client_uri: Option<String>,
    /// `authorization_code` (required) and `refresh_token`; others are dropped.
    grant_types: Option<Vec<String>>,
    /// `["code"]` only.
    response_types: Option<Vec<String>>,
    /// `none` (a public client), `client_secret_basic` (the default) or `client_secret_post`.
    token_endpoint_auth_method: Option<String>,
    /// The scopes it will ask for: a hint; the person chooses.
    scope: Option<String>,
}
