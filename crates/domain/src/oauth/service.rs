//! The use cases of agent connections: registering a client, taking an authorization
//! request, the person's review and decision in the portal, and the token endpoint's two
//! grants of this flow (the code, the refresh token).

use crate::access::admin::AdminService;
use crate::access::audit::{PortalAuditRecord, RequestContext};
use crate::access::grant::{ClientSecret, Grant, GrantOwner, SecretHash};
use crate::access::ports::{AuditSink, CredentialHasher, GrantStore, TenantStore, TokenAuthority};
use crate::access::scope::ScopeSet;
use crate::access::tenant::Tenant;
use crate::clock::Clock;
use crate::countries::country::CountrySet;
use crate::error::{ErrorCode, Failure, StoreError};
use crate::ids::{ClientId, GrantId};
use crate::oauth::authorization::{
    check, AuthorizeParams, AuthorizeRefusal, OurResources, PendingAuthorization, REQUEST_LIFETIME,
};
use crate::oauth::client::{OAuthClient, Registration};
use crate::oauth::connection::{Connection, CODE_LIFETIME, CONNECTION_LIFETIME};
use crate::oauth::consent::{consentable, proposed, ConsentChoice};
use crate::oauth::ports::{ClientDocuments, OAuthSecrets, OAuthStore, Registered};
use crate::oauth::registration::{
    check_metadata, fresh_until, metadata_key, names_a_document, ClientMetadata,
    RegistrationLimiter, UNUSED_REGISTRATION_CEILING,
};
use crate::portal::action::PortalAction;
use crate::portal::service::PortalCaller;
use crate::portal::user::PortalRole;
use chrono::Duration;
use std::sync::Arc;

/// The secret hash of a connection's grant: not a hash at all, so no secret ever matches it
/// (a connection's tokens come from its code and refresh tokens, never client credentials).
pub const NO_SECRET: &str = "!connection";

pub struct OAuthService {
    pub store: Arc<dyn OAuthStore>,
    pub grants: Arc<dyn GrantStore>,
    pub tenants: Arc<dyn TenantStore>,
    /// For the tenant's test twin, made on first use as for a test-mode grant.
    pub admin: Arc<AdminService>,
    pub documents: Arc<dyn ClientDocuments>,
    pub secrets: Arc<dyn OAuthSecrets>,
    pub hasher: Arc<dyn CredentialHasher>,
    pub authority: Arc<dyn TokenAuthority>,
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
    pub limiter: RegistrationLimiter,
    /// The lifetime of an access token (as for client credentials).
    pub access_lifetime: Duration,
}

/// A client registered (RFC 7591), with its secret when it holds one (shown this once).
#[derive(Clone, Debug)]
pub struct RegisteredClient {
    pub client: OAuthClient,
    pub secret: Option<ClientSecret>,
}

/// Why an authorization request was not taken: a refusal (shown or sent back), or a failure
/// of the service itself.
#[derive(Clone, Debug)]
pub enum AuthorizeError {
    Refused(AuthorizeRefusal),
    Failed(Failure),
}

impl From<AuthorizeRefusal> for AuthorizeError {
    fn from(r: AuthorizeRefusal) -> Self {
        AuthorizeError::Refused(r)
    }
}

/// What the consent page shows.
#[derive(Clone, Debug)]
pub struct ConsentReview {
    pub request_id: String,
    pub pending: PendingAuthorization,
    pub client: OAuthClient,
    /// The live tenant.
    pub tenant: Tenant,
    /// What the person's role may hand out.
    pub allowed: ScopeSet,
    /// Ticked at first ([`crate::oauth::consent::proposed`]).
    pub proposed: ScopeSet,
}

/// `uri` with `pairs` appended to its query, form-encoded (the URI itself as registered).
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        query.append_pair(k, v);
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", query.finish())
}

