//! `GrantStore` on SQLite.

use crate::convert::{
    corrupt, countries_from_row, countries_to_row, micros, parse_id, scopes_from_row,
    scopes_to_row, time, TxError,
};
use crate::schema::{client_credentials, grants, tenants};
use crate::tenants::load_tenant;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;
use domain::access::grant::{Grant, GrantOwner, SecretHash};
use domain::access::ports::{GrantAccess, GrantStore};
use domain::access::scope::ScopeSet;
use domain::countries::country::CountrySet;
use domain::error::StoreError;
use domain::ids::{ClientId, GrantId, TenantId};

#[derive(Queryable, Selectable)]
#[diesel(table_name = grants)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite))]
struct GrantRow {
    tenant_id: String,
    grant_id: String,
    client_id: String,
    scopes: String,
    countries: String,
    expires_at: Option<i64>,
    revoked_at: Option<i64>,
    secret_hash: String,
    credential_generation: i32,
    created_at: i64,
    owner: String,
}

impl GrantRow {
    fn into_domain(self) -> Result<(Grant, SecretHash), StoreError> {
        let grant = Grant {
            id: parse_id(&self.grant_id, "grant id")?,
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            client_id: ClientId::from_wire(&self.client_id),
            scopes: scopes_from_row(&self.scopes)?,
            countries: countries_from_row(&self.countries)?,
            expires_at: self.expires_at.map(time).transpose()?,
            revoked_at: self.revoked_at.map(time).transpose()?,
            credential_generation: self.credential_generation,
            created_at: time(self.created_at)?,
            owner: GrantOwner::parse(&self.owner).ok_or_else(|| corrupt("grant owner"))?,
        };
        Ok((grant, SecretHash(self.secret_hash)))
    }
}

fn load_grant(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    id: &str,
) -> Result<(Grant, SecretHash), TxError> {
    Ok(grants::table
        .find((tenant_id, id))
        .select(GrantRow::as_select())
        .first(conn)?
        .into_domain()?)
}

/// Checks `countries` against the tenant's provisioned set. Inside a write transaction,
/// which holds the store's write lock, no narrowing of the tenant can slip between this
/// check and the grant's write.
fn check_countries(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    grant_id: &GrantId,
    countries: &CountrySet,
) -> Result<(), TxError> {
    let provisioned: String = tenants::table
        .find(tenant_id)
        .select(tenants::provisioned_countries)
        .first(conn)?;
    let provisioned = countries_from_row(&provisioned)?;
    if countries.is_empty() || !countries.is_subset(&provisioned) {
        return Err(StoreError::GrantsOutsideCountries(vec![*grant_id]).into());
    }
    Ok(())
}

