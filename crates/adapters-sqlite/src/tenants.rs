//! `TenantStore` on SQLite.

use crate::convert::{
    corrupt, countries_from_row, countries_to_row, day, micros, parse_day, parse_id, parse_list,
    time, TxError,
};
use crate::schema::{grants, permits, tenants};
use crate::Database;
use async_trait::async_trait;
use chrono::Utc;
use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;
use domain::access::ports::TenantStore;
use domain::access::tenant::{
    Budget, Permit, PermitStatus, Tenant, TenantMode, TenantStatus, WrappedDataKey,
};
use domain::countries::country::{Country, CountrySet};
use domain::error::StoreError;
use domain::ids::{GrantId, TenantId};

#[derive(Queryable, Selectable)]
#[diesel(table_name = tenants)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite))]
pub(crate) struct TenantRow {
    pub tenant_id: String,
    pub name: String,
    pub own_country: String,
    pub provisioned_countries: String,
    pub status: String,
    pub data_key: Vec<u8>,
    pub daily_paid_calls: i64,
    pub monitoring_share: f64,
    pub person_lookup_ceiling: i64,
    pub retention_days: i32,
    pub mode: String,
    pub test_tenant_id: Option<String>,
    pub created_at: i64,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = permits)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite))]
pub(crate) struct PermitRow {
    pub valid_from: String,
    pub valid_to: String,
    pub status: String,
    pub recorded_at: i64,
}