/// Where a refusal that goes back to the client sends the browser (RFC 6749 §4.1.2.1, RFC
/// 9207: `iss` on errors too).
pub fn error_redirect(
    redirect_uri: &str,
    error: &str,
    description: &str,
    state: Option<&str>,
    issuer: &str,
) -> String {
    let mut pairs = vec![("error", error), ("error_description", description)];
    if let Some(state) = state {
        pairs.push(("state", state));
    }
    pairs.push(("iss", issuer));
    with_query(redirect_uri, &pairs)
}

impl OAuthService {
    /// `POST /oauth/register` (RFC 7591).
    pub async fn register(
        &self,
        metadata: &ClientMetadata,
        ctx: &RequestContext,
    ) -> Result<RegisteredClient, Failure> {
        let now = self.clock.now();
        if !self.limiter.admit(ctx.peer.as_deref(), now) {
            return Err(Failure::new(
                ErrorCode::RateLimited,
                "too many registrations from this address: try again in a few minutes",
            ));
        }
        let client_id = format!("mcp_{}", ulid::Ulid::generate());
        let client = check_metadata(metadata, &client_id, Registration::Dynamic, now).map_err(
            |refusal| {
                let code = if refusal.error == "invalid_redirect_uri" {
                    ErrorCode::InvalidRedirectUri
                } else {
                    ErrorCode::InvalidClientMetadata
                };
                Failure::new(code, refusal.description)
            },
        )?;
        let (secret, hash) = if client.auth_method.is_confidential() {
            let secret = self.hasher.generate_secret();
            let hash = self
                .hasher
                .hash_secret(&secret)
                .await
                .map_err(Failure::internal)?;
            (Some(secret), Some(hash))
        } else {
            (None, None)
        };
        let same_as = (!client.auth_method.is_confidential()).then(|| metadata_key(&client));
        match self
            .store
            .register_oauth_client(
                &client,
                hash.as_ref(),
                same_as.as_deref(),
                UNUSED_REGISTRATION_CEILING,
                now,
            )
            .await
            .map_err(Failure::internal)?
        {
            Registered::New(client) => Ok(RegisteredClient { client, secret }),
            Registered::Existing(client) => Ok(RegisteredClient {
                client,
                secret: None,
            }),
            Registered::CeilingReached => Err(Failure::new(
                ErrorCode::RateLimited,
                "this service holds as many unused registrations as it keeps: try again later",
            )),
        }
    }

    /// The client with this id: a registered one, or one whose metadata document is read (or
    /// read again once stale). `Err` is the reason a document could not be used.
    async fn client(&self, client_id: &str) -> Result<Option<OAuthClient>, AuthorizeError> {
        let now = self.clock.now();
        let stored = self
            .store
            .oauth_client(client_id)
            .await
            .map_err(|e| AuthorizeError::Failed(Failure::internal(e)))?;
        if let Some((client, _)) = &stored {
            let stale = client.registration == Registration::MetadataDocument
                && client.fresh_until.is_none_or(|f| now >= f);
            if !stale {
                return Ok(Some(client.clone()));
            }
        }
        if !names_a_document(client_id) {
            return Ok(stored.map(|(c, _)| c));
        }
        let (metadata, max_age) =
            self.documents
                .fetch(client_id)
                .await
                .map_err(|why| AuthorizeRefusal::Shown {
                    error: "invalid_client",
                    description: format!("the client's metadata document could not be read: {why}"),
                })?;
        let mut client = check_metadata(&metadata, client_id, Registration::MetadataDocument, now)
            .map_err(|refusal| AuthorizeRefusal::Shown {
                error: "invalid_client",
                description: format!(
                    "the client's metadata document is not usable: {}",
                    refusal.description
                ),
            })?;
        if let Some((before, _)) = &stored {
            client.created_at = before.created_at;
        }
        client.fresh_until = Some(fresh_until(now, max_age));
        self.store
            .put_document_client(&client)
            .await
            .map_err(|e| AuthorizeError::Failed(Failure::internal(e)))?;
        Ok(Some(client))
    }

