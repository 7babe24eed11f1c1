//! `PortalStore` on PostgreSQL. A link is redeemed under its row's lock, so of two redemptions
//! racing one opens a session and the other finds it used; a user's recent links are counted
//! under the user's row lock, so concurrent requests never pass the limit.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::schema::{portal_links, portal_sessions, portal_users};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::error::StoreError;
use domain::ids::{PortalUserId, TenantId};
use domain::portal::ports::PortalStore;
use domain::portal::sign_in::{PortalSession, Redemption, SignInLink, TokenDigest};
use domain::portal::user::{Email, PortalRole, PortalUser};

type UserRow = (
    String,
    String,
    String,
    String,
    DateTime<Utc>,
    Option<String>,
    Option<DateTime<Utc>>,
);

macro_rules! user_columns {
    () => {
        (
            portal_users::tenant_id,
            portal_users::user_id,
            portal_users::email,
            portal_users::role,
            portal_users::created_at,
            portal_users::created_by,
            portal_users::disabled_at,
        )
    };
}

fn user_of(r: UserRow) -> Result<PortalUser, StoreError> {
    Ok(PortalUser {
        tenant_id: parse_id(&r.0, "tenant id")?,
        id: parse_id(&r.1, "portal user id")?,
        email: Email::parse(&r.2).map_err(|_| corrupt("portal user email"))?,
        role: PortalRole::parse(&r.3).ok_or_else(|| corrupt("portal role"))?,
        created_at: r.4,
        created_by: r.5.map(|c| parse_id(&c, "portal user id")).transpose()?,
        disabled_at: r.6,
    })
}

