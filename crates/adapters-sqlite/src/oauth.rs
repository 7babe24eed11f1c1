//! `OAuthStore` on SQLite, as on PostgreSQL: clients and pending requests in global tables,
//! connections beside their grants; each write one write transaction under the store's one
//! write lock, and a code used and a refresh family advanced by a conditional `UPDATE`.

use crate::convert::{corrupt, micros, parse_id, time, TxError};
use crate::grants::insert_grant_rows;
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{BigInt, Binary, Integer, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use diesel::QueryableByName;
use diesel::RunQueryDsl;
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
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    expires_at: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    fresh_until: Option<i64>,
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
            created_at: time(self.created_at)?,
            expires_at: self.expires_at.map(time).transpose()?,
            fresh_until: self.fresh_until.map(time).transpose()?,
        }
        .into_client()
    }
}

#[derive(QueryableByName)]
struct RequestRow {
    #[diesel(sql_type = Binary)]
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
    #[diesel(sql_type = Integer)]
    fresh_login: i32,
    #[diesel(sql_type = Text)]
    issuer: String,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    decided_at: Option<i64>,
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
    #[diesel(sql_type = Binary)]
    code_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    code_expires_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    code_used_at: Option<i64>,
    #[diesel(sql_type = Integer)]
    refresh_generation: i32,
    #[diesel(sql_type = Nullable<BigInt>)]
    refresh_rotated_at: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    refresh_expires_at: Option<i64>,
    #[diesel(sql_type = BigInt)]
    created_at: i64,
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
            code_expires_at: time(self.code_expires_at)?,
            code_used_at: self.code_used_at.map(time).transpose()?,
            refresh_generation: u32::try_from(self.refresh_generation)
                .map_err(|_| corrupt("refresh generation"))?,
            refresh_rotated_at: self.refresh_rotated_at.map(time).transpose()?,
            refresh_expires_at: self.refresh_expires_at.map(time).transpose()?,
            created_at: time(self.created_at)?,
        })
    }
}

fn load_client(
    conn: &mut SqliteConnection,
    filter: &str,
    value: &str,
) -> Result<Option<(OAuthClient, Option<SecretHash>)>, TxError> {
    let rows: Vec<ClientRow> = diesel::sql_query(format!(
        "SELECT {CLIENT_COLUMNS} FROM oauth_clients WHERE {filter} ORDER BY created_at DESC LIMIT 1"
    ))
    .bind::<Text, _>(value)
    .load(conn)?;
    Ok(rows
        .into_iter()
        .next()
        .map(ClientRow::into_domain)
        .transpose()?)
}