    /// `GET /oauth/authorize`: checks the request and keeps it for the person's decision.
    /// Answers the request's id, which the consent page's address carries.
    pub async fn authorize(
        &self,
        params: &AuthorizeParams,
        ours: &OurResources,
        issuer: &str,
    ) -> Result<String, AuthorizeError> {
        let now = self.clock.now();
        let client = match params.client_id.as_deref().filter(|c| !c.is_empty()) {
            Some(id) => self.client(id).await?,
            None => None,
        };
        let checked = check(client.as_ref(), params, ours, now)?;
        let id = self.secrets.new_request_id();
        let pending = PendingAuthorization {
            digest: self.secrets.digest(&id),
            request: checked,
            issuer: issuer.to_owned(),
            created_at: now,
            expires_at: now + REQUEST_LIFETIME,
            decided_at: None,
        };
        self.store
            .insert_authorization(&pending)
            .await
            .map_err(|e| AuthorizeError::Failed(Failure::internal(e)))?;
        Ok(id)
    }

    /// A request still open, and its client.
    async fn open_request(
        &self,
        request_id: &str,
    ) -> Result<(PendingAuthorization, OAuthClient), Failure> {
        let gone = || {
            Failure::new(
                ErrorCode::NotFound,
                "this connection request has expired or was already decided: start again from the app",
            )
        };
        if !request_id.starts_with("ar_") || request_id.len() > 100 {
            return Err(gone());
        }
        let pending = self
            .store
            .authorization(&self.secrets.digest(request_id))
            .await
            .map_err(Failure::internal)?
            .filter(|p| p.open(self.clock.now()))
            .ok_or_else(gone)?;
        let client = self
            .store
            .oauth_client(&pending.request.client_id)
            .await
            .map_err(Failure::internal)?
            .map(|(c, _)| c)
            .ok_or_else(gone)?;
        Ok((pending, client))
    }

    async fn record_portal(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        action: PortalAction,
        grant: Option<GrantId>,
        client: Option<&str>,
        status: Result<u16, ErrorCode>,
    ) -> Result<(), Failure> {
        let record = PortalAuditRecord::concluded(
            ctx,
            caller.session.tenant_id,
            caller.session.user_id,
            action,
            status,
        )
        .on_grant(grant)
        .for_client(client);
        self.audit
            .record_portal(&record)
            .await
            .map_err(Failure::internal)
    }

    /// The consent page: the request, its client, and what the person may hand out. With
    /// `prompt=login`, a session older than the request is `unauthorized` (a new sign-in).
    pub async fn review(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        request_id: &str,
    ) -> Result<ConsentReview, Failure> {
        let found = self.open_request(request_id).await;
        let client_id = found
            .as_ref()
            .ok()
            .map(|(p, _)| p.request.client_id.clone());
        let result = async {
            let (pending, client) = found?;
            if pending.request.fresh_login && caller.session.created_at < pending.created_at {
                return Err(Failure::new(
                    ErrorCode::Unauthorized,
                    "the app asked for a new sign-in",
                ));
            }
            let tenant = self
                .tenants
                .tenant(&caller.session.tenant_id)
                .await
                .map_err(Failure::internal)?;
            let allowed = consentable(caller.session.role);
            let proposed = proposed(&pending.request.scopes, &allowed);
            Ok(ConsentReview {
                request_id: request_id.to_owned(),
                pending,
                client,
                tenant,
                allowed,
                proposed,
            })
        }
        .await;
        let status = match &result {
            Ok(_) => Ok(200),
            Err(f) if f.code == ErrorCode::Unauthorized => return result,
            Err(f) => Err(f.code),
        };
        self.record_portal(
            ctx,
            caller,
            PortalAction::ConnectionReviewed,
            None,
            client_id.as_deref(),
            status,
        )
        .await?;
        result
    }

