//! `GrantStore` on PostgreSQL.

use crate::convert::{
    backend, corrupt, countries_from_row, countries_to_row, parse_id, scopes_from_row,
    scopes_to_row, TxError,
};
use crate::schema::{client_credentials, grants, tenants};
use crate::statements::{AccessByClient, AccessByGrant};
use crate::tenants::{PermitRow, TenantRow};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, Date, Double, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::grant::{Grant, GrantOwner, SecretHash};
use domain::access::ports::{GrantAccess, GrantStore};
use domain::access::scope::ScopeSet;
use domain::countries::country::CountrySet;
use domain::error::StoreError;
use domain::ids::{ClientId, GrantId, TenantId};

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
            expires_at: self.expires_at,
            revoked_at: self.revoked_at,
            credential_generation: self.credential_generation,
            created_at: self.created_at,
            owner: GrantOwner::parse(&self.owner).ok_or_else(|| corrupt("grant owner"))?,
        };
        Ok((grant, SecretHash(self.secret_hash)))
    }
}

async fn load_grant(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    id: &str,
) -> Result<(Grant, SecretHash), StoreError> {
    grants::table
        .find((tenant_id, id))
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

/// Writes a grant and its credential-directory row (the caller's transaction), after
/// [`lock_tenant_and_check`].
pub(crate) async fn insert_grant_rows(
    conn: &mut AsyncPgConnection,
    grant: &Grant,
    secret_hash: &SecretHash,
) -> Result<(), TxError> {
    let tenant_id = grant.tenant_id.to_string();
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
            grants::owner.eq(grant.owner.as_str()),
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
}

#[async_trait]
impl GrantStore for Database {
    async fn insert_grant(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| insert_grant_rows(conn, grant, secret_hash).await)
            .await
            .map_err(StoreError::from)
    }

    async fn grant_tenant(&self, id: &GrantId) -> Result<Option<TenantId>, StoreError> {
        let mut conn = self.conn().await?;
        // The credential directory is the one global table that names grants.
        let tenant: Option<String> = client_credentials::table
            .filter(client_credentials::grant_id.eq(id.to_string()))
            .select(client_credentials::tenant_id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        tenant.map(|t| parse_id(&t, "tenant id")).transpose()
    }

    async fn grant(&self, tenant: &TenantId, id: &GrantId) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        Ok(load_grant(&mut conn, &tenant.to_string(), &id.to_string())
            .await?
            .0)
    }

    async fn grants(&self, tenant: &TenantId) -> Result<Vec<Grant>, StoreError> {
        let mut conn = self.conn().await?;
        grants::table
            .filter(grants::tenant_id.eq(tenant.to_string()))
            .order((grants::created_at.desc(), grants::grant_id.desc()))
            .select(GrantRow::as_select())
            .load(&mut conn)
            .await
            .map_err(backend)?
            .into_iter()
            .map(|row| row.into_domain().map(|(grant, _)| grant))
            .collect()
    }

    async fn update_grant<'a>(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        scopes: Option<&'a ScopeSet>,
        countries: Option<&'a CountrySet>,
    ) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant_id, grant_id) = (tenant.to_string(), id.to_string());
        conn.transaction(async |conn| -> Result<Grant, TxError> {
            let (current, _) = load_grant(conn, &tenant_id, &grant_id).await?;
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
            Ok(load_grant(conn, &tenant_id, &grant_id).await?.0)
        })
        .await
        .map_err(StoreError::from)
    }

    async fn revoke_grant(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        at: DateTime<Utc>,
    ) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant_id, grant_id) = (tenant.to_string(), id.to_string());
        // Revoking twice keeps the first revocation time.
        diesel::update(
            grants::table
                .find((&tenant_id, &grant_id))
                .filter(grants::revoked_at.is_null()),
        )
        .set((grants::revoked_at.eq(at), grants::updated_at.eq(at)))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(load_grant(&mut conn, &tenant_id, &grant_id).await?.0)
    }

    async fn rotate_secret(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        new_hash: &SecretHash,
    ) -> Result<Grant, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant_id, grant_id) = (tenant.to_string(), id.to_string());
        let n = diesel::update(grants::table.find((&tenant_id, &grant_id)))
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
        Ok(load_grant(&mut conn, &tenant_id, &grant_id).await?.0)
    }

    async fn credentials(
        &self,
        client_id: &ClientId,
    ) -> Result<Option<(GrantAccess, SecretHash)>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<AccessRow> = AccessByClient {
            client_id: client_id.as_str(),
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        row.map(AccessRow::into_domain).transpose()
    }

    async fn grant_access(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<GrantAccess>, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant_id, grant_id) = (tenant.to_string(), grant.to_string());
        let row: Option<AccessRow> = AccessByGrant {
            tenant_id: &tenant_id,
            grant_id: &grant_id,
        }
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        Ok(row
            .map(AccessRow::into_domain)
            .transpose()?
            .map(|(access, _)| access))
    }
}