/// A grant with its tenant, the tenant's current permit and data key: the guard's read, in
/// one read transaction (one snapshot).
fn access(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    grant_id: &str,
) -> Result<Option<(GrantAccess, SecretHash)>, TxError> {
    let Some(row) = grants::table
        .find((tenant_id, grant_id))
        .select(GrantRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let (grant, hash) = row.into_domain()?;
    let (tenant, data_key) = load_tenant(conn, tenant_id)?;
    Ok(Some((
        GrantAccess {
            grant,
            tenant,
            data_key,
        },
        hash,
    )))
}

/// Writes a grant and its credential-directory row (in the caller's write), after checking
/// its countries against the tenant's.
pub(crate) fn insert_grant_rows(
    conn: &mut diesel::sqlite::SqliteConnection,
    grant: &Grant,
    hash: &SecretHash,
) -> Result<(), TxError> {
    let tenant_id = grant.tenant_id.to_string();
    check_countries(conn, &tenant_id, &grant.id, &grant.countries)?;
    diesel::insert_into(grants::table)
        .values((
            grants::tenant_id.eq(&tenant_id),
            grants::grant_id.eq(grant.id.to_string()),
            grants::client_id.eq(grant.client_id.as_str()),
            grants::scopes.eq(scopes_to_row(&grant.scopes)),
            grants::countries.eq(countries_to_row(&grant.countries)),
            grants::expires_at.eq(grant.expires_at.map(micros)),
            grants::revoked_at.eq(grant.revoked_at.map(micros)),
            grants::secret_hash.eq(&hash.0),
            grants::credential_generation.eq(grant.credential_generation),
            grants::created_at.eq(micros(grant.created_at)),
            grants::updated_at.eq(micros(grant.created_at)),
            grants::owner.eq(grant.owner.as_str()),
        ))
        .execute(conn)?;
    diesel::insert_into(client_credentials::table)
        .values((
            client_credentials::client_id.eq(grant.client_id.as_str()),
            client_credentials::tenant_id.eq(&tenant_id),
            client_credentials::grant_id.eq(grant.id.to_string()),
        ))
        .execute(conn)?;
    Ok(())
}

#[async_trait]
impl GrantStore for Database {
    async fn insert_grant(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
    ) -> Result<(), StoreError> {
        let (grant, hash) = (grant.clone(), secret_hash.clone());
        self.write(move |conn| insert_grant_rows(conn, &grant, &hash))
            .await
    }

    async fn grant_tenant(&self, id: &GrantId) -> Result<Option<TenantId>, StoreError> {
        let id = id.to_string();
        self.read(move |conn| {
            // The credential directory is the one global table that names grants.
            let tenant: Option<String> = client_credentials::table
                .filter(client_credentials::grant_id.eq(&id))
                .select(client_credentials::tenant_id)
                .first(conn)
                .optional()?;
            Ok(tenant.map(|t| parse_id(&t, "tenant id")).transpose()?)
        })
        .await
    }

    async fn grant(&self, tenant: &TenantId, id: &GrantId) -> Result<Grant, StoreError> {
        let (tenant_id, grant_id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| Ok(load_grant(conn, &tenant_id, &grant_id)?.0))
            .await
    }

    async fn grants(&self, tenant: &TenantId) -> Result<Vec<Grant>, StoreError> {
        let tenant_id = tenant.to_string();
        self.read(move |conn| {
            grants::table
                .filter(grants::tenant_id.eq(&tenant_id))
                .order((grants::created_at.desc(), grants::grant_id.desc()))
                .select(GrantRow::as_select())
                .load(conn)?
                .into_iter()
                .map(|row| Ok(row.into_domain()?.0))
                .collect()
        })
        .await
    }

    async fn update_grant<'a>(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        scopes: Option<&'a ScopeSet>,
        countries: Option<&'a CountrySet>,
    ) -> Result<Grant, StoreError> {
        let (tenant_id, grant_id, id) = (tenant.to_string(), id.to_string(), *id);
        let (scopes, countries) = (scopes.cloned(), countries.cloned());
        self.write(move |conn| {
            let (current, _) = load_grant(conn, &tenant_id, &grant_id)?;
            if let Some(countries) = &countries {
                check_countries(conn, &tenant_id, &id, countries)?;
            }
            let scopes = scopes.as_ref().unwrap_or(&current.scopes);
            let countries = countries.as_ref().unwrap_or(&current.countries);
            diesel::update(grants::table.find((&tenant_id, &grant_id)))
                .set((
                    grants::scopes.eq(scopes_to_row(scopes)),
                    grants::countries.eq(countries_to_row(countries)),
                    grants::updated_at.eq(micros(Utc::now())),
                ))
                .execute(conn)?;
            Ok(load_grant(conn, &tenant_id, &grant_id)?.0)
        })
        .await
    }

    async fn revoke_grant(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        at: DateTime<Utc>,
    ) -> Result<Grant, StoreError> {
        let (tenant_id, grant_id) = (tenant.to_string(), id.to_string());
        self.write(move |conn| {
            // Revoking twice keeps the first revocation time.
            diesel::update(
                grants::table
                    .find((&tenant_id, &grant_id))
                    .filter(grants::revoked_at.is_null()),
            )
            .set((
                grants::revoked_at.eq(micros(at)),
                grants::updated_at.eq(micros(at)),
            ))
            .execute(conn)?;
            Ok(load_grant(conn, &tenant_id, &grant_id)?.0)
        })
        .await
    }

    async fn rotate_secret(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        new_hash: &SecretHash,
    ) -> Result<Grant, StoreError> {
        let (tenant_id, grant_id, hash) = (tenant.to_string(), id.to_string(), new_hash.0.clone());
        self.write(move |conn| {
            let n = diesel::update(grants::table.find((&tenant_id, &grant_id)))
                .set((
                    grants::secret_hash.eq(&hash),
                    grants::credential_generation.eq(grants::credential_generation + 1),
                    grants::updated_at.eq(micros(Utc::now())),
                ))
                .execute(conn)?;
            if n == 0 {
                return Err(StoreError::NotFound.into());
            }
            Ok(load_grant(conn, &tenant_id, &grant_id)?.0)
        })
        .await
    }

    async fn credentials(
        &self,
        client_id: &ClientId,
    ) -> Result<Option<(GrantAccess, SecretHash)>, StoreError> {
        let client_id = client_id.as_str().to_owned();
        self.read(move |conn| {
            let Some((tenant_id, grant_id)) = client_credentials::table
                .find(&client_id)
                .select((client_credentials::tenant_id, client_credentials::grant_id))
                .first::<(String, String)>(conn)
                .optional()?
            else {
                return Ok(None);
            };
            access(conn, &tenant_id, &grant_id)
        })
        .await
    }

    async fn grant_access(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<GrantAccess>, StoreError> {
        let (tenant_id, grant_id) = (tenant.to_string(), grant.to_string());
        self.read(move |conn| Ok(access(conn, &tenant_id, &grant_id)?.map(|(access, _)| access)))
            .await
    }
}
