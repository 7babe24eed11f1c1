//! `TenantStore` on PostgreSQL.

use crate::convert::{backend, corrupt, countries_from_row, countries_to_row, parse_id, TxError};
use crate::schema::{grants, permits, tenants};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::ports::TenantStore;
use domain::access::tenant::{
    Budget, Permit, PermitStatus, Tenant, TenantMode, TenantStatus, WrappedDataKey,
};
use domain::countries::country::{Country, CountrySet};
use domain::error::StoreError;
use domain::ids::{GrantId, TenantId};

#[derive(Queryable, Selectable)]
#[diesel(table_name = tenants)]
pub(crate) struct TenantRow {
    pub tenant_id: String,
    pub name: String,
    pub own_country: String,
    pub provisioned_countries: Vec<String>,
    pub status: String,
    pub data_key: Vec<u8>,
    pub daily_paid_calls: i64,
    pub monitoring_share: f64,
    pub person_lookup_ceiling: i64,
    pub retention_days: i32,
    pub mode: String,
    pub test_tenant_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = permits)]
pub(crate) struct PermitRow {
    pub valid_from: NaiveDate,
    pub valid_to: NaiveDate,
    pub status: String,
    pub recorded_at: DateTime<Utc>,
}

impl TenantRow {
    pub(crate) fn into_domain(
        self,
        permit: Option<PermitRow>,
    ) -> Result<(Tenant, WrappedDataKey), StoreError> {
        let permit = permit
            .map(|p| {
                Ok::<_, StoreError>(Permit {
                    valid_from: p.valid_from,
                    valid_to: p.valid_to,
                    status: PermitStatus::parse(&p.status)
                        .ok_or_else(|| corrupt("permit status"))?,
                    recorded_at: p.recorded_at,
                })
            })
            .transpose()?;
        let tenant = Tenant {
            id: parse_id(&self.tenant_id, "tenant id")?,
            name: self.name,
            own_country: Country::from_code(&self.own_country)
                .ok_or_else(|| corrupt("own country"))?,
            provisioned: countries_from_row(&self.provisioned_countries)?,
            status: TenantStatus::parse(&self.status).ok_or_else(|| corrupt("tenant status"))?,
            permit,
            budget: Budget {
                daily_paid_calls: self.daily_paid_calls,
                monitoring_share: self.monitoring_share,
                person_lookup_ceiling: self.person_lookup_ceiling,
            },
            retention_days: u32::try_from(self.retention_days)
                .map_err(|_| corrupt("retention days"))?,
            created_at: self.created_at,
            mode: TenantMode::parse(&self.mode).ok_or_else(|| corrupt("tenant mode"))?,
            test_tenant: self
                .test_tenant_id
                .as_deref()
                .map(|t| parse_id(t, "test tenant id"))
                .transpose()?,
        };
        Ok((tenant, WrappedDataKey(self.data_key)))
    }
}

/// The tenant with its current permit (the newest recorded) and data key.
pub(crate) async fn load_tenant(
    conn: &mut AsyncPgConnection,
    id: &str,
) -> Result<(Tenant, WrappedDataKey), StoreError> {
    let row: TenantRow = tenants::table
        .find(id)
        .select(TenantRow::as_select())
        .first(conn)
        .await
        .map_err(backend)?;
    let permit: Option<PermitRow> = permits::table
        .filter(permits::tenant_id.eq(id))
        .order((permits::recorded_at.desc(), permits::permit_id.desc()))
        .select(PermitRow::as_select())
        .first(conn)
        .await
        .optional()
        .map_err(backend)?;
    row.into_domain(permit)
}