    /// The person's decision: `Some(choice)` consents, `None` refuses. Answers where the
    /// browser goes: the client's redirect URI with the code (or `access_denied`), `state`
    /// and `iss`.
    pub async fn decide(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        request_id: &str,
        choice: Option<&ConsentChoice>,
    ) -> Result<String, Failure> {
        let found = self.open_request(request_id).await;
        let client_id = found
            .as_ref()
            .ok()
            .map(|(p, _)| p.request.client_id.clone());
        let action = if choice.is_some() {
            PortalAction::ConnectionConsented
        } else {
            PortalAction::ConnectionRefused
        };
        let mut made = None;
        let result: Result<String, Failure> = async {
            let (pending, client) = found?;
            let request = &pending.request;
            let Some(choice) = choice else {
                self.settle(&pending).await?;
                return Ok(error_redirect(
                    &request.redirect_uri,
                    "access_denied",
                    "the person declined the connection",
                    request.state.as_deref(),
                    &pending.issuer,
                ));
            };
            let (tenant, scopes, countries) = self.chosen(caller, choice).await?;
            self.settle(&pending).await?;
            let now = self.clock.now();
            let grant = Grant {
                id: GrantId::generate(),
                tenant_id: tenant.id,
                client_id: if choice.test {
                    ClientId::generate_test()
                } else {
                    ClientId::generate()
                },
                scopes,
                countries,
                expires_at: Some(now + CONNECTION_LIFETIME),
                revoked_at: None,
                credential_generation: 1,
                created_at: now,
                owner: GrantOwner::Tenant,
            };
            let code = self.secrets.new_code(&grant.tenant_id, &grant.id);
            let connection = Connection {
                tenant_id: grant.tenant_id,
                grant_id: grant.id,
                client_id: client.client_id.clone(),
                client_name: client.name.clone(),
                consented_by: caller.session.user_id,
                resource: request.resource.clone(),
                redirect_uri: request.redirect_uri.clone(),
                code_challenge: request.code_challenge.clone(),
                code_digest: self.secrets.digest(&code),
                code_expires_at: now + CODE_LIFETIME,
                code_used_at: None,
                refresh_generation: 0,
                refresh_rotated_at: None,
                refresh_expires_at: None,
                created_at: now,
            };
            self.store
                .insert_connection(&grant, &SecretHash(NO_SECRET.to_owned()), &connection)
                .await
                .map_err(|e| match e {
                    StoreError::GrantsOutsideCountries(_) => Failure::new(
                        ErrorCode::GrantCountriesInvalid,
                        "the countries must be among the tenant's provisioned ones",
                    ),
                    other => Failure::internal(other),
                })?;
            made = Some(grant.id);
            let mut pairs = vec![("code", code.as_str())];
            if let Some(state) = request.state.as_deref() {
                pairs.push(("state", state));
            }
            pairs.push(("iss", pending.issuer.as_str()));
            Ok(with_query(&request.redirect_uri, &pairs))
        }
        .await;
        let status = match &result {
            Ok(_) => Ok(303),
            Err(f) => Err(f.code),
        };
        self.record_portal(ctx, caller, action, made, client_id.as_deref(), status)
            .await?;
        result
    }

    /// Marks the request decided; a second decision (another tab, a replayed form) is refused.
    async fn settle(&self, pending: &PendingAuthorization) -> Result<(), Failure> {
        let first = self
            .store
            .decide_authorization(&pending.digest, self.clock.now())
            .await
            .map_err(Failure::internal)?;
        if first {
            Ok(())
        } else {
            Err(Failure::new(
                ErrorCode::NotFound,
                "this connection request was already decided: start again from the app",
            ))
        }
    }

