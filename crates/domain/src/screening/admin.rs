//! The operator's screening use cases (the command line is a thin surface over these):
//! publishing and retiring the service's policy versions, a tenant's override versions
//! (four eyes: the approver is never the proposer; one active version per tenant), and a
//! tenant's whitelist entries (four eyes, an expiry, revocation).

use crate::access::ports::TenantStore;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::ids::{OverrideVersionId, PolicyVersionId, SubjectId, TenantId, WhitelistEntryId};
use crate::screening::policy::{
    OverrideConfig, OverrideStatus, OverrideVersion, PolicyConfig, PolicyVersion,
};
use crate::screening::ports::ScreeningStore;
use crate::screening::sanctions::ListSource;
use crate::screening::whitelist::WhitelistEntry;
use crate::subjects::ports::SubjectStore;
use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

/// The longest a whitelist entry may run before it must be made again.
pub const MAX_WHITELIST_DAYS: i64 = 3 * 366;
/// The longest reason or operator name accepted.
const MAX_TEXT: usize = 500;

pub struct ScreeningAdmin {
    pub store: Arc<dyn ScreeningStore>,
    pub tenants: Arc<dyn TenantStore>,
    pub subjects: Arc<dyn SubjectStore>,
    pub clock: Arc<dyn Clock>,
}

/// A new whitelist entry as the operator asks for it.
#[derive(Clone, Debug)]
pub struct NewWhitelistEntry {
    pub tenant: String,
    pub subject_id: Option<String>,
    pub input_hash: Option<String>,
    pub source_id: String,
    pub source_entry_id: String,
    pub reason: String,
    pub created_by: String,
    pub expires_at: DateTime<Utc>,
}

fn conflict(message: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::BadRequest, message)
}

fn store(e: StoreError) -> Failure {
    Failure::internal(e)
}

/// An operator's name or a reason: present, one line, bounded.
fn text(field: &str, value: &str) -> Result<String, Failure> {
    let v = crate::text::checked(field, value)?.trim();
    if v.is_empty() || v.chars().count() > MAX_TEXT || v.contains(['\n', '\r']) {
        return Err(Failure::bad_request(
            field,
            &format!("must be one line of 1 to {MAX_TEXT} characters"),
        ));
    }
    Ok(v.to_owned())
}

impl ScreeningAdmin {
    async fn tenant(&self, id: &str) -> Result<TenantId, Failure> {
        let not_found = || Failure::not_found("tenant");
        let id: TenantId = id.parse().map_err(|_| not_found())?;
        match self.tenants.tenant(&id).await {
            Ok(t) => Ok(t.id),
            Err(StoreError::NotFound) => Err(not_found()),
            Err(e) => Err(store(e)),
        }
    }

    /// Publishes a policy version and makes it the active one.
    pub async fn publish_policy(
        &self,
        config: PolicyConfig,
        by: &str,
    ) -> Result<PolicyVersion, Failure> {
        let by = text("by", by)?;
        config
            .validate()
            .map_err(|e| Failure::bad_request("policy", &e.to_string()))?;
        self.store
            .publish_policy(PolicyVersionId::generate(), &config, &by, self.clock.now())
            .await
            .map_err(store)
    }

    /// Retires a policy version (when it was the active one, no check runs until another is
    /// published).
    pub async fn retire_policy(&self, id: &str) -> Result<PolicyVersion, Failure> {
        let not_found = || Failure::not_found("policy version");
        let id: PolicyVersionId = id.parse().map_err(|_| not_found())?;
        self.store
            .retire_policy(&id)
            .await
            .map_err(store)?
            .ok_or_else(not_found)
    }

    pub async fn policies(&self) -> Result<Vec<PolicyVersion>, Failure> {
        self.store.policies().await.map_err(store)
    }