/// Records a permit. Permit ids are monotonic ULIDs, so two permits recorded in the same
/// millisecond still order by recording.
async fn insert_permit(
    conn: &mut AsyncPgConnection,
    tenant_id: &str,
    permit: &Permit,
) -> Result<(), StoreError> {
    static PERMIT_IDS: std::sync::Mutex<Option<ulid::Generator>> = std::sync::Mutex::new(None);
    let permit_id = {
        let mut generator = PERMIT_IDS.lock().unwrap_or_else(|e| e.into_inner());
        let generator = generator.get_or_insert_with(ulid::Generator::new);
        generator
            .generate()
            .map_err(|e| StoreError::Backend(e.to_string()))?
    };
    diesel::insert_into(permits::table)
        .values((
            permits::tenant_id.eq(tenant_id),
            permits::permit_id.eq(permit_id.to_string()),
            permits::valid_from.eq(permit.valid_from),
            permits::valid_to.eq(permit.valid_to),
            permits::status.eq(permit.status.as_str()),
            permits::recorded_at.eq(permit.recorded_at),
        ))
        .execute(conn)
        .await
        .map_err(backend)?;
    Ok(())
}

/// Inserts a tenant row (and its permit, if any).
async fn insert_row(
    conn: &mut AsyncPgConnection,
    tenant: &Tenant,
    data_key: &WrappedDataKey,
) -> Result<(), TxError> {
    let id = tenant.id.to_string();
    diesel::insert_into(tenants::table)
        .values((
            tenants::tenant_id.eq(&id),
            tenants::name.eq(&tenant.name),
            tenants::own_country.eq(tenant.own_country.code()),
            tenants::provisioned_countries.eq(countries_to_row(&tenant.provisioned)),
            tenants::status.eq(tenant.status.as_str()),
            tenants::data_key.eq(&data_key.0),
            tenants::daily_paid_calls.eq(tenant.budget.daily_paid_calls),
            tenants::monitoring_share.eq(tenant.budget.monitoring_share),
            tenants::person_lookup_ceiling.eq(tenant.budget.person_lookup_ceiling),
            tenants::retention_days.eq(i32::try_from(tenant.retention_days).unwrap_or(i32::MAX)),
            tenants::created_at.eq(tenant.created_at),
            tenants::updated_at.eq(tenant.created_at),
            tenants::mode.eq(tenant.mode.as_str()),
            tenants::test_tenant_id.eq(tenant.test_tenant.map(|t| t.to_string())),
        ))
        .execute(conn)
        .await?;
    if let Some(permit) = &tenant.permit {
        insert_permit(conn, &id, permit).await?;
    }
    Ok(())
}

/// The tables a tenant's data is kept in, children before their parents.
const DATA_TABLES: [&str; 15] = [
    "idempotency_keys",
    "screening_checks",
    "screening_whitelist_entries",
    "screening_override_versions",
    "monitoring_baselines",
    "subscriptions",
    "events",
    "person_profiles",
    "paid_objects",
    "company_documents",
    "company_profiles",
    "customer_refs",
    "subject_identifiers",
    "subjects",
    "call_records",
];