#[async_trait]
impl PortalStore for Database {
    async fn create_user(&self, user: &PortalUser) -> Result<Option<PortalUser>, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::insert_into(portal_users::table)
            .values((
                portal_users::tenant_id.eq(user.tenant_id.to_string()),
                portal_users::user_id.eq(user.id.to_string()),
                portal_users::email.eq(user.email.as_str()),
                portal_users::role.eq(user.role.as_str()),
                portal_users::created_at.eq(user.created_at),
                portal_users::created_by.eq(user.created_by.map(|c| c.to_string())),
                portal_users::disabled_at.eq(user.disabled_at),
            ))
            .on_conflict((portal_users::tenant_id, portal_users::email))
            .do_nothing()
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        // The connection goes back before the read below takes one: a pool of one would
        // otherwise wait on itself.
        drop(conn);
        if n == 0 {
            return Ok(None);
        }
        self.user(&user.tenant_id, &user.id).await
    }

    async fn users(&self, tenant: &TenantId) -> Result<Vec<PortalUser>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<UserRow> = portal_users::table
            .filter(portal_users::tenant_id.eq(tenant.to_string()))
            .order((portal_users::created_at, portal_users::user_id))
            .select(user_columns!())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(user_of).collect()
    }

    async fn user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
    ) -> Result<Option<PortalUser>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<UserRow> = portal_users::table
            .find((tenant.to_string(), id.to_string()))
            .select(user_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(user_of).transpose()
    }

    async fn disable_user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
        at: DateTime<Utc>,
    ) -> Result<Option<PortalUser>, StoreError> {
        let mut conn = self.conn().await?;
        let (tenant, id) = (tenant.to_string(), id.to_string());
        conn.transaction(async |conn| -> Result<Option<PortalUser>, TxError> {
            let row: Option<UserRow> = diesel::update(
                portal_users::table
                    .find((&tenant, &id))
                    .filter(portal_users::disabled_at.is_null()),
            )
            .set(portal_users::disabled_at.eq(at))
            .returning(user_columns!())
            .get_result(conn)
            .await
            .optional()
            .map_err(backend)?;
            let Some(row) = row else {
                return Ok(None);
            };
            diesel::update(
                portal_sessions::table
                    .filter(portal_sessions::tenant_id.eq(&tenant))
                    .filter(portal_sessions::user_id.eq(&id))
                    .filter(portal_sessions::ended_at.is_null()),
            )
            .set(portal_sessions::ended_at.eq(at))
            .execute(conn)
            .await
            .map_err(backend)?;
            Ok(Some(user_of(row)?))
        })
        .await
        .map_err(StoreError::from)
    }

    async fn active_users_by_email(&self, email: &Email) -> Result<Vec<PortalUser>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<UserRow> = portal_users::table
            .filter(portal_users::email.eq(email.as_str()))
            .filter(portal_users::disabled_at.is_null())
            .order((portal_users::tenant_id, portal_users::user_id))
            .select(user_columns!())
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(user_of).collect()
    }

    async fn record_link(
        &self,
        link: &SignInLink,
        max: u32,
        since: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let tenant = link.tenant_id.to_string();
        let user = link.user_id.to_string();
        let mut conn = self.conn().await?;
        let stored = conn
            .transaction(async |conn| -> Result<bool, TxError> {
                // The user's row, locked: concurrent requests count in turn.
                portal_users::table
                    .find((&tenant, &user))
                    .select(portal_users::user_id)
                    .for_update()
                    .first::<String>(conn)
                    .await?;
                let recent: i64 = portal_links::table
                    .filter(portal_links::tenant_id.eq(&tenant))
                    .filter(portal_links::user_id.eq(&user))
                    .filter(portal_links::created_at.gt(since))
                    .count()
                    .get_result(conn)
                    .await?;
                if recent >= i64::from(max) {
                    return Ok(false);
                }
                diesel::insert_into(portal_links::table)
                    .values((
                        portal_links::tenant_id.eq(&tenant),
                        portal_links::link_digest.eq(&link.digest.0),
                        portal_links::user_id.eq(&user),
                        portal_links::binding_digest.eq(&link.binding.0),
                        portal_links::created_at.eq(link.created_at),
                        portal_links::expires_at.eq(link.expires_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(true)
            })
            .await?;
        Ok(stored)
    }

    async fn redeem_link(
        &self,
        link: &TokenDigest,
        binding: &TokenDigest,
        session: &TokenDigest,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<Redemption, StoreError> {
        let mut conn = self.conn().await?;
        let redeemed = conn
            .transaction(async |conn| -> Result<Redemption, TxError> {
                type Found = (
                    String,
                    String,
                    Vec<u8>,
                    DateTime<Utc>,
                    Option<DateTime<Utc>>,
                );
                let found: Option<Found> = portal_links::table
                    .filter(portal_links::link_digest.eq(&link.0))
                    .select((
                        portal_links::tenant_id,
                        portal_links::user_id,
                        portal_links::binding_digest,
                        portal_links::expires_at,
                        portal_links::used_at,
                    ))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some((tenant, user, bound, link_expires, used)) = found else {
                    return Ok(Redemption::Unknown);
                };
                if bound != binding.0 {
                    return Ok(Redemption::Unknown);
                }
                let owner: Option<(String, String, Option<DateTime<Utc>>)> = portal_users::table
                    .find((&tenant, &user))
                    .select((
                        portal_users::role,
                        portal_users::email,
                        portal_users::disabled_at,
                    ))
                    .first(conn)
                    .await
                    .optional()?;
                let Some((role, email, None)) = owner else {
                    return Ok(Redemption::Unknown);
                };
                if used.is_some() {
                    return Ok(Redemption::Used);
                }
                if link_expires <= now {
                    return Ok(Redemption::Expired);
                }
                diesel::update(portal_links::table.find((&tenant, &link.0)))
                    .set(portal_links::used_at.eq(Some(now)))
                    .execute(conn)
                    .await?;
                diesel::insert_into(portal_sessions::table)
                    .values((
                        portal_sessions::tenant_id.eq(&tenant),
                        portal_sessions::session_digest.eq(&session.0),
                        portal_sessions::user_id.eq(&user),
                        portal_sessions::created_at.eq(now),
                        portal_sessions::last_seen_at.eq(now),
                        portal_sessions::expires_at.eq(expires_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(Redemption::SignedIn(PortalSession {
                    digest: session.clone(),
                    tenant_id: parse_id(&tenant, "tenant id")?,
                    user_id: parse_id(&user, "portal user id")?,
                    role: PortalRole::parse(&role).ok_or_else(|| corrupt("portal role"))?,
                    email: Email::parse(&email).map_err(|_| corrupt("portal user email"))?,
                    created_at: now,
                    last_seen_at: now,
                    expires_at,
                }))
            })
            .await?;
        Ok(redeemed)
    }

    async fn session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<Option<PortalSession>, StoreError> {
        let mut conn = self.conn().await?;
        type Found = (String, String, DateTime<Utc>, DateTime<Utc>);
        let found: Option<Found> = diesel::update(
            portal_sessions::table
                .filter(portal_sessions::session_digest.eq(&digest.0))
                .filter(portal_sessions::ended_at.is_null())
                .filter(portal_sessions::expires_at.gt(now))
                .filter(portal_sessions::last_seen_at.gt(now - idle)),
        )
        .set(portal_sessions::last_seen_at.eq(now))
        .returning((
            portal_sessions::tenant_id,
            portal_sessions::user_id,
            portal_sessions::created_at,
            portal_sessions::expires_at,
        ))
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        let Some((tenant, user, created_at, expires_at)) = found else {
            return Ok(None);
        };
        let owner: Option<(String, String, Option<DateTime<Utc>>)> = portal_users::table
            .find((&tenant, &user))
            .select((
                portal_users::role,
                portal_users::email,
                portal_users::disabled_at,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        let Some((role, email, None)) = owner else {
            return Ok(None);
        };
        Ok(Some(PortalSession {
            digest: digest.clone(),
            tenant_id: parse_id(&tenant, "tenant id")?,
            user_id: parse_id(&user, "portal user id")?,
            role: PortalRole::parse(&role).ok_or_else(|| corrupt("portal role"))?,
            email: Email::parse(&email).map_err(|_| corrupt("portal user email"))?,
            created_at,
            last_seen_at: now,
            expires_at,
        }))
    }

    async fn end_session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(
            portal_sessions::table
                .filter(portal_sessions::session_digest.eq(&digest.0))
                .filter(portal_sessions::ended_at.is_null()),
        )
        .set(portal_sessions::ended_at.eq(Some(now)))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n > 0)
    }
}
