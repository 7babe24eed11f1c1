//! The token endpoint's grants of agent connections: the authorization code (once, bound to
//! its client, redirect URI, S256 challenge and resource) and the refresh token (rotated; a
//! retired one within the grace answers the same successor, later it revokes the
//! connection). Both mint the grant's ordinary access token, naming the connection's resource.

use crate::access::audit::{
    AccessRecord, Attribution, AuditPolicy, RequestContext, SecurityReason, SecurityRecord,
};
use crate::access::grant::{ClientSecret, Grant};
use crate::access::scope::ScopeSet;
use crate::access::token::{IssuedToken, TokenClaims};
use crate::error::{ErrorCode, Failure};
use crate::oauth::authorization::{is_code_verifier, OurResources};
use crate::oauth::client::OAuthClient;
use crate::oauth::connection::{Connection, RefreshVerdict, REFRESH_IDLE};
use crate::oauth::service::OAuthService;
use crate::operation::{Operation, Surface};

/// The token endpoint's authorization-code request.
#[derive(Clone, Debug)]
pub struct CodeRequest {
    pub client_id: String,
    pub client_secret: Option<ClientSecret>,
    pub code: String,
    pub code_verifier: Option<String>,
    pub redirect_uri: Option<String>,
    pub resources: Vec<String>,
}

/// The token endpoint's refresh request.
#[derive(Clone, Debug)]
pub struct RefreshRequest {
    pub client_id: String,
    pub client_secret: Option<ClientSecret>,
    pub refresh_token: String,
    pub scope: Option<String>,
    pub resources: Vec<String>,
}

fn invalid_grant(why: &str) -> Failure {
    Failure::new(ErrorCode::InvalidGrant, why)
}

fn invalid_client() -> Failure {
    Failure::new(ErrorCode::InvalidClient, "client authentication failed")
}

impl OAuthService {
    /// The client a token request names, authenticated: a confidential client by its secret;
    /// a public one by its id alone (PKCE or the refresh token binds the rest).
    async fn authenticate(
        &self,
        client_id: &str,
        secret: Option<&ClientSecret>,
        ctx: &RequestContext,
    ) -> Result<OAuthClient, Failure> {
        let found = self
            .store
            .oauth_client(client_id)
            .await
            .map_err(Failure::internal)?;
        let Some((client, hash)) = found else {
            let record = SecurityRecord::new(
                ctx,
                Operation::IssueToken,
                401,
                SecurityReason::UnknownClient,
            );
            self.audit
                .record_security(&record)
                .await
                .map_err(Failure::internal)?;
            return Err(invalid_client());
        };
        if client.auth_method.is_confidential() {
            let presented = secret.map(ClientSecret::expose).unwrap_or_default();
            if !self.hasher.verify_secret(presented, hash.as_ref()).await {
                let record = SecurityRecord::new(
                    ctx,
                    Operation::IssueToken,
                    401,
                    SecurityReason::UnknownClient,
                );
                self.audit
                    .record_security(&record)
                    .await
                    .map_err(Failure::internal)?;
                return Err(invalid_client());
            }
        }
        Ok(client)
    }

    async fn unattributable(&self, ctx: &RequestContext, why: &str) -> Failure {
        let record = SecurityRecord::new(
            ctx,
            Operation::IssueToken,
            400,
            SecurityReason::OAuthGrantRefused,
        );
        match self.audit.record_security(&record).await {
            Ok(()) => invalid_grant(why),
            Err(e) => Failure::internal(e),
        }
    }

    async fn record_access(&self, row: AccessRecord) -> Result<(), Failure> {
        self.audit
            .record_access(std::slice::from_ref(&row))
            .await
            .map_err(Failure::internal)
    }

    /// Refuses a grant-bound request with `why`, writing its row under the grant.
    async fn refused(
        &self,
        ctx: &RequestContext,
        who: Attribution,
        code: ErrorCode,
        detail: &'static str,
        why: &str,
    ) -> Failure {
        let row = AuditPolicy::refused(ctx, Operation::IssueToken, who, code, detail);
        match self.record_access(row).await {
            Ok(()) => Failure::new(code, why),
            Err(f) => f,
        }
    }

    /// Revokes a connection whose code or refresh token was presented again: every token it
    /// minted stops at once.
    async fn revoke_for_reuse(
        &self,
        ctx: &RequestContext,
        who: Attribution,
        detail: &'static str,
    ) -> Failure {
        if let Err(e) = self
            .grants
            .revoke_grant(&who.tenant_id, &who.grant_id, self.clock.now())
            .await
        {
            return Failure::internal(e);
        }
        self.refused(
            ctx,
            who,
            ErrorCode::InvalidGrant,
            detail,
            "this grant was used already: the connection is revoked, connect again",
        )
        .await
    }

