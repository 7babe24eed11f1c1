//! `PortalStore` on SQLite. Each write is one write transaction under the store's one write
//! lock, so a link is redeemed once and a user's recent links are counted with the insert.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use domain::error::StoreError;
use domain::ids::{PortalUserId, TenantId};
use domain::portal::ports::PortalStore;
use domain::portal::sign_in::{PortalSession, Redemption, SignInLink, TokenDigest};
use domain::portal::user::{Email, PortalRole, PortalUser};

const USER_COLUMNS: &str = "tenant_id, user_id, email, role, created_at, created_by, disabled_at";

#[derive(QueryableByName)]
struct UserRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    user_id: String,
    #[diesel(sql_type = Text)]
    email: String,
    #[diesel(sql_type = Text)]
    role: String,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Nullable<Text>)]
    created_by: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    disabled_at: Option<i64>,
}

impl UserRow {
    fn user(self) -> Result<PortalUser, StoreError> {
        Ok(PortalUser {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            id: parse_id(&self.user_id, "portal user id")?,
            email: Email::parse(&self.email).map_err(|_| corrupt("portal user email"))?,
            role: PortalRole::parse(&self.role).ok_or_else(|| corrupt("portal role"))?,
            created_at: time(self.created_at)?,
            created_by: self
                .created_by
                .map(|c| parse_id(&c, "portal user id"))
                .transpose()?,
            disabled_at: self.disabled_at.map(time).transpose()?,
        })
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct LinkRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    user_id: String,
    #[diesel(sql_type = Binary)]
    binding_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    used_at: Option<i64>,
}

#[derive(QueryableByName)]
struct SessionRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    user_id: String,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
}

/// The user's role and address, unless the user is disabled or gone.
fn active_user(
    conn: &mut SqliteConnection,
    tenant: &str,
    user: &str,
) -> Result<Option<(PortalRole, Email)>, TxError> {
    let rows: Vec<UserRow> = diesel::sql_query(format!(
        "SELECT {USER_COLUMNS} FROM portal_users WHERE tenant_id = ? AND user_id = ?"
    ))
    .bind::<Text, _>(tenant)
    .bind::<Text, _>(user)
    .load(conn)?;
    Ok(match rows.into_iter().next() {
        Some(r) if r.disabled_at.is_none() => Some((
            PortalRole::parse(&r.role).ok_or_else(|| corrupt("portal role"))?,
            Email::parse(&r.email).map_err(|_| corrupt("portal user email"))?,
        )),
        _ => None,
    })
}

fn load_users(
    conn: &mut SqliteConnection,
    filter: &str,
    binds: &[&str],
) -> Result<Vec<PortalUser>, TxError> {
    let mut query = diesel::sql_query(format!(
        "SELECT {USER_COLUMNS} FROM portal_users WHERE {filter}"
    ))
    .into_boxed();
    for b in binds {
        query = query.bind::<Text, _>(b.to_string());
    }
    let rows: Vec<UserRow> = query.load(conn)?;
    Ok(rows
        .into_iter()
        .map(UserRow::user)
        .collect::<Result<_, _>>()?)
}

#[async_trait]
impl PortalStore for Database {
    async fn create_user(&self, user: &PortalUser) -> Result<Option<PortalUser>, StoreError> {
        let u = user.clone();
        self.write(move |conn| {
            let n = diesel::sql_query(
                "INSERT INTO portal_users (tenant_id, user_id, email, role, created_at, \
                   created_by, disabled_at) VALUES (?, ?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (tenant_id, email) DO NOTHING",
            )
            .bind::<Text, _>(u.tenant_id.to_string())
            .bind::<Text, _>(u.id.to_string())
            .bind::<Text, _>(u.email.as_str())
            .bind::<Text, _>(u.role.as_str())
            .bind::<BigInt, _>(micros(u.created_at))
            .bind::<Nullable<Text>, _>(u.created_by.map(|c| c.to_string()))
            .bind::<Nullable<BigInt>, _>(u.disabled_at.map(micros))
            .execute(conn)?;
            if n == 0 {
                return Ok(None);
            }
            Ok(load_users(
                conn,
                "tenant_id = ? AND user_id = ?",
                &[&u.tenant_id.to_string(), &u.id.to_string()],
            )?
            .into_iter()
            .next())
        })
        .await
    }

    async fn users(&self, tenant: &TenantId) -> Result<Vec<PortalUser>, StoreError> {
        let tenant = tenant.to_string();
        self.read(move |conn| {
            load_users(
                conn,
                "tenant_id = ? ORDER BY created_at, user_id",
                &[&tenant],
            )
        })
        .await
    }

