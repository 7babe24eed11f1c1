//! Ports of agent connections: the clients, the requests waiting for a person, the
//! connections their consent made; the metadata documents clients publish; and the flow's
//! secrets (request ids, codes, PKCE, refresh tokens).

use crate::access::grant::{Grant, SecretHash};
use crate::error::StoreError;
use crate::ids::{GrantId, TenantId};
use crate::oauth::authorization::PendingAuthorization;
use crate::oauth::client::OAuthClient;
use crate::oauth::connection::Connection;
use crate::oauth::registration::ClientMetadata;
use crate::portal::sign_in::TokenDigest;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};

/// What registering a dynamic client came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Registered {
    /// A new client.
    New(OAuthClient),
    /// A public client with the same metadata, still live: its id is answered again.
    Existing(OAuthClient),
    /// [`crate::oauth::registration::UNUSED_REGISTRATION_CEILING`] unused registrations are
    /// live already.
    CeilingReached,
}

/// Clients, pending requests and connections. Clients and requests are global (no tenant is
/// known before a person decides); a connection is its tenant's, beside its grant.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OAuthStore: Send + Sync {
    /// The client with this id, and its secret hash when it holds one.
    async fn oauth_client(
        &self,
        client_id: &str,
    ) -> Result<Option<(OAuthClient, Option<SecretHash>)>, StoreError>;

    /// Registers a dynamic client, in one transaction: unused registrations past their
    /// `expires_at` are deleted first; when `same_as` is given (a public client) and a live
    /// client has that metadata key, it is answered instead; when `ceiling` unused
    /// registrations are live, nothing is written.
    async fn register_oauth_client<'a>(
        &self,
        client: &OAuthClient,
        secret: Option<&'a SecretHash>,
        same_as: Option<&'a str>,
        ceiling: u32,
        now: DateTime<Utc>,
    ) -> Result<Registered, StoreError>;

    /// Stores a client read from its metadata document, replacing what was read before.
    async fn put_document_client(&self, client: &OAuthClient) -> Result<(), StoreError>;

    async fn insert_authorization(&self, pending: &PendingAuthorization) -> Result<(), StoreError>;

    async fn authorization(
        &self,
        digest: &TokenDigest,
    ) -> Result<Option<PendingAuthorization>, StoreError>;

    /// Marks the request decided at `at`; false when it was decided already.
    async fn decide_authorization(
        &self,
        digest: &TokenDigest,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Inserts the consent's grant (with `secret_hash`, which no secret matches, in the
    /// credential directory) and its connection, and marks the client used (a dynamic
    /// registration no longer lapses), in one transaction. Connections the same person made
    /// for the same client at the same tenant before are revoked with it: their grant ids are
    /// answered.
    ///
    /// # Errors
    /// `GrantsOutsideCountries` as `GrantStore::insert_grant`.
    async fn insert_connection(
        &self,
        grant: &Grant,
        secret_hash: &SecretHash,
        connection: &Connection,
    ) -> Result<Vec<GrantId>, StoreError>;

    async fn connection(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<Connection>, StoreError>;

    /// The tenant's connections, newest first.
    async fn connections(&self, tenant: &TenantId) -> Result<Vec<Connection>, StoreError>;

    /// Marks the connection's code used at `at` and starts its refresh family at generation
    /// 1, lapsing at `refresh_expires_at`; false when the code was used already.
    async fn use_code(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        at: DateTime<Utc>,
        refresh_expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Moves the refresh family from generation `from` to `from + 1` at `at` (lapsing at
    /// `expires_at`) if `from` is still current; false when another request moved it first.
    async fn advance_refresh(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        from: u32,
        at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

/// Reads Client ID Metadata Documents: https only, no redirects, a size cap, and only from
/// addresses outside private networks (the webhook sender's rule).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ClientDocuments: Send + Sync {
    /// The document at `url` and how long it may be cached (`Cache-Control: max-age`).
    /// `Err` says why it could not be read, for the person who sees the refusal.
    async fn fetch(&self, url: &str) -> Result<(ClientMetadata, Option<Duration>), String>;
}

/// The flow's secrets.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait OAuthSecrets: Send + Sync {
    /// A pending request's id (`ar_` and 43 random base64url characters).
    fn new_request_id(&self) -> String;
    /// A new authorization code naming its connection.
    fn new_code(&self, tenant: &TenantId, grant: &GrantId) -> String;
    /// The connection a code names, if it has a code's shape.
    fn code_names(&self, code: &str) -> Option<(TenantId, GrantId)>;
    /// SHA-256 of a request id or code: what the store keeps.
    fn digest(&self, token: &str) -> TokenDigest;
    /// The S256 challenge of a PKCE verifier (base64url SHA-256, RFC 7636 §4.2).
    fn s256(&self, verifier: &str) -> String;
    /// The refresh token of generation `generation` of a connection's family: the same
    /// arguments give the same token (so a retired one can answer its successor again).
    fn refresh_token(&self, tenant: &TenantId, grant: &GrantId, generation: u32) -> String;
    /// The connection and generation a refresh token names, if this service made it.
    fn read_refresh_token(&self, token: &str) -> Option<(TenantId, GrantId, u32)>;
}