/// One row of the guard's read: a grant, its tenant and the tenant's current permit.
#[derive(QueryableByName)]
struct AccessRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    grant_id: String,
    #[diesel(sql_type = Text)]
    client_id: String,
    #[diesel(sql_type = Array<Text>)]
    scopes: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    countries: Vec<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    expires_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    revoked_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    secret_hash: String,
    #[diesel(sql_type = Integer)]
    credential_generation: i32,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    owner: String,
    #[diesel(sql_type = Text)]
    tenant_name: String,
    #[diesel(sql_type = Text)]
    own_country: String,
    #[diesel(sql_type = Array<Text>)]
    provisioned_countries: Vec<String>,
    #[diesel(sql_type = Text)]
    tenant_status: String,
    #[diesel(sql_type = Bytea)]
    data_key: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    daily_paid_calls: i64,
    #[diesel(sql_type = Double)]
    monitoring_share: f64,
    #[diesel(sql_type = BigInt)]
    person_lookup_ceiling: i64,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    retention_days: i32,
    #[diesel(sql_type = Timestamptz)]
    tenant_created_at: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    tenant_mode: String,
    #[diesel(sql_type = Nullable<Text>)]
    test_tenant_id: Option<String>,
    #[diesel(sql_type = Nullable<Date>)]
    permit_valid_from: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Date>)]
    permit_valid_to: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Text>)]
    permit_status: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    permit_recorded_at: Option<DateTime<Utc>>,
}

impl AccessRow {
    fn into_domain(self) -> Result<(GrantAccess, SecretHash), StoreError> {
        let permit = match (
            self.permit_valid_from,
            self.permit_valid_to,
            self.permit_status,
            self.permit_recorded_at,
        ) {
            (Some(valid_from), Some(valid_to), Some(status), Some(recorded_at)) => {
                Some(PermitRow {
                    valid_from,
                    valid_to,
                    status,
                    recorded_at,
                })
            }
            (None, None, None, None) => None,
            _ => return Err(corrupt("permit")),
        };
        let tenant = TenantRow {
            tenant_id: self.tenant_id.clone(),
            name: self.tenant_name,
            own_country: self.own_country,
            provisioned_countries: self.provisioned_countries,
            status: self.tenant_status,
            data_key: self.data_key,
            daily_paid_calls: self.daily_paid_calls,
            monitoring_share: self.monitoring_share,
            person_lookup_ceiling: self.person_lookup_ceiling,
            retention_days: self.retention_days,
            created_at: self.tenant_created_at,
            mode: self.tenant_mode,
            test_tenant_id: self.test_tenant_id,
        };
        let (tenant, data_key) = tenant.into_domain(permit)?;
        let (grant, hash) = GrantRow {
            tenant_id: self.tenant_id,
            grant_id: self.grant_id,
            client_id: self.client_id,
            scopes: self.scopes,
            countries: self.countries,
            expires_at: self.expires_at,
            revoked_at: self.revoked_at,
            secret_hash: self.secret_hash,
            credential_generation: self.credential_generation,
            created_at: self.created_at,
            owner: self.owner,
        }
        .into_domain()?;
        Ok((
            GrantAccess {
                grant,
                tenant,
                data_key,
            },
            hash,
        ))
    }
}