    async fn user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
    ) -> Result<Option<PortalUser>, StoreError> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| {
            Ok(
                load_users(conn, "tenant_id = ? AND user_id = ?", &[&tenant, &id])?
                    .into_iter()
                    .next(),
            )
        })
        .await
    }

    async fn active_users_by_email(&self, email: &Email) -> Result<Vec<PortalUser>, StoreError> {
        let email = email.as_str().to_owned();
        self.read(move |conn| {
            load_users(
                conn,
                "email = ? AND disabled_at IS NULL ORDER BY tenant_id, user_id",
                &[&email],
            )
        })
        .await
    }

    async fn record_link(
        &self,
        link: &SignInLink,
        max: u32,
        since: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let l = link.clone();
        self.write(move |conn| {
            let (tenant, user) = (l.tenant_id.to_string(), l.user_id.to_string());
            let recent: Count = diesel::sql_query(
                "SELECT COUNT(*) AS n FROM portal_links \
                 WHERE tenant_id = ? AND user_id = ? AND created_at > ?",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&user)
            .bind::<BigInt, _>(micros(since))
            .get_result(conn)?;
            if recent.n >= i64::from(max) {
                return Ok(false);
            }
            diesel::sql_query(
                "INSERT INTO portal_links (tenant_id, link_digest, user_id, binding_digest, \
                   created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Binary, _>(&l.digest.0)
            .bind::<Text, _>(&user)
            .bind::<Binary, _>(&l.binding.0)
            .bind::<BigInt, _>(micros(l.created_at))
            .bind::<BigInt, _>(micros(l.expires_at))
            .execute(conn)?;
            Ok(true)
        })
        .await
    }

    async fn redeem_link(
        &self,
        link: &TokenDigest,
        binding: &TokenDigest,
        session: &TokenDigest,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<Redemption, StoreError> {
        let (link, binding, session) = (link.clone(), binding.clone(), session.clone());
        self.write(move |conn| {
            let found: Vec<LinkRow> = diesel::sql_query(
                "SELECT tenant_id, user_id, binding_digest, expires_at, used_at \
                 FROM portal_links WHERE link_digest = ?",
            )
            .bind::<Binary, _>(&link.0)
            .load(conn)?;
            let Some(row) = found.into_iter().next() else {
                return Ok(Redemption::Unknown);
            };
            if row.binding_digest != binding.0 {
                return Ok(Redemption::Unknown);
            }
            let Some((role, email)) = active_user(conn, &row.tenant_id, &row.user_id)? else {
                return Ok(Redemption::Unknown);
            };
            if row.used_at.is_some() {
                return Ok(Redemption::Used);
            }
            if row.expires_at <= micros(now) {
                return Ok(Redemption::Expired);
            }
            diesel::sql_query(
                "UPDATE portal_links SET used_at = ? WHERE tenant_id = ? AND link_digest = ?",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<Text, _>(&row.tenant_id)
            .bind::<Binary, _>(&link.0)
            .execute(conn)?;
            diesel::sql_query(
                "INSERT INTO portal_sessions (tenant_id, session_digest, user_id, created_at, \
                   last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(&row.tenant_id)
            .bind::<Binary, _>(&session.0)
            .bind::<Text, _>(&row.user_id)
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(micros(now))
            .bind::<BigInt, _>(micros(expires_at))
            .execute(conn)?;
            Ok(Redemption::SignedIn(PortalSession {
                digest: session,
                tenant_id: parse_id(&row.tenant_id, "tenant id")?,
                user_id: parse_id(&row.user_id, "portal user id")?,
                role,
                email,
                created_at: time(micros(now))?,
                last_seen_at: time(micros(now))?,
                expires_at: time(micros(expires_at))?,
            }))
        })
        .await
    }

    async fn session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<Option<PortalSession>, StoreError> {
        let digest = digest.clone();
        self.write(move |conn| {
            let found: Vec<SessionRow> = diesel::sql_query(
                "UPDATE portal_sessions SET last_seen_at = ?1 \
                 WHERE session_digest = ?2 AND ended_at IS NULL AND expires_at > ?1 \
                   AND last_seen_at > ?3 \
                 RETURNING tenant_id, user_id, created_at, expires_at",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<Binary, _>(&digest.0)
            .bind::<BigInt, _>(micros(now - idle))
            .load(conn)?;
            let Some(row) = found.into_iter().next() else {
                return Ok(None);
            };
            let Some((role, email)) = active_user(conn, &row.tenant_id, &row.user_id)? else {
                return Ok(None);
            };
            Ok(Some(PortalSession {
                digest,
                tenant_id: parse_id(&row.tenant_id, "tenant id")?,
                user_id: parse_id(&row.user_id, "portal user id")?,
                role,
                email,
                created_at: time(row.created_at)?,
                last_seen_at: time(micros(now))?,
                expires_at: time(row.expires_at)?,
            }))
        })
        .await
    }

    async fn disable_user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
        at: DateTime<Utc>,
    ) -> Result<Option<PortalUser>, StoreError> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE portal_users SET disabled_at = ? \
                 WHERE tenant_id = ? AND user_id = ? AND disabled_at IS NULL",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            if n == 0 {
                return Ok(None);
            }
            diesel::sql_query(
                "UPDATE portal_sessions SET ended_at = ? \
                 WHERE tenant_id = ? AND user_id = ? AND ended_at IS NULL",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&id)
            .execute(conn)?;
            Ok(load_users(
                conn,
                "tenant_id = ? AND user_id = ?",
                &[tenant.as_str(), id.as_str()],
            )?
            .into_iter()
            .next())
        })
        .await
    }

    async fn end_session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let digest = digest.clone();
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE portal_sessions SET ended_at = ? \
                 WHERE session_digest = ? AND ended_at IS NULL",
            )
            .bind::<BigInt, _>(micros(now))
            .bind::<Binary, _>(&digest.0)
            .execute(conn)?;
            Ok(n > 0)
        })
        .await
    }
}