    /// The resources a token request names, each this connection's (RFC 8707).
    fn check_resources(
        presented: &[String],
        ours: &OurResources,
        connection: &Connection,
    ) -> Result<(), Failure> {
        if presented
            .iter()
            .any(|r| ours.canonical(r).as_deref() != Some(connection.resource.as_str()))
        {
            return Err(Failure::new(
                ErrorCode::InvalidTarget,
                format!(
                    "`resource`: this connection's tokens are for {} only",
                    connection.resource
                ),
            ));
        }
        Ok(())
    }

    fn mint(
        &self,
        grant: &Grant,
        scopes: ScopeSet,
        connection: &Connection,
        refresh_token: Option<String>,
        mode: crate::access::tenant::TenantMode,
    ) -> Result<IssuedToken, Failure> {
        let now = self.clock.now();
        let claims = TokenClaims::for_grant(
            grant,
            scopes,
            now,
            self.access_lifetime,
            vec![connection.resource.clone()],
        );
        let access_token = self.authority.mint(&claims).map_err(Failure::internal)?;
        Ok(IssuedToken {
            access_token,
            expires_in: claims.expires_in(now),
            countries: claims.countries.clone(),
            scopes: claims.scopes,
            mode,
            refresh_token,
        })
    }

    /// `grant_type=authorization_code`.
    pub async fn exchange_code(
        &self,
        request: &CodeRequest,
        ours: &OurResources,
        ctx: &RequestContext,
    ) -> Result<IssuedToken, Failure> {
        let client = self
            .authenticate(&request.client_id, request.client_secret.as_ref(), ctx)
            .await?;
        let Some((tenant_id, grant_id)) = self.secrets.code_names(&request.code) else {
            return Err(self
                .unattributable(ctx, "the code is not one this service issued")
                .await);
        };
        let connection = self
            .store
            .connection(&tenant_id, &grant_id)
            .await
            .map_err(Failure::internal)?
            .filter(|c| c.code_digest == self.secrets.digest(&request.code));
        let Some(connection) = connection else {
            return Err(self
                .unattributable(ctx, "the code is not one this service issued")
                .await);
        };
        let who = Attribution {
            tenant_id,
            grant_id,
            surface: Surface::Rest,
            on_behalf: None,
        };
        let refuse = |detail: &'static str, why: &'static str| {
            self.refused(ctx, who, ErrorCode::InvalidGrant, detail, why)
        };
        if connection.client_id != client.client_id {
            return Err(refuse("code_client", "the code was issued to another client").await);
        }
        if connection.code_used_at.is_some() {
            return Err(self.revoke_for_reuse(ctx, who, "code_reused").await);
        }
        let now = self.clock.now();
        if now >= connection.code_expires_at {
            return Err(refuse("code_expired", "the code has expired").await);
        }
        match request.redirect_uri.as_deref() {
            Some(r) if r == connection.redirect_uri => {}
            None if client.redirect_uris.len() == 1
                && client.redirect_uris[0].as_str() == connection.redirect_uri => {}
            _ => {
                return Err(refuse(
                    "code_redirect_uri",
                    "`redirect_uri` differs from the authorization request's",
                )
                .await)
            }
        }
        let verified = request
            .code_verifier
            .as_deref()
            .filter(|v| is_code_verifier(v))
            .is_some_and(|v| self.secrets.s256(v) == connection.code_challenge);
        if !verified {
            return Err(refuse(
                "code_verifier",
                "`code_verifier` does not match the code challenge",
            )
            .await);
        }
        Self::check_resources(&request.resources, ours, &connection)?;
        let access = self
            .grants
            .grant_access(&tenant_id, &grant_id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| invalid_grant("the connection no longer exists"))?;
        if let Some(lapse) = access.grant.lapse(now) {
            return Err(refuse(lapse.as_str(), "the connection was revoked or has expired").await);
        }
        if !self
            .store
            .use_code(&tenant_id, &grant_id, now, now + REFRESH_IDLE)
            .await
            .map_err(Failure::internal)?
        {
            return Err(self.revoke_for_reuse(ctx, who, "code_reused").await);
        }
        let refresh = client
            .may_refresh()
            .then(|| self.secrets.refresh_token(&tenant_id, &grant_id, 1));
        let issued = self.mint(
            &access.grant,
            access.grant.scopes.clone(),
            &connection,
            refresh,
            access.tenant.mode,
        )?;
        if let Some(row) = AuditPolicy::concluded(ctx, Operation::IssueToken, who, Ok(200), None) {
            self.record_access(row).await?;
        }
        Ok(issued)
    }