fn load_connections(
    conn: &mut SqliteConnection,
    filter: &str,
    binds: &[String],
) -> Result<Vec<Connection>, TxError> {
    let mut query = diesel::sql_query(format!(
        "SELECT {CONNECTION_COLUMNS} FROM oauth_connections WHERE {filter} \
         ORDER BY created_at DESC, grant_id DESC"
    ))
    .into_boxed();
    for b in binds {
        query = query.bind::<Text, _>(b.clone());
    }
    let rows: Vec<ConnectionRow> = query.load(conn)?;
    Ok(rows
        .into_iter()
        .map(ConnectionRow::into_domain)
        .collect::<Result<_, _>>()?)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct GrantIdRow {
    #[diesel(sql_type = Text)]
    grant_id: String,
}

#[async_trait]
impl OAuthStore for Database {
    async fn oauth_client(
        &self,
        client_id: &str,
    ) -> Result<Option<(OAuthClient, Option<SecretHash>)>, StoreError> {
        let id = client_id.to_owned();
        self.read(move |conn| load_client(conn, "client_id = ?", &id))
            .await
    }

    async fn register_oauth_client<'a>(
        &self,
        client: &OAuthClient,
        secret: Option<&'a SecretHash>,
        same_as: Option<&'a str>,
        ceiling: u32,
        now: DateTime<Utc>,
    ) -> Result<Registered, StoreError> {
        let (client, secret, same_as) = (
            client.clone(),
            secret.map(|s| s.0.clone()),
            same_as.map(str::to_owned),
        );
        self.write(move |conn| {
            diesel::sql_query(
                "DELETE FROM oauth_clients WHERE expires_at IS NOT NULL AND expires_at <= ?",
            )
            .bind::<BigInt, _>(micros(now))
            .execute(conn)?;
            if let Some(key) = &same_as {
                if let Some((existing, _)) = load_client(conn, "metadata_key = ?", key)? {
                    return Ok(Registered::Existing(existing));
                }
            }
            let unused: Vec<Count> = diesel::sql_query(
                "SELECT count(*) AS n FROM oauth_clients WHERE expires_at IS NOT NULL",
            )
            .load(conn)?;
            if <[Count]>::first(&unused).is_some_and(|c| c.n >= i64::from(ceiling)) {
                return Ok(Registered::CeilingReached);
            }
            diesel::sql_query(
                "INSERT INTO oauth_clients (client_id, registration, client_name, client_uri, \
                   redirect_uris, grant_types, auth_method, scope, secret_hash, metadata_key, \
                   created_at, expires_at, fresh_until) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            .bind::<BigInt, _>(micros(client.created_at))
            .bind::<Nullable<BigInt>, _>(client.expires_at.map(micros))
            .bind::<Nullable<BigInt>, _>(client.fresh_until.map(micros))
            .execute(conn)?;
            Ok(Registered::New(client))
        })
        .await
    }

    async fn put_document_client(&self, client: &OAuthClient) -> Result<(), StoreError> {
        let client = client.clone();
        self.write(move |conn| {
            diesel::sql_query(
                "INSERT INTO oauth_clients (client_id, registration, client_name, client_uri, \
                   redirect_uris, grant_types, auth_method, scope, secret_hash, metadata_key, \
                   created_at, expires_at, fresh_until) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, ?) \
                 ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, \
                   client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris, \
                   grant_types = excluded.grant_types, auth_method = excluded.auth_method, \
                   scope = excluded.scope, fresh_until = excluded.fresh_until \
                 WHERE oauth_clients.registration = 'metadata_document'",
            )
            .bind::<Text, _>(&client.client_id)
            .bind::<Text, _>(client.registration.as_str())
            .bind::<Text, _>(&client.name)
            .bind::<Nullable<Text>, _>(client.client_uri.as_deref())
            .bind::<Text, _>(redirect_uris_to_text(&client))
            .bind::<Text, _>(grant_types_to_text(&client))
            .bind::<Text, _>(client.auth_method.as_str())
            .bind::<Nullable<Text>, _>(client.scope.as_deref())
            .bind::<BigInt, _>(micros(client.created_at))
            .bind::<Nullable<BigInt>, _>(client.fresh_until.map(micros))
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn insert_authorization(&self, p: &PendingAuthorization) -> Result<(), StoreError> {
        let p = p.clone();
        self.write(move |conn| {
            diesel::sql_query("DELETE FROM oauth_authorizations WHERE expires_at < ?")
                .bind::<BigInt, _>(micros(p.created_at - chrono::Duration::days(1)))
                .execute(conn)?;
            let r = &p.request;
            diesel::sql_query(
                "INSERT INTO oauth_authorizations (request_digest, client_id, redirect_uri, \
                   state, code_challenge, resource, scopes, fresh_login, issuer, created_at, \
                   expires_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            )
            .bind::<Binary, _>(&p.digest.0)
            .bind::<Text, _>(&r.client_id)
            .bind::<Text, _>(&r.redirect_uri)
            .bind::<Nullable<Text>, _>(r.state.as_deref())
            .bind::<Text, _>(&r.code_challenge)
            .bind::<Text, _>(&r.resource)
            .bind::<Text, _>(r.scopes.to_string())
            .bind::<Integer, _>(i32::from(r.fresh_login))
            .bind::<Text, _>(&p.issuer)
            .bind::<BigInt, _>(micros(p.created_at))
            .bind::<BigInt, _>(micros(p.expires_at))
            .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn authorization(
        &self,
        digest: &TokenDigest,
    ) -> Result<Option<PendingAuthorization>, StoreError> {
        let digest = digest.0.clone();
        self.read(move |conn| {
            let rows: Vec<RequestRow> = diesel::sql_query(
                "SELECT request_digest, client_id, redirect_uri, state, code_challenge, \
                   resource, scopes, fresh_login, issuer, created_at, expires_at, decided_at \
                 FROM oauth_authorizations WHERE request_digest = ?",
            )
            .bind::<Binary, _>(&digest)
            .load(conn)?;
            let found = rows
                .into_iter()
                .next()
                .map(|r| -> Result<PendingAuthorization, StoreError> {
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
                            fresh_login: r.fresh_login != 0,
                        },
                        issuer: r.issuer,
                        created_at: time(r.created_at)?,
                        expires_at: time(r.expires_at)?,
                        decided_at: r.decided_at.map(time).transpose()?,
                    })
                })
                .transpose()?;
            Ok(found)
        })
        .await
    }

    async fn decide_authorization(
        &self,
        digest: &TokenDigest,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let digest = digest.0.clone();
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE oauth_authorizations SET decided_at = ? \
                 WHERE request_digest = ? AND decided_at IS NULL",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<Binary, _>(&digest)
            .execute(conn)?;
            Ok(n == 1)
        })
        .await
    }

    async fn insert_connection(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
        c: &Connection,
    ) -> Result<Vec<GrantId>, StoreError> {
        let (grant, hash, c) = (grant.clone(), secret_hash.clone(), c.clone());
        self.write(move |conn| {
            insert_grant_rows(conn, &grant, &hash)?;
            let tenant = c.tenant_id.to_string();
            // The same person's earlier connections of the same client at this tenant: this
            // one replaces them.
            let superseded: Vec<GrantIdRow> = diesel::sql_query(
                "UPDATE grants SET revoked_at = ?1, updated_at = ?1 \
                 WHERE tenant_id = ?2 AND revoked_at IS NULL AND grant_id IN \
                   (SELECT grant_id FROM oauth_connections \
                    WHERE tenant_id = ?2 AND consented_by = ?3 AND client_id = ?4) \
                 RETURNING grant_id",
            )
            .bind::<BigInt, _>(micros(c.created_at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(c.consented_by.to_string())
            .bind::<Text, _>(&c.client_id)
            .load(conn)?;
            diesel::sql_query(
                "INSERT INTO oauth_connections (tenant_id, grant_id, client_id, client_name, \
                   consented_by, resource, redirect_uri, code_challenge, code_digest, \
                   code_expires_at, code_used_at, refresh_generation, refresh_rotated_at, \
                   refresh_expires_at, created_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, NULL, NULL, ?)",
            )
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(c.grant_id.to_string())
            .bind::<Text, _>(&c.client_id)
            .bind::<Text, _>(&c.client_name)
            .bind::<Text, _>(c.consented_by.to_string())
            .bind::<Text, _>(&c.resource)
            .bind::<Text, _>(&c.redirect_uri)
            .bind::<Text, _>(&c.code_challenge)
            .bind::<Binary, _>(&c.code_digest.0)
            .bind::<BigInt, _>(micros(c.code_expires_at))
            .bind::<BigInt, _>(micros(c.created_at))
            .execute(conn)?;
            diesel::sql_query(
                "UPDATE oauth_clients SET expires_at = NULL \
                 WHERE client_id = ? AND expires_at IS NOT NULL",
            )
            .bind::<Text, _>(&c.client_id)
            .execute(conn)?;
            Ok(superseded
                .into_iter()
                .map(|s| parse_id(&s.grant_id, "grant id"))
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn connection(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<Connection>, StoreError> {
        let binds = vec![tenant.to_string(), grant.to_string()];
        self.read(move |conn| {
            Ok(
                load_connections(conn, "tenant_id = ? AND grant_id = ?", &binds)?
                    .into_iter()
                    .next(),
            )
        })
        .await
    }

    async fn connections(&self, tenant: &TenantId) -> Result<Vec<Connection>, StoreError> {
        let binds = vec![tenant.to_string()];
        self.read(move |conn| load_connections(conn, "tenant_id = ?", &binds))
            .await
    }

    async fn use_code(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        at: DateTime<Utc>,
        refresh_expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let (tenant, grant) = (tenant.to_string(), grant.to_string());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE oauth_connections SET code_used_at = ?, refresh_generation = 1, \
                   refresh_rotated_at = NULL, refresh_expires_at = ? \
                 WHERE tenant_id = ? AND grant_id = ? AND code_used_at IS NULL",
            )
            .bind::<BigInt, _>(micros(at))
            .bind::<BigInt, _>(micros(refresh_expires_at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .execute(conn)?;
            Ok(n == 1)
        })
        .await
    }

    async fn advance_refresh(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        from: u32,
        at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let from = i64::from(from);
        let (tenant, grant) = (tenant.to_string(), grant.to_string());
        self.write(move |conn| {
            let n = diesel::sql_query(
                "UPDATE oauth_connections SET refresh_generation = ?1 + 1, \
                   refresh_rotated_at = ?2, refresh_expires_at = ?3 \
                 WHERE tenant_id = ?4 AND grant_id = ?5 AND refresh_generation = ?1",
            )
            .bind::<BigInt, _>(from)
            .bind::<BigInt, _>(micros(at))
            .bind::<BigInt, _>(micros(expires_at))
            .bind::<Text, _>(&tenant)
            .bind::<Text, _>(&grant)
            .execute(conn)?;
            Ok(n == 1)
        })
        .await
    }
}