    /// Proposes a tenant override version (a draft).
    pub async fn propose_override(
        &self,
        tenant: &str,
        config: OverrideConfig,
        by: &str,
    ) -> Result<OverrideVersion, Failure> {
        let by = text("by", by)?;
        config
            .validate()
            .map_err(|e| Failure::bad_request("override", &e.to_string()))?;
        let tenant = self.tenant(tenant).await?;
        self.store
            .propose_override(
                &tenant,
                OverrideVersionId::generate(),
                &config,
                &by,
                self.clock.now(),
            )
            .await
            .map_err(store)
    }

    async fn override_version(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<OverrideVersion, Failure> {
        let not_found = || Failure::not_found("override version");
        let id: OverrideVersionId = id.parse().map_err(|_| not_found())?;
        self.store
            .override_version(tenant, &id)
            .await
            .map_err(store)?
            .ok_or_else(not_found)
    }

    /// Moves an override version on, if its status allows and nobody moved it meanwhile.
    async fn move_override(
        &self,
        tenant: &TenantId,
        version: &OverrideVersion,
        to: OverrideStatus,
        approved_by: Option<&str>,
    ) -> Result<OverrideVersion, Failure> {
        if !version.status.may_become(to) {
            return Err(conflict(format!(
                "override version {} is {}; it cannot become {}",
                version.version,
                version.status.as_str(),
                to.as_str()
            )));
        }
        self.store
            .move_override(
                tenant,
                &version.id,
                version.status,
                to,
                approved_by,
                self.clock.now(),
            )
            .await
            .map_err(store)?
            .ok_or_else(|| conflict("the override version changed meanwhile; look again"))
    }

    /// Approves a draft: by someone other than its proposer.
    pub async fn approve_override(
        &self,
        tenant: &str,
        id: &str,
        by: &str,
    ) -> Result<OverrideVersion, Failure> {
        let by = text("by", by)?;
        let tenant = self.tenant(tenant).await?;
        let version = self.override_version(&tenant, id).await?;
        if version.proposed_by == by {
            return Err(conflict(
                "four eyes: the approver must not be the proposer of the override version",
            ));
        }
        self.move_override(&tenant, &version, OverrideStatus::Approved, Some(&by))
            .await
    }

    /// Activates an approved version; the tenant's previously active one is retired.
    pub async fn activate_override(
        &self,
        tenant: &str,
        id: &str,
    ) -> Result<OverrideVersion, Failure> {
        let tenant = self.tenant(tenant).await?;
        let version = self.override_version(&tenant, id).await?;
        self.move_override(&tenant, &version, OverrideStatus::Active, None)
            .await
    }

    /// Retires a version (a draft or an approved one is withdrawn; an active one stops
    /// applying, leaving the service's policy alone in force).
    pub async fn retire_override(
        &self,
        tenant: &str,
        id: &str,
    ) -> Result<OverrideVersion, Failure> {
        let tenant = self.tenant(tenant).await?;
        let version = self.override_version(&tenant, id).await?;
        self.move_override(&tenant, &version, OverrideStatus::Retired, None)
            .await
    }

    pub async fn overrides(&self, tenant: &str) -> Result<Vec<OverrideVersion>, Failure> {
        let tenant = self.tenant(tenant).await?;
        self.store.overrides(&tenant).await.map_err(store)
    }

    /// Adds a whitelist entry, waiting for a second operator's approval.
    pub async fn add_whitelist_entry(
        &self,
        new: NewWhitelistEntry,
    ) -> Result<WhitelistEntry, Failure> {
        let tenant = self.tenant(&new.tenant).await?;
        let created_by = text("by", &new.created_by)?;
        let reason = text("reason", &new.reason)?;
        let source = ListSource::parse(new.source_id.trim()).ok_or_else(|| {
            let known: Vec<&str> = ListSource::ALL.iter().map(|s| s.as_str()).collect();
            Failure::bad_request("source", &format!("must be one of {}", known.join(", ")))
        })?;
        let source_entry_id = text("entry", &new.source_entry_id)?;
        let now = self.clock.now();
        if new.expires_at <= now || new.expires_at > now + Duration::days(MAX_WHITELIST_DAYS) {
            return Err(Failure::bad_request(
                "expires",
                &format!("must lie in the future, at most {MAX_WHITELIST_DAYS} days ahead"),
            ));
        }
        let (subject_id, input_hash) = match (new.subject_id, new.input_hash) {
            (Some(s), None) => {
                let id: SubjectId = s
                    .trim()
                    .parse()
                    .map_err(|_| Failure::not_found("subject"))?;
                match self.subjects.subject(&tenant, &id).await {
                    Ok(_) => {}
                    Err(StoreError::NotFound) => return Err(Failure::not_found("subject")),
                    Err(e) => return Err(store(e)),
                }
                (Some(id), None)
            }
            (None, Some(h)) => {
                let h = h.trim().to_owned();
                let hex = h.strip_prefix("hmac-sha256:").unwrap_or("");
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(Failure::bad_request(
                        "input_hash",
                        "must be a check's `input_hash` (`hmac-sha256:` and 64 hex digits)",
                    ));
                }
                (None, Some(h))
            }
            _ => {
                return Err(Failure::bad_request(
                    "subject_id",
                    "name exactly one of a subject id and a check's input hash",
                ))
            }
        };
        let entry = WhitelistEntry {
            id: WhitelistEntryId::generate(),
            tenant_id: tenant,
            subject_id,
            input_hash,
            source,
            source_entry_id,
            reason,
            created_by,
            approved_by: None,
            created_at: now,
            expires_at: new.expires_at,
            revoked_at: None,
        };
        self.store
            .add_whitelist_entry(&entry)
            .await
            .map_err(store)?;
        Ok(entry)
    }

