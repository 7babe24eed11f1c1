//! `OAuthStore` on PostgreSQL: clients and pending requests in global tables, connections
//! beside their grants. A code is used and a refresh family advanced by one conditional
//! `UPDATE` each (compare-and-set), so of two racing requests one wins.

use crate::convert::{backend, corrupt, parse_id, TxError};
use crate::grants::insert_grant_rows;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{Bool, Bytea, Integer, Nullable, Text, Timestamptz};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::access::grant::{Grant, SecretHash};
use domain::access::scope::ScopeSet;
use domain::error::StoreError;
use domain::ids::{GrantId, TenantId};
use domain::oauth::authorization::{CheckedRequest, PendingAuthorization};
use domain::oauth::client::OAuthClient;
use domain::oauth::connection::Connection;
use domain::oauth::ports::{OAuthStore, Registered};
use domain::portal::sign_in::TokenDigest;
use storage_codec::oauth::{grant_types_to_text, redirect_uris_to_text, ClientColumns};

const CLIENT_COLUMNS: &str = "client_id, registration, client_name, client_uri, redirect_uris, \
     grant_types, auth_method, scope, secret_hash, created_at, expires_at, fresh_until";

#[derive(QueryableByName)]
struct ClientRow {
    #[diesel(sql_type = Text)]
    client_id: String,
    #[diesel(sql_type = Text)]
    registration: String,
    #[diesel(sql_type = Text)]
    client_name: String,
    #[diesel(sql_type = Nullable<Text>)]
    client_uri: Option<String>,
    #[diesel(sql_type = Text)]
    redirect_uris: String,
    #[diesel(sql_type = Text)]
    grant_types: String,
    #[diesel(sql_type = Text)]
    auth_method: String,
    #[diesel(sql_type = Nullable<Text>)]
    scope: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    secret_hash: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    expires_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    fresh_until: Option<DateTime<Utc>>,
}

impl ClientRow {
    fn into_domain(self) -> Result<(OAuthClient, Option<SecretHash>), StoreError> {
        ClientColumns {
            client_id: self.client_id,
            registration: self.registration,
            client_name: self.client_name,
            client_uri: self.client_uri,
            redirect_uris: self.redirect_uris,
            grant_types: self.grant_types,
            auth_method: self.auth_method,
            scope: self.scope,
            secret_hash: self.secret_hash,
            created_at: self.created_at,
            expires_at: self.expires_at,
            fresh_until: self.fresh_until,
        }
        .into_client()
    }
}

#[derive(QueryableByName)]
struct RequestRow {
    #[diesel(sql_type = Bytea)]
    request_digest: Vec<u8>,
    #[diesel(sql_type = Text)]
    client_id: String,
    #[diesel(sql_type = Text)]
    redirect_uri: String,
    #[diesel(sql_type = Nullable<Text>)]
    state: Option<String>,
    #[diesel(sql_type = Text)]
    code_challenge: String,
    #[diesel(sql_type = Text)]
    resource: String,
    #[diesel(sql_type = Text)]
    scopes: String,
    #[diesel(sql_type = Bool)]
    fresh_login: bool,
    #[diesel(sql_type = Text)]
    issuer: String,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    expires_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    decided_at: Option<DateTime<Utc>>,
}

const CONNECTION_COLUMNS: &str = "tenant_id, grant_id, client_id, client_name, consented_by, \
     resource, redirect_uri, code_challenge, code_digest, code_expires_at, code_used_at, \
     refresh_generation, refresh_rotated_at, refresh_expires_at, created_at";

#[derive(QueryableByName)]
struct ConnectionRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    grant_id: String,
    #[diesel(sql_type = Text)]
    client_id: String,
    #[diesel(sql_type = Text)]
    client_name: String,
    #[diesel(sql_type = Text)]
    consented_by: String,
    #[diesel(sql_type = Text)]
    resource: String,
    #[diesel(sql_type = Text)]
    redirect_uri: String,
    #[diesel(sql_type = Text)]
    code_challenge: String,
    #[diesel(sql_type = Bytea)]
    code_digest: Vec<u8>,
    #[diesel(sql_type = Timestamptz)]
    code_expires_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    code_used_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Integer)]
    refresh_generation: i32,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    refresh_rotated_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    refresh_expires_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