    /// `grant_type=refresh_token`: rotates the family (or answers the successor again within
    /// the grace); a retired token past it revokes the connection.
    pub async fn refresh(
        &self,
        request: &RefreshRequest,
        ours: &OurResources,
        ctx: &RequestContext,
    ) -> Result<IssuedToken, Failure> {
        let client = self
            .authenticate(&request.client_id, request.client_secret.as_ref(), ctx)
            .await?;
        let Some((tenant_id, grant_id, presented)) =
            self.secrets.read_refresh_token(&request.refresh_token)
        else {
            return Err(self
                .unattributable(ctx, "the refresh token is not one this service issued")
                .await);
        };
        let Some(mut connection) = self
            .store
            .connection(&tenant_id, &grant_id)
            .await
            .map_err(Failure::internal)?
        else {
            return Err(self
                .unattributable(ctx, "the refresh token is not one this service issued")
                .await);
        };
        let who = Attribution {
            tenant_id,
            grant_id,
            surface: Surface::Rest,
            on_behalf: None,
        };
        if connection.client_id != client.client_id {
            return Err(self
                .refused(
                    ctx,
                    who,
                    ErrorCode::InvalidGrant,
                    "refresh_client",
                    "the refresh token was issued to another client",
                )
                .await);
        }
        Self::check_resources(&request.resources, ours, &connection)?;
        let now = self.clock.now();
        let access = self
            .grants
            .grant_access(&tenant_id, &grant_id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| invalid_grant("the connection no longer exists"))?;
        if let Some(lapse) = access.grant.lapse(now) {
            return Err(self
                .refused(
                    ctx,
                    who,
                    ErrorCode::InvalidGrant,
                    lapse.as_str(),
                    "the connection was revoked or has expired: connect again",
                )
                .await);
        }
        let scopes = match request
            .scope
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => access.grant.scopes.clone(),
            Some(list) => {
                let asked = ScopeSet::parse_list(list)
                    .map_err(|e| Failure::new(ErrorCode::InvalidScope, format!("`scope`: {e}")))?;
                let held = asked.intersection(&access.grant.scopes);
                if held.is_empty() {
                    return Err(Failure::new(
                        ErrorCode::InvalidScope,
                        "`scope`: names no scope this connection holds",
                    ));
                }
                held
            }
        };
        // Two tries: a concurrent refresh that moved the family first makes this one a replay.
        for _ in 0..2 {
            match connection.judge_refresh(presented, now) {
                RefreshVerdict::Rotate => {
                    if self
                        .store
                        .advance_refresh(&tenant_id, &grant_id, presented, now, now + REFRESH_IDLE)
                        .await
                        .map_err(Failure::internal)?
                    {
                        return self
                            .refreshed(
                                ctx,
                                who,
                                &access.grant,
                                scopes,
                                &connection,
                                presented + 1,
                                access.tenant.mode,
                            )
                            .await;
                    }
                    connection = self
                        .store
                        .connection(&tenant_id, &grant_id)
                        .await
                        .map_err(Failure::internal)?
                        .ok_or_else(|| invalid_grant("the connection no longer exists"))?;
                }
                RefreshVerdict::Replay => {
                    let current = connection.refresh_generation;
                    return self
                        .refreshed(
                            ctx,
                            who,
                            &access.grant,
                            scopes,
                            &connection,
                            current,
                            access.tenant.mode,
                        )
                        .await;
                }
                RefreshVerdict::Reused => {
                    return Err(self
                        .revoke_for_reuse(ctx, who, "refresh_token_reused")
                        .await)
                }
                RefreshVerdict::Lapsed => {
                    return Err(self
                        .refused(
                            ctx,
                            who,
                            ErrorCode::InvalidGrant,
                            "refresh_token_lapsed",
                            "the refresh token has lapsed: connect again",
                        )
                        .await)
                }
            }
        }
        Err(invalid_grant(
            "the refresh token was used concurrently: try again",
        ))
    }

    #[allow(clippy::too_many_arguments)]
    async fn refreshed(
        &self,
        ctx: &RequestContext,
        who: Attribution,
        grant: &Grant,
        scopes: ScopeSet,
        connection: &Connection,
        generation: u32,
        mode: crate::access::tenant::TenantMode,
    ) -> Result<IssuedToken, Failure> {
        let token = self
            .secrets
            .refresh_token(&who.tenant_id, &who.grant_id, generation);
        let issued = self.mint(grant, scopes, connection, Some(token), mode)?;
        if let Some(row) = AuditPolicy::concluded(ctx, Operation::IssueToken, who, Ok(200), None) {
            self.record_access(row).await?;
        }
        Ok(issued)
    }
}