#[async_trait]
impl TenantStore for Database {
    async fn insert_tenant(
        &self,
        tenant: &Tenant,
        data_key: &WrappedDataKey,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| -> Result<(), TxError> {
            insert_row(conn, tenant, data_key).await
        })
        .await
        .map_err(StoreError::from)
    }

    async fn tenant(&self, id: &TenantId) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        Ok(load_tenant(&mut conn, &id.to_string()).await?.0)
    }

    async fn set_tenant_status(
        &self,
        id: &TenantId,
        status: TenantStatus,
    ) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        let n = diesel::update(tenants::table.find(&id))
            .set((
                tenants::status.eq(status.as_str()),
                tenants::updated_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(load_tenant(&mut conn, &id).await?.0)
    }

    async fn set_provisioned_countries(
        &self,
        id: &TenantId,
        countries: &CountrySet,
    ) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        let codes = countries_to_row(countries);
        conn.transaction(async |conn| -> Result<Tenant, TxError> {
            // Lock the tenant row: grant writes lock it too, so no grant can gain a country
            // between this check and the update.
            let locked: Option<String> = tenants::table
                .find(&id)
                .select(tenants::tenant_id)
                .for_update()
                .first(conn)
                .await
                .optional()
                .map_err(backend)?;
            if locked.is_none() {
                return Err(StoreError::NotFound.into());
            }
            let live: Vec<(String, Vec<String>)> = grants::table
                .filter(grants::tenant_id.eq(&id))
                .filter(grants::revoked_at.is_null())
                .select((grants::grant_id, grants::countries))
                .load(conn)
                .await
                .map_err(backend)?;
            let mut outside: Vec<GrantId> = Vec::new();
            for (grant_id, grant_countries) in live {
                if grant_countries.iter().any(|c| !codes.contains(c)) {
                    outside.push(parse_id(&grant_id, "grant id")?);
                }
            }
            if !outside.is_empty() {
                return Err(StoreError::GrantsOutsideCountries(outside).into());
            }
            diesel::update(tenants::table.find(&id))
                .set((
                    tenants::provisioned_countries.eq(&codes),
                    tenants::updated_at.eq(Utc::now()),
                ))
                .execute(conn)
                .await
                .map_err(backend)?;
            Ok(load_tenant(conn, &id).await?.0)
        })
        .await
        .map_err(StoreError::from)
    }

    async fn record_permit(&self, id: &TenantId, permit: &Permit) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        let exists: Option<String> = tenants::table
            .find(&id)
            .select(tenants::tenant_id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        if exists.is_none() {
            return Err(StoreError::NotFound);
        }
        insert_permit(&mut conn, &id, permit).await?;
        Ok(load_tenant(&mut conn, &id).await?.0)
    }

    async fn set_budget(&self, id: &TenantId, budget: &Budget) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        let n = diesel::update(tenants::table.find(&id))
            .set((
                tenants::daily_paid_calls.eq(budget.daily_paid_calls),
                tenants::monitoring_share.eq(budget.monitoring_share),
                tenants::person_lookup_ceiling.eq(budget.person_lookup_ceiling),
                tenants::updated_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(load_tenant(&mut conn, &id).await?.0)
    }

    async fn set_retention(&self, id: &TenantId, days: u32) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        let days = i32::try_from(days)
            .map_err(|_| StoreError::Backend("retention out of range".into()))?;
        let n = diesel::update(tenants::table.find(&id))
            .set((
                tenants::retention_days.eq(days),
                tenants::updated_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(load_tenant(&mut conn, &id).await?.0)
    }

    async fn tenant_with_key(&self, id: &TenantId) -> Result<(Tenant, WrappedDataKey), StoreError> {
        let mut conn = self.conn().await?;
        load_tenant(&mut conn, &id.to_string()).await
    }

    async fn test_twin(
        &self,
        live: &TenantId,
        twin: &Tenant,
        data_key: &WrappedDataKey,
    ) -> Result<Tenant, StoreError> {
        let mut conn = self.conn().await?;
        let live = live.to_string();
        // Under the live tenant's row lock: a concurrent request finds the twin this one made.
        let twin_id = conn
            .transaction(async |conn| -> Result<String, TxError> {
                let existing: Option<Option<String>> = tenants::table
                    .find(&live)
                    .select(tenants::test_tenant_id)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                match existing {
                    None => Err(TxError(StoreError::NotFound)),
                    Some(Some(existing)) => Ok(existing),
                    Some(None) => {
                        insert_row(conn, twin, data_key).await?;
                        diesel::update(tenants::table.find(&live))
                            .set(tenants::test_tenant_id.eq(twin.id.to_string()))
                            .execute(conn)
                            .await?;
                        Ok(twin.id.to_string())
                    }
                }
            })
            .await
            .map_err(StoreError::from)?;
        Ok(load_tenant(&mut conn, &twin_id).await?.0)
    }

    async fn wipe_tenant_data(&self, id: &TenantId) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let id = id.to_string();
        conn.transaction(async |conn| -> Result<u64, TxError> {
            let mut deleted = 0;
            for table in DATA_TABLES {
                deleted += diesel::sql_query(format!("DELETE FROM {table} WHERE tenant_id = $1"))
                    .bind::<diesel::sql_types::Text, _>(&id)
                    .execute(conn)
                    .await? as u64;
            }
            Ok(deleted)
        })
        .await
        .map_err(StoreError::from)
    }
}