impl ConnectionRow {
    fn into_domain(self) -> Result<Connection, StoreError> {
        Ok(Connection {
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            grant_id: parse_id(&self.grant_id, "grant id")?,
            client_id: self.client_id,
            client_name: self.client_name,
            consented_by: parse_id(&self.consented_by, "portal user id")?,
            resource: self.resource,
            redirect_uri: self.redirect_uri,
            code_challenge: self.code_challenge,
            code_digest: TokenDigest(self.code_digest),
            code_expires_at: self.code_expires_at,
            code_used_at: self.code_used_at,
            refresh_generation: u32::try_from(self.refresh_generation)
                .map_err(|_| corrupt("refresh generation"))?,
            refresh_rotated_at: self.refresh_rotated_at,
            refresh_expires_at: self.refresh_expires_at,
            created_at: self.created_at,
        })
    }
}

#[async_trait]
impl OAuthStore for Database {
    async fn oauth_client(
        &self,
        client_id: &str,
    ) -> Result<Option<(OAuthClient, Option<SecretHash>)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<ClientRow> = diesel::sql_query(format!(
            "SELECT {CLIENT_COLUMNS} FROM oauth_clients WHERE client_id = $1"
        ))
        .bind::<Text, _>(client_id)
        .load(&mut conn)
        .await
        .map_err(backend)?;
        rows.into_iter()
            .next()
            .map(ClientRow::into_domain)
            .transpose()
    }

    async fn register_oauth_client<'a>(
        &self,
        client: &OAuthClient,
        secret: Option<&'a SecretHash>,
        same_as: Option<&'a str>,
        ceiling: u32,
        now: DateTime<Utc>,
    ) -> Result<Registered, StoreError> {
        let mut conn = self.conn().await?;
        let (client, secret, same_as) = (
            client.clone(),
            secret.map(|s| s.0.clone()),
            same_as.map(str::to_owned),
        );
        conn.transaction(async |conn| -> Result<Registered, TxError> {
            // One registration at a time: the ceiling and the same-metadata answer are read
            // and written under this lock.
            diesel::sql_query("LOCK TABLE oauth_clients IN SHARE ROW EXCLUSIVE MODE")
                .execute(conn)
                .await?;
            diesel::sql_query(
                "DELETE FROM oauth_clients WHERE expires_at IS NOT NULL AND expires_at <= $1",
            )
            .bind::<Timestamptz, _>(now)
            .execute(conn)
            .await?;
            if let Some(key) = &same_as {
                let rows: Vec<ClientRow> = diesel::sql_query(format!(
                    "SELECT {CLIENT_COLUMNS} FROM oauth_clients WHERE metadata_key = $1 \
                     ORDER BY created_at DESC LIMIT 1"
                ))
                .bind::<Text, _>(key)
                .load(conn)
                .await?;
                if let Some(row) = rows.into_iter().next() {
                    return Ok(Registered::Existing(row.into_domain()?.0));
                }
            }
            #[derive(QueryableByName)]
            struct Count {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            let unused: Vec<Count> = diesel::sql_query(
                "SELECT count(*) AS n FROM oauth_clients WHERE expires_at IS NOT NULL",
            )
            .load(conn)
            .await?;
            if <[Count]>::first(&unused).is_some_and(|c| c.n >= i64::from(ceiling)) {
                return Ok(Registered::CeilingReached);
            }
            diesel::sql_query(
                "INSERT INTO oauth_clients (client_id, registration, client_name, client_uri, \
                   redirect_uris, grant_types, auth_method, scope, secret_hash, metadata_key, \
                   created_at, expires_at, fresh_until) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind::<Text, _>(&client.client_id)
            .bind::<Text, _>(client.registration.as_str())
            .bind::<Text, _>(&client.name)
            .bind::<Nullable<Text>, _>(client.client_uri.as_deref())
            .bind::<Text, _>(redirect_uris_to_text(&client))
            .bind::<Text, _>(grant_types_to_text(&client))
            .bind::<Text, _>(client.auth_method.as_str())
            .bind::<Nullable<Text>, _>(client.scope.as_deref())
            .bind::<Nullable<Text>, _>(secret.as_deref())
            .bind::<Nullable<Text>, _>(same_as.as_deref())
            .bind::<Timestamptz, _>(client.created_at)
            .bind::<Nullable<Timestamptz>, _>(client.expires_at)
            .bind::<Nullable<Timestamptz>, _>(client.fresh_until)
            .execute(conn)
            .await?;
            Ok(Registered::New(client.clone()))
        })
        .await
        .map_err(StoreError::from)
    }

    async fn put_document_client(&self, client: &OAuthClient) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::sql_query(
            "INSERT INTO oauth_clients (client_id, registration, client_name, client_uri, \
               redirect_uris, grant_types, auth_method, scope, secret_hash, metadata_key, \
               created_at, expires_at, fresh_until) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, $9, NULL, $10) \
             ON CONFLICT (client_id) DO UPDATE SET client_name = EXCLUDED.client_name, \
               client_uri = EXCLUDED.client_uri, redirect_uris = EXCLUDED.redirect_uris, \
               grant_types = EXCLUDED.grant_types, auth_method = EXCLUDED.auth_method, \
               scope = EXCLUDED.scope, fresh_until = EXCLUDED.fresh_until \
             WHERE oauth_clients.registration = 'metadata_document'",
        )
        .bind::<Text, _>(&client.client_id)
        .bind::<Text, _>(client.registration.as_str())
        .bind::<Text, _>(&client.name)
        .bind::<Nullable<Text>, _>(client.client_uri.as_deref())
        .bind::<Text, _>(redirect_uris_to_text(client))
        .bind::<Text, _>(grant_types_to_text(client))
        .bind::<Text, _>(client.auth_method.as_str())
        .bind::<Nullable<Text>, _>(client.scope.as_deref())
        .bind::<Timestamptz, _>(client.created_at)
        .bind::<Nullable<Timestamptz>, _>(client.fresh_until)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn insert_authorization(&self, p: &PendingAuthorization) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        // Requests a day past their expiry go with each new one: the table holds about a
        // day's requests.
        diesel::sql_query(
            "DELETE FROM oauth_authorizations WHERE expires_at < $1 - interval '1 day'",
        )
        .bind::<Timestamptz, _>(p.created_at)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        let r = &p.request;
        diesel::sql_query(
            "INSERT INTO oauth_authorizations (request_digest, client_id, redirect_uri, state, \
               code_challenge, resource, scopes, fresh_login, issuer, created_at, expires_at, \
               decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)",
        )
        .bind::<Bytea, _>(&p.digest.0)
        .bind::<Text, _>(&r.client_id)
        .bind::<Text, _>(&r.redirect_uri)
        .bind::<Nullable<Text>, _>(r.state.as_deref())
        .bind::<Text, _>(&r.code_challenge)
        .bind::<Text, _>(&r.resource)
        .bind::<Text, _>(r.scopes.to_string())
        .bind::<Bool, _>(r.fresh_login)
        .bind::<Text, _>(&p.issuer)
        .bind::<Timestamptz, _>(p.created_at)
        .bind::<Timestamptz, _>(p.expires_at)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn authorization(
        &self,
        digest: &TokenDigest,
    ) -> Result<Option<PendingAuthorization>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<RequestRow> = diesel::sql_query(
            "SELECT request_digest, client_id, redirect_uri, state, code_challenge, resource, \
               scopes, fresh_login, issuer, created_at, expires_at, decided_at \
             FROM oauth_authorizations WHERE request_digest = $1",
        )
        .bind::<Bytea, _>(&digest.0)
        .load(&mut conn)
        .await
        .map_err(backend)?;
        rows.into_iter()
            .next()
            .map(|r| {
                Ok(PendingAuthorization {
                    digest: TokenDigest(r.request_digest),
                    request: CheckedRequest {
                        client_id: r.client_id,
                        redirect_uri: r.redirect_uri,
                        state: r.state,
                        code_challenge: r.code_challenge,
                        resource: r.resource,
                        scopes: ScopeSet::parse_list(&r.scopes)
                            .map_err(|_| corrupt("requested scopes"))?,
                        fresh_login: r.fresh_login,
                    },
                    issuer: r.issuer,
                    created_at: r.created_at,
                    expires_at: r.expires_at,
                    decided_at: r.decided_at,
                })
            })
            .transpose()
    }

    async fn decide_authorization(
        &self,
        digest: &TokenDigest,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::sql_query(
            "UPDATE oauth_authorizations SET decided_at = $2 \
             WHERE request_digest = $1 AND decided_at IS NULL",
        )
        .bind::<Bytea, _>(&digest.0)
        .bind::<Timestamptz, _>(at)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n == 1)
    }

    async fn insert_connection(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
        c: &Connection,
    ) -> Result<Vec<GrantId>, StoreError> {
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| -> Result<Vec<GrantId>, TxError> {
            insert_grant_rows(conn, grant, secret_hash).await?;
            let tenant = c.tenant_id.to_string();
            #[derive(QueryableByName)]
            struct Superseded {
                #[diesel(sql_type = Text)]
                grant_id: String,
            }
            // The same person's earlier connections of the same client at this tenant: this
            // one replaces them.
            let superseded: Vec<Superseded> = diesel::sql_query(
                "UPDATE grants g SET revoked_at = $4, updated_at = $4 \
                 FROM oauth_connections c \
                 WHERE c.tenant_id = $1 AND c.consented_by = $2 AND c.client_id = $3 \
                   AND g.tenant_id = c.tenant_id AND g.grant_id = c.grant_id \
                   AND g.revoked_at IS NULL \
                 RETURNING g.grant_id",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(c.consented_by.to_string())
            .bind::<Text, _>(&c.client_id)
            .bind::<Timestamptz, _>(c.created_at)
            .load(conn)
            .await?;
            diesel::sql_query(
                "INSERT INTO oauth_connections (tenant_id, grant_id, client_id, client_name, \
                   consented_by, resource, redirect_uri, code_challenge, code_digest, \
                   code_expires_at, code_used_at, refresh_generation, refresh_rotated_at, \
                   refresh_expires_at, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, 0, NULL, NULL, $11)",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(c.grant_id.to_string())
            .bind::<Text, _>(&c.client_id)
            .bind::<Text, _>(&c.client_name)
            .bind::<Text, _>(c.consented_by.to_string())
            .bind::<Text, _>(&c.resource)
            .bind::<Text, _>(&c.redirect_uri)
            .bind::<Text, _>(&c.code_challenge)
            .bind::<Bytea, _>(&c.code_digest.0)
            .bind::<Timestamptz, _>(c.code_expires_at)
            .bind::<Timestamptz, _>(c.created_at)
            .execute(conn)
            .await?;
            diesel::sql_query(
                "UPDATE oauth_clients SET expires_at = NULL \
                 WHERE client_id = $1 AND expires_at IS NOT NULL",
            )
            .bind::<Text, _>(&c.client_id)
            .execute(conn)
            .await?;
            superseded
                .into_iter()
                .map(|s| parse_id(&s.grant_id, "grant id").map_err(TxError))
                .collect()
        })
        .await
        .map_err(StoreError::from)
    }

    async fn connection(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<Connection>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<ConnectionRow> = diesel::sql_query(format!(
            "SELECT {CONNECTION_COLUMNS} FROM oauth_connections \
             WHERE tenant_id = $1 AND grant_id = $2"
        ))
        .bind::<Text, _>(tenant.to_string())
        .bind::<Text, _>(grant.to_string())
        .load(&mut conn)
        .await
        .map_err(backend)?;
        rows.into_iter()
            .next()
            .map(ConnectionRow::into_domain)
            .transpose()
    }

    async fn connections(&self, tenant: &TenantId) -> Result<Vec<Connection>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<ConnectionRow> = diesel::sql_query(format!(
            "SELECT {CONNECTION_COLUMNS} FROM oauth_connections \
             WHERE tenant_id = $1 ORDER BY created_at DESC, grant_id DESC"
        ))
        .bind::<Text, _>(tenant.to_string())
        .load(&mut conn)
        .await
        .map_err(backend)?;
        rows.into_iter().map(ConnectionRow::into_domain).collect()
    }

    async fn use_code(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        at: DateTime<Utc>,
        refresh_expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::sql_query(
            "UPDATE oauth_connections SET code_used_at = $3, refresh_generation = 1, \
               refresh_rotated_at = NULL, refresh_expires_at = $4 \
             WHERE tenant_id = $1 AND grant_id = $2 AND code_used_at IS NULL",
        )
        .bind::<Text, _>(tenant.to_string())
        .bind::<Text, _>(grant.to_string())
        .bind::<Timestamptz, _>(at)
        .bind::<Timestamptz, _>(refresh_expires_at)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n == 1)
    }

    async fn advance_refresh(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        from: u32,
        at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let from = i32::try_from(from).map_err(|_| corrupt("refresh generation"))?;
        let mut conn = self.conn().await?;
        let n = diesel::sql_query(
            "UPDATE oauth_connections SET refresh_generation = $3 + 1, \
               refresh_rotated_at = $4, refresh_expires_at = $5 \
             WHERE tenant_id = $1 AND grant_id = $2 AND refresh_generation = $3",
        )
        .bind::<Text, _>(tenant.to_string())
        .bind::<Text, _>(grant.to_string())
        .bind::<Integer, _>(from)
        .bind::<Timestamptz, _>(at)
        .bind::<Timestamptz, _>(expires_at)
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n == 1)
    }
}
