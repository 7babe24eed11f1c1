//! `GrantStore` on PostgreSQL.

use crate::convert::{
    backend, countries_from_row, countries_to_row, parse_id, scopes_from_row, scopes_to_row,
    TxError,
};
use crate::schema::{client_credentials, grants, tenants};
use crate::tenants::load_tenant;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::country::CountrySet;
use domain::grant::{Grant, SecretHash};
use domain::ids::{ClientId, GrantId, TenantId};
use domain::ports::{GrantAccess, GrantStore, StoreError};
use domain::scope::ScopeSet;

#[derive(Queryable, Selectable)]
#[diesel(table_name = grants)]
struct GrantRow {
    tenant_id: String,
    grant_id: String,
    client_id: String,
    scopes: Vec<String>,
    countries: Vec<String>,
    expires_at: Option<DateTime<Utc>>,
    revoked_at: Option<DateTime<Utc>>,
    secret_hash: String,
    credential_generation: i32,
    created_at: DateTime<Utc>,
}

impl GrantRow {
    fn into_domain(self) -> Result<(Grant, SecretHash), StoreError> {
        let grant = Grant {
            id: parse_id(&self.grant_id, "grant id")?,
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            client_id: ClientId::from_wire(&self.client_id),
            scopes: scopes_from_row(&self.scopes)?,
            countries: countries_from_row(&self.countries)?,
            expires_at: self.expires_at,
            revoked_at: self.revoked_at,
            credential_generation: self.credential_generation,
            created_at: self.created_at,
        };
        Ok((grant, SecretHash(self.secret_hash)))
    }
}

async fn load_grant_by_id(
    conn: &mut AsyncPgConnection,
    id: &str,
) -> Result<(Grant, SecretHash), StoreError> {
    grants::table
        .filter(grants::grant_id.eq(id))
        .select(GrantRow::as_select())
        .first(conn)
        .await
        .map_err(backend)?
        .into_domain()
}

/// Locks the tenant row and checks `countries` against its provisioned set, so that a
/// concurrent narrowing of the tenant cannot slip between check and write.
async fn lock_tenant_and_check(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    grant_id: &GrantId,
    countries: &CountrySet,
) -> Result<(), StoreError> {
    let provisioned: Vec<String> = tenants::table
        .find(tenant_id)
        .select(tenants::provisioned_countries)
        .for_update()
        .first(conn)
        .await
        .map_err(backend)?;
    let provisioned = countries_from_row(&provisioned)?;
    if countries.is_empty() || !countries.is_subset(&provisioned) {
        return Err(StoreError::GrantsOutsideCountries(vec![*grant_id]));
    }
    Ok(())
}

#[async_trait]
impl GrantStore for Database {
    async fn insert_grant(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let tenant_id = grant.tenant_id.to_string();
        conn.transaction(async |conn| -> Result<(), TxError> {
            lock_tenant_and_check(conn, &tenant_id, &grant.id, &grant.countries).await?;
            diesel::insert_into(grants::table)
                .values((
                    grants::tenant_id.eq(&tenant_id),
                    grants::grant_id.eq(grant.id.to_string()),
                    grants::client_id.eq(grant.client_id.as_str()),
                    grants::scopes.eq(scopes_to_row(&grant.scopes)),
                    grants::countries.eq(countries_to_row(&grant.countries)),
                    grants::expires_at.eq(grant.expires_at),
                    grants::revoked_at.eq(grant.revoked_at),
                    grants::secret_hash.eq(&secret_hash.0),
                    grants::credential_generation.eq(grant.credential_generation),
                    grants::created_at.eq(grant.created_at),
                    grants::updated_at.eq(grant.created_at),
                ))
                .execute(conn)
                .await?;
            diesel::insert_into(client_credentials::table)
                .values((
                    client_credentials::client_id.eq(grant.client_id.as_str()),
                    client_credentials::tenant_id.eq(&tenant_id),
                    client_credentials::grant_id.eq(grant.id.to_string()),
                ))
                .execute(conn)
                .await?;
            Ok(())
        })
        .await
        .map_err(StoreError::from)
    }

    async fn grant(&self, id: &GrantId) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        Ok(load_grant_by_id(&mut conn, &id.to_string()).await?.0)
    }

    async fn update_grant<'a>(
        &self,
        id: &GrantId,
        scopes: Option<&'a ScopeSet>,
        countries: Option<&'a CountrySet>,
    ) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let grant_id = id.to_string();
        conn.transaction(async |conn| -> Result<Grant, TxError> {
            let (current, _) = load_grant_by_id(conn, &grant_id).await?;
            let tenant_id = current.tenant_id.to_string();
            if let Some(countries) = countries {
                lock_tenant_and_check(conn, &tenant_id, id, countries).await?;
            }
            let scopes = scopes.unwrap_or(&current.scopes);
            let countries = countries.unwrap_or(&current.countries);
            diesel::update(grants::table.find((&tenant_id, &grant_id)))
                .set((
                    grants::scopes.eq(scopes_to_row(scopes)),
                    grants::countries.eq(countries_to_row(countries)),
                    grants::updated_at.eq(Utc::now()),
                ))
                .execute(conn)
                .await?;
            Ok(load_grant_by_id(conn, &grant_id).await?.0)
        })
        .await
        .map_err(StoreError::from)
    }

    async fn revoke_grant(&self, id: &GrantId, at: DateTime<Utc>) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let grant_id = id.to_string();
        // Revoking twice keeps the first revocation time.
        diesel::update(
            grants::table
                .filter(grants::grant_id.eq(&grant_id))
                .filter(grants::revoked_at.is_null()),
        )
        .set((grants::revoked_at.eq(at), grants::updated_at.eq(at)))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(load_grant_by_id(&mut conn, &grant_id).await?.0)
    }

    async fn rotate_secret(
        &self,
        id: &GrantId,
        new_hash: &SecretHash,
    ) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let grant_id = id.to_string();
        let n = diesel::update(grants::table.filter(grants::grant_id.eq(&grant_id)))
            .set((
                grants::secret_hash.eq(&new_hash.0),
                grants::credential_generation.eq(grants::credential_generation + 1),
                grants::updated_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(load_grant_by_id(&mut conn, &grant_id).await?.0)
    }

    async fn credentials(
        &self,
        client_id: &ClientId,
    ) -> Result<Option<(GrantAccess, SecretHash)>, StoreError> {
        let mut conn = self.conn().await?;
        let owner: Option<(String, String)> = client_credentials::table
            .find(client_id.as_str())
            .select((client_credentials::tenant_id, client_credentials::grant_id))
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        let Some((tenant_id, grant_id)) = owner else {
            return Ok(None);
        };
        load_access(&mut conn, &tenant_id, &grant_id).await
    }

    async fn grant_access(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<GrantAccess>, StoreError> {
        let mut conn = self.conn().await?;
        Ok(
            load_access(&mut conn, &tenant.to_string(), &grant.to_string())
                .await?
                .map(|(access, _)| access),
        )
    }
}

async fn load_access(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    grant_id: &str,
) -> Result<Option<(GrantAccess, SecretHash)>, StoreError> {
    let row: Option<GrantRow> = grants::table
        .find((tenant_id, grant_id))
        .select(GrantRow::as_select())
        .first(conn)
        .await
        .optional()
        .map_err(backend)?;
    let Some(row) = row else { return Ok(None) };
    let (grant, hash) = row.into_domain()?;
    let (tenant, data_key) = load_tenant(conn, tenant_id).await?;
    Ok(Some((
        GrantAccess {
            grant,
            tenant,
            data_key,
        },
        hash,
    )))
}