impl TenantRow {
    pub(crate) fn into_domain(
        self,
        permit: Option<PermitRow>,
    ) -> Result<(Tenant, WrappedDataKey), StoreError> {
        let permit = permit
            .map(|p| {
                Ok::<_, StoreError>(Permit {
                    valid_from: parse_day(&p.valid_from)?,
                    valid_to: parse_day(&p.valid_to)?,
                    status: PermitStatus::parse(&p.status)
                        .ok_or_else(|| corrupt("permit status"))?,
                    recorded_at: time(p.recorded_at)?,
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
            created_at: time(self.created_at)?,
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
pub(crate) fn load_tenant(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<(Tenant, WrappedDataKey), TxError> {
    let row: TenantRow = tenants::table
        .find(id)
        .select(TenantRow::as_select())
        .first(conn)?;
    let permit: Option<PermitRow> = permits::table
        .filter(permits::tenant_id.eq(id))
        .order((permits::recorded_at.desc(), permits::permit_id.desc()))
        .select(PermitRow::as_select())
        .first(conn)
        .optional()?;
    Ok(row.into_domain(permit)?)
}

/// Records a permit. Permit ids are monotonic ULIDs, so two permits recorded in the same
/// millisecond still order by recording.
fn insert_permit(
    conn: &mut SqliteConnection,
    tenant_id: &str,
    permit: &Permit,
) -> Result<(), TxError> {
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
            permits::valid_from.eq(day(permit.valid_from)),
            permits::valid_to.eq(day(permit.valid_to)),
            permits::status.eq(permit.status.as_str()),
            permits::recorded_at.eq(micros(permit.recorded_at)),
        ))
        .execute(conn)?;
    Ok(())
}

/// Updates the tenant row with `change` and reads the tenant back; `NotFound` when it does
/// not exist.
fn update_tenant<V>(conn: &mut SqliteConnection, id: &str, change: V) -> Result<Tenant, TxError>
where
    V: diesel::query_builder::AsChangeset<Target = tenants::table>,
    <V as diesel::query_builder::AsChangeset>::Changeset:
        diesel::query_builder::QueryFragment<diesel::sqlite::Sqlite>,
{
    let n = diesel::update(tenants::table.find(id))
        .set(change)
        .execute(conn)?;
    if n == 0 {
        return Err(StoreError::NotFound.into());
    }
    Ok(load_tenant(conn, id)?.0)
}

/// Inserts a tenant row (and its permit, if any).
fn insert_row(
    conn: &mut SqliteConnection,
    tenant: &Tenant,
    data_key: &[u8],
) -> Result<(), TxError> {
    let id = tenant.id.to_string();
    diesel::insert_into(tenants::table)
        .values((
            tenants::tenant_id.eq(&id),
            tenants::name.eq(&tenant.name),
            tenants::own_country.eq(tenant.own_country.code()),
            tenants::provisioned_countries.eq(countries_to_row(&tenant.provisioned)),
            tenants::status.eq(tenant.status.as_str()),
            tenants::data_key.eq(data_key),
            tenants::daily_paid_calls.eq(tenant.budget.daily_paid_calls),
            tenants::monitoring_share.eq(tenant.budget.monitoring_share),
            tenants::person_lookup_ceiling.eq(tenant.budget.person_lookup_ceiling),
            tenants::retention_days.eq(i32::try_from(tenant.retention_days).unwrap_or(i32::MAX)),
            tenants::created_at.eq(micros(tenant.created_at)),
            tenants::updated_at.eq(micros(tenant.created_at)),
            tenants::mode.eq(tenant.mode.as_str()),
            tenants::test_tenant_id.eq(tenant.test_tenant.map(|t| t.to_string())),
        ))
        .execute(conn)?;
    if let Some(permit) = &tenant.permit {
        insert_permit(conn, &id, permit)?;
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
        let (tenant, data_key) = (tenant.clone(), data_key.0.clone());
        self.write(move |conn| insert_row(conn, &tenant, &data_key))
            .await
    }

    async fn tenant(&self, id: &TenantId) -> Result<Tenant, StoreError> {
        let id = id.to_string();
        self.read(move |conn| Ok(load_tenant(conn, &id)?.0)).await
    }

    async fn set_tenant_status(
        &self,
        id: &TenantId,
        status: TenantStatus,
    ) -> Result<Tenant, StoreError> {
        let id = id.to_string();
        self.write(move |conn| {
            update_tenant(
                conn,
                &id,
                (
                    tenants::status.eq(status.as_str()),
                    tenants::updated_at.eq(micros(Utc::now())),
                ),
            )
        })
        .await
    }

    async fn set_provisioned_countries(
        &self,
        id: &TenantId,
        countries: &CountrySet,
    ) -> Result<Tenant, StoreError> {
        let id = id.to_string();
        let countries = countries.clone();
        // The write transaction holds the store's write lock from its first statement: no
        // grant can gain a country between this check and the update.
        self.write(move |conn| {
            let exists: Option<String> = tenants::table
                .find(&id)
                .select(tenants::tenant_id)
                .first(conn)
                .optional()?;
            if exists.is_none() {
                return Err(StoreError::NotFound.into());
            }
            let codes: Vec<&str> = countries.iter().map(|c| c.code()).collect();
            let live: Vec<(String, String)> = grants::table
                .filter(grants::tenant_id.eq(&id))
                .filter(grants::revoked_at.is_null())
                .select((grants::grant_id, grants::countries))
                .load(conn)?;
            let mut outside: Vec<GrantId> = Vec::new();
            for (grant_id, grant_countries) in live {
                let grant_countries = parse_list(&grant_countries, "grant countries")?;
                if grant_countries.iter().any(|c| !codes.contains(&c.as_str())) {
                    outside.push(parse_id(&grant_id, "grant id")?);
                }
            }
            if !outside.is_empty() {
                return Err(StoreError::GrantsOutsideCountries(outside).into());
            }
            update_tenant(
                conn,
                &id,
                (
                    tenants::provisioned_countries.eq(countries_to_row(&countries)),
                    tenants::updated_at.eq(micros(Utc::now())),
                ),
            )
        })
        .await
    }

    async fn record_permit(&self, id: &TenantId, permit: &Permit) -> Result<Tenant, StoreError> {
        let (id, permit) = (id.to_string(), permit.clone());
        self.write(move |conn| {
            let exists: Option<String> = tenants::table
                .find(&id)
                .select(tenants::tenant_id)
                .first(conn)
                .optional()?;
            if exists.is_none() {
                return Err(StoreError::NotFound.into());
            }
            insert_permit(conn, &id, &permit)?;
            Ok(load_tenant(conn, &id)?.0)
        })
        .await
    }

    async fn set_budget(&self, id: &TenantId, budget: &Budget) -> Result<Tenant, StoreError> {
        let (id, budget) = (id.to_string(), budget.clone());
        self.write(move |conn| {
            update_tenant(
                conn,
                &id,
                (
                    tenants::daily_paid_calls.eq(budget.daily_paid_calls),
                    tenants::monitoring_share.eq(budget.monitoring_share),
                    tenants::person_lookup_ceiling.eq(budget.person_lookup_ceiling),
                    tenants::updated_at.eq(micros(Utc::now())),
                ),
            )
        })
        .await
    }

    async fn set_retention(&self, id: &TenantId, days: u32) -> Result<Tenant, StoreError> {
        let id = id.to_string();
        let days = i32::try_from(days)
            .map_err(|_| StoreError::Backend("retention out of range".into()))?;
        self.write(move |conn| {
            update_tenant(
                conn,
                &id,
                (
                    tenants::retention_days.eq(days),
                    tenants::updated_at.eq(micros(Utc::now())),
                ),
            )
        })
        .await
    }

    async fn tenant_with_key(&self, id: &TenantId) -> Result<(Tenant, WrappedDataKey), StoreError> {
        let id = id.to_string();
        self.read(move |conn| load_tenant(conn, &id)).await
    }

    async fn test_twin(
        &self,
        live: &TenantId,
        twin: &Tenant,
        data_key: &WrappedDataKey,
    ) -> Result<Tenant, StoreError> {
        let (live, twin, data_key) = (live.to_string(), twin.clone(), data_key.0.clone());
        // One write transaction: the check and the insert hold the file's write lock.
        self.write(move |conn| {
            let (live_tenant, _) = load_tenant(conn, &live)?;
            if let Some(existing) = live_tenant.test_tenant {
                return Ok(load_tenant(conn, &existing.to_string())?.0);
            }
            insert_row(conn, &twin, &data_key)?;
            diesel::update(tenants::table.find(&live))
                .set(tenants::test_tenant_id.eq(twin.id.to_string()))
                .execute(conn)?;
            Ok(load_tenant(conn, &twin.id.to_string())?.0)
        })
        .await
    }

    async fn wipe_tenant_data(&self, id: &TenantId) -> Result<u64, StoreError> {
        let id = id.to_string();
        self.write(move |conn| {
            let mut deleted = 0;
            for table in DATA_TABLES {
                deleted += diesel::sql_query(format!("DELETE FROM {table} WHERE tenant_id = ?"))
                    .bind::<diesel::sql_types::Text, _>(&id)
                    .execute(conn)? as u64;
            }
            Ok(deleted)
        })
        .await
    }
}
