//! Portal users as the operator and a tenant's portal admins manage them: the operator makes a
//! tenant's first user (`idreg admin portal-user create`); later, a portal admin adds others
//! through the same use case, named as their maker.

use crate::access::ports::TenantStore;
use crate::access::tenant::TenantMode;
use crate::clock::Clock;
use crate::error::{Failure, StoreError};
use crate::ids::{PortalUserId, TenantId};
use crate::portal::ports::PortalStore;
use crate::portal::user::{Email, PortalRole, PortalUser};
use std::sync::Arc;

pub struct PortalAdmin {
    pub store: Arc<dyn PortalStore>,
    pub tenants: Arc<dyn TenantStore>,
    pub clock: Arc<dyn Clock>,
}

impl PortalAdmin {
    /// Adds a portal user to a live tenant. An address is one user's within a tenant.
    pub async fn create_user(
        &self,
        tenant: &str,
        email: &str,
        role: &str,
        by: Option<PortalUserId>,
    ) -> Result<PortalUser, Failure> {
        let tenant = self.live_tenant(tenant).await?;
        let email = Email::parse(crate::text::checked("email", email)?)?;
        let role = PortalRole::parse(role)
            .ok_or_else(|| Failure::bad_request("role", "must be admin or member"))?;
        let user = PortalUser {
            id: PortalUserId::generate(),
            tenant_id: tenant,
            email,
            role,
            created_at: self.clock.now(),
            created_by: by,
            disabled_at: None,
        };
        self.store
            .create_user(&user)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| {
                Failure::bad_request("email", "the tenant has a portal user with this address")
            })
    }

    /// The tenant's portal users, oldest first.
    pub async fn users(&self, tenant: &str) -> Result<Vec<PortalUser>, Failure> {
        let tenant = self.live_tenant(tenant).await?;
        self.store.users(&tenant).await.map_err(Failure::internal)
    }

    /// Disables an active user of the tenant; their sessions end with it.
    pub async fn disable_user(
        &self,
        tenant: &str,
        id: &PortalUserId,
    ) -> Result<PortalUser, Failure> {
        let tenant = self.live_tenant(tenant).await?;
        self.store
            .disable_user(&tenant, id, self.clock.now())
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| Failure::not_found("active portal user"))
    }

    /// Portal users belong to live tenants (a test twin is reached through its live tenant).
    async fn live_tenant(&self, id: &str) -> Result<TenantId, Failure> {
        let not_found = || Failure::not_found("tenant");
        let id: TenantId = id.parse().map_err(|_| not_found())?;
        let tenant = self.tenants.tenant(&id).await.map_err(|e| match e {
            StoreError::NotFound => not_found(),
            other => Failure::internal(other),
        })?;
        if tenant.mode == TenantMode::Test {
            return Err(Failure::bad_request(
                "tenant",
                "is a test twin; portal users belong to its live tenant",
            ));
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::ports::MockTenantStore;
    use crate::error::ErrorCode;
    use crate::fixtures;
    use crate::portal::ports::MockPortalStore;

    fn admin(store: MockPortalStore, tenant: crate::access::tenant::Tenant) -> PortalAdmin {
        let mut tenants = MockTenantStore::new();
        tenants.expect_tenant().returning(move |id| {
            if *id == tenant.id {
                Ok(tenant.clone())
            } else {
                Err(StoreError::NotFound)
            }
        });
        PortalAdmin {
            store: Arc::new(store),
            tenants: Arc::new(tenants),
            clock: fixtures::clock(),
        }
    }

    #[tokio::test]
    async fn a_user_is_made_with_a_checked_address_and_role() {
        let t = fixtures::tenant("SE");
        let mut store = MockPortalStore::new();
        store
            .expect_create_user()
            .returning(|u| Ok(Some(u.clone())));
        let a = admin(store, t.clone());
        let u = a
            .create_user(&t.id.to_string(), "Anna@Example.SE", "admin", None)
            .await
            .unwrap();
        assert_eq!(
            (u.tenant_id, u.email.as_str(), u.role, u.created_by),
            (t.id, "anna@example.se", PortalRole::Admin, None)
        );
        for (email, role, field) in [
            ("anna", "admin", "email"),
            ("anna@example.se", "owner", "role"),
            ("an\u{0}na@example.se", "admin", "email"),
        ] {
            let e = a
                .create_user(&t.id.to_string(), email, role, None)
                .await
                .unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest);
            assert!(e.message.contains(field), "{}", e.message);
        }
    }

    #[tokio::test]
    async fn an_address_taken_an_unknown_tenant_and_a_test_twin_are_refused() {
        let t = fixtures::tenant("SE");
        let mut store = MockPortalStore::new();
        store.expect_create_user().returning(|_| Ok(None));
        let a = admin(store, t.clone());
        let taken = a
            .create_user(&t.id.to_string(), "anna@example.se", "member", None)
            .await
            .unwrap_err();
        assert_eq!(taken.code, ErrorCode::BadRequest);
        for unknown in ["nonsense", &TenantId::generate().to_string()] {
            let e = a
                .create_user(unknown, "anna@example.se", "member", None)
                .await
                .unwrap_err();
            assert_eq!(e.code, ErrorCode::NotFound);
        }
        let twin = crate::access::tenant::Tenant {
            mode: TenantMode::Test,
            ..fixtures::tenant("SE")
        };
        let mut store = MockPortalStore::new();
        store.expect_create_user().never();
        let e = admin(store, twin.clone())
            .create_user(&twin.id.to_string(), "anna@example.se", "member", None)
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
    }
}