    pub async fn whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<(WhitelistEntryId, WhitelistEntry), Failure> {
        let not_found = || Failure::not_found("whitelist entry");
        let id: WhitelistEntryId = id.parse().map_err(|_| not_found())?;
        let entry = self
            .store
            .whitelist_entry(tenant, &id)
            .await
            .map_err(store)?
            .ok_or_else(not_found)?;
        Ok((id, entry))
    }

    /// Approves an entry: by someone other than its maker; it is in effect from then until it
    /// expires or is revoked.
    pub async fn approve_whitelist_entry(
        &self,
        tenant: &str,
        id: &str,
        by: &str,
    ) -> Result<WhitelistEntry, Failure> {
        let by = text("by", by)?;
        let tenant = self.tenant(tenant).await?;
        let (id, entry) = self.whitelist_entry(&tenant, id).await?;
        if entry.created_by == by {
            return Err(conflict(
                "four eyes: the approver must not be the maker of the whitelist entry",
            ));
        }
        if entry.revoked_at.is_some() {
            return Err(conflict("the whitelist entry is revoked"));
        }
        if entry.approved_by.is_some() {
            return Err(conflict("the whitelist entry is approved already"));
        }
        self.store
            .approve_whitelist_entry(&tenant, &id, &by)
            .await
            .map_err(store)?
            .ok_or_else(|| conflict("the whitelist entry changed meanwhile; look again"))
    }

    /// Revokes an entry at once.
    pub async fn revoke_whitelist_entry(
        &self,
        tenant: &str,
        id: &str,
    ) -> Result<WhitelistEntry, Failure> {
        let tenant = self.tenant(tenant).await?;
        let (id, entry) = self.whitelist_entry(&tenant, id).await?;
        if entry.revoked_at.is_some() {
            return Err(conflict("the whitelist entry is revoked already"));
        }
        self.store
            .revoke_whitelist_entry(&tenant, &id, self.clock.now())
            .await
            .map_err(store)?
            .ok_or_else(|| conflict("the whitelist entry changed meanwhile; look again"))
    }

    pub async fn whitelist(&self, tenant: &str) -> Result<Vec<WhitelistEntry>, Failure> {
        let tenant = self.tenant(tenant).await?;
        self.store.whitelist(&tenant).await.map_err(store)
    }
}
