//! The token endpoint's use case: authenticate a client and mint a token for its grant.

use crate::access::audit::{
    AccessRecord, Attribution, AuditPolicy, RequestContext, SecurityReason,
};
use crate::access::ports::{AuditSink, CredentialHasher, GrantStore, TokenAuthority};
use crate::access::scope::ScopeSet;
use crate::access::token::{IssuedToken, ScopeRequest, TokenClaims, TokenRequest};
use crate::clock::Clock;
use crate::error::{ErrorCode, Failure};
use crate::ids::ClientId;
use crate::operation::{Operation, Surface};
use chrono::Duration;
use std::sync::Arc;

/// The token endpoint.
pub struct TokenIssuer {
    pub grants: Arc<dyn GrantStore>,
    pub hasher: Arc<dyn CredentialHasher>,
    pub authority: Arc<dyn TokenAuthority>,
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
    /// Token lifetime; a token never outlives its grant's expiry.
    pub lifetime: Duration,
}

impl TokenIssuer {
    /// Authenticates the client and mints a token.
    ///
    /// Constant work: the secret hash is verified whether or not the client id exists, and
    /// every authentication outcome writes exactly one log record (a 400 for a malformed
    /// scope list is a validation failure and, like every 400, is not logged).
    pub async fn issue(
        &self,
        request: TokenRequest,
        ctx: &RequestContext,
    ) -> Result<IssuedToken, Failure> {
        let op = Operation::IssueToken;
        let client_id = ClientId::from_wire(&request.client_id);
        let found = self
            .grants
            .credentials(&client_id)
            .await
            .map_err(Failure::internal)?;
        let stored_hash = found.as_ref().map(|(_, hash)| hash);
        let secret_ok = self
            .hasher
            .verify_secret(request.client_secret.expose(), stored_hash)
            .await;
        let now = self.clock.now();

        let invalid_client =
            || Failure::new(ErrorCode::InvalidClient, "client authentication failed");

        let Some((access, _)) = found else {
            let record = AuditPolicy::unattributable(ctx, op, SecurityReason::UnknownClient)
                .with_client_id(&client_id);
            self.audit
                .record_security(&record)
                .await
                .map_err(Failure::internal)?;
            return Err(invalid_client());
        };
        let grant = &access.grant;
        let who = Attribution {
            tenant_id: grant.tenant_id,
            grant_id: grant.id,
            surface: Surface::Rest,
            on_behalf: None,
        };
        let refusal = if !secret_ok {
            Some("wrong_secret")
        } else {
            grant.lapse(now).map(|lapse| lapse.as_str())
        };
        if let Some(detail) = refusal {
            let row = AuditPolicy::refused(ctx, op, who, ErrorCode::InvalidClient, detail);
            self.record(&row).await?;
            return Err(invalid_client());
        }

        let scopes = request.scope.against(&grant.scopes)?;

        let claims = TokenClaims::for_grant(grant, scopes, now, self.lifetime, Vec::new());
        let access_token = self.authority.mint(&claims).map_err(Failure::internal)?;
        if let Some(row) = AuditPolicy::concluded(ctx, op, who, Ok(200), None) {
            self.record(&row).await?;
        }
        Ok(IssuedToken {
            access_token,
            expires_in: claims.expires_in(now),
            countries: claims.countries.clone(),
            scopes: claims.scopes,
            mode: access.tenant.mode,
            refresh_token: None,
        })
    }
}

impl TokenIssuer {
    async fn record(&self, row: &AccessRecord) -> Result<(), Failure> {
        self.audit
            .record_access(std::slice::from_ref(row))
            .await
            .map_err(Failure::internal)
    }
}

impl ScopeRequest {
    /// The scopes a token for this request carries, given what the grant holds.
    pub fn against(&self, granted: &ScopeSet) -> Result<ScopeSet, Failure> {
        let parse = |list: &str| {
            ScopeSet::parse_list(list).map_err(|e| Failure::bad_request("scope", &e.to_string()))
        };
        match self {
            ScopeRequest::Granted => Ok(granted.clone()),
            ScopeRequest::Exactly(list) => {
                let asked = parse(list)?;
                let missing = asked.difference(granted);
                if !missing.is_empty() {
                    return Err(Failure::bad_request(
                        "scope",
                        &format!("not granted to this client: {missing}"),
                    ));
                }
                Ok(asked)
            }
            ScopeRequest::AtMost(list) => {
                let held = parse(list)?.intersection(granted);
                if held.is_empty() {
                    return Err(Failure::new(
                        ErrorCode::InvalidScope,
                        "`scope`: names no scope granted to this client",
                    ));
                }
                Ok(held)
            }
        }
    }
}