    /// The tenant, scopes and countries a choice names, within what the person may hand out.
    async fn chosen(
        &self,
        caller: &PortalCaller,
        choice: &ConsentChoice,
    ) -> Result<(Tenant, ScopeSet, CountrySet), Failure> {
        let scopes = ScopeSet::parse_grantable(&choice.scopes)
            .map_err(|e| Failure::bad_request("scopes", &e.to_string()))?;
        let allowed = consentable(caller.session.role);
        let over = scopes.difference(&allowed);
        if !over.is_empty() {
            return Err(Failure::new(
                ErrorCode::Forbidden,
                match caller.session.role {
                    PortalRole::Member => format!(
                        "a member may connect an agent to read only ({allowed}); {over} is an admin's to hand out"
                    ),
                    PortalRole::Admin => format!("not a consumer scope: {over}"),
                },
            ));
        }
        let countries = CountrySet::parse_list(&choice.countries)
            .map_err(|e| Failure::bad_request("countries", &e))?;
        if countries.is_empty() {
            return Err(Failure::new(
                ErrorCode::GrantCountriesInvalid,
                "a connection needs at least one country",
            ));
        }
        let live = self
            .tenants
            .tenant(&caller.session.tenant_id)
            .await
            .map_err(Failure::internal)?;
        if !countries.is_subset(&live.provisioned) {
            return Err(Failure::new(
                ErrorCode::GrantCountriesInvalid,
                format!(
                    "the countries must be among the tenant's provisioned ones ({})",
                    live.provisioned
                ),
            ));
        }
        let tenant = if choice.test {
            self.admin.test_twin_of(&live).await?
        } else {
            live
        };
        Ok((tenant, scopes, countries))
    }

    /// The tenant's connections (live and test) with their grants, newest first.
    pub async fn connections(
        &self,
        caller: &PortalCaller,
    ) -> Result<Vec<(Connection, Grant)>, Failure> {
        let live = self
            .tenants
            .tenant(&caller.session.tenant_id)
            .await
            .map_err(Failure::internal)?;
        let mut all = Vec::new();
        for tenant in std::iter::once(live.id).chain(live.test_tenant) {
            for connection in self
                .store
                .connections(&tenant)
                .await
                .map_err(Failure::internal)?
            {
                let grant = self
                    .grants
                    .grant(&tenant, &connection.grant_id)
                    .await
                    .map_err(Failure::internal)?;
                all.push((connection, grant));
            }
        }
        all.sort_by_key(|c| std::cmp::Reverse(c.0.created_at));
        Ok(all)
    }

    /// Revokes a connection: an admin any of the tenant's, a member their own. Immediate for
    /// every token it minted, refresh tokens included.
    pub async fn revoke_connection(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        grant_id: &str,
    ) -> Result<Grant, Failure> {
        let mut concerned = (None, None);
        let result = async {
            let not_found = || Failure::not_found("connection");
            let id: GrantId = grant_id.trim().parse().map_err(|_| not_found())?;
            let (connection, grant) = self
                .connections(caller)
                .await?
                .into_iter()
                .find(|(c, _)| c.grant_id == id)
                .ok_or_else(not_found)?;
            concerned = (Some(grant.id), Some(connection.client_id.clone()));
            if caller.session.role != PortalRole::Admin
                && connection.consented_by != caller.session.user_id
            {
                return Err(Failure::new(
                    ErrorCode::Forbidden,
                    "a member may revoke the connections they made; an admin revokes any",
                ));
            }
            if grant.revoked_at.is_some() {
                return Err(Failure::bad_request("connection", "is revoked already"));
            }
            self.grants
                .revoke_grant(&grant.tenant_id, &grant.id, self.clock.now())
                .await
                .map_err(Failure::internal)
        }
        .await;
        let status = match &result {
            Ok(_) => Ok(200),
            Err(f) => Err(f.code),
        };
        self.record_portal(
            ctx,
            caller,
            PortalAction::ConnectionRevoked,
            concerned.0,
            concerned.1.as_deref(),
            status,
        )
        .await?;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_keep_the_registered_uri_and_encode_their_values() {
        assert_eq!(
            with_query("https://c.example/cb", &[("code", "a b"), ("state", "x&y")]),
            "https://c.example/cb?code=a+b&state=x%26y"
        );
        assert_eq!(
            with_query(
                "cursor://anysphere.cursor-mcp/oauth/callback?v=1",
                &[("code", "c")]
            ),
            "cursor://anysphere.cursor-mcp/oauth/callback?v=1&code=c"
        );
        let e = error_redirect(
            "http://127.0.0.1:9/cb",
            "access_denied",
            "no",
            Some("s"),
            "https://idreg.example",
        );
        assert_eq!(
            e,
            "http://127.0.0.1:9/cb?error=access_denied&error_description=no&state=s&iss=https%3A%2F%2Fidreg.example"
        );
    }
}
