//! Ports of the portal: its users, links and sessions; the making and digesting of tokens;
//! and the mail a link goes out by.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::error::StoreError;
use crate::ids::{PortalUserId, TenantId};
use crate::portal::sign_in::{PortalSession, Redemption, SignInLink, TokenDigest, TokenKind};
use crate::portal::user::{Email, PortalUser};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Portal users, sign-in links and sessions.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PortalStore: Send + Sync {
    /// Stores a new user. Answers `None` (and writes nothing) when the tenant has a user with
    /// that address, checked atomically with the write.
    async fn create_user(&self, user: &PortalUser) -> Result<Option<PortalUser>, StoreError>;

    /// The tenant's users, oldest first.
    async fn users(&self, tenant: &TenantId) -> Result<Vec<PortalUser>, StoreError>;

    async fn user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
    ) -> Result<Option<PortalUser>, StoreError>;

    /// The active users with this address, at every tenant (the one read of the portal that
    /// crosses tenants: a sign-in names an address, not a tenant).
    async fn active_users_by_email(&self, email: &Email) -> Result<Vec<PortalUser>, StoreError>;

    /// Stores a link unless its user has been sent `max` links since `since` (counted
    /// atomically with the write); false when it was not stored.
    async fn record_link(
        &self,
        link: &SignInLink,
        max: u32,
        since: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Redeems the link with digest `link` for the browser whose binding has digest `binding`,
    /// in one transaction: a link not found, asked for by another binding, or whose user is no
    /// longer active is `Unknown`; one redeemed before is `Used`; one past its expiry at `now`
    /// is `Expired`; otherwise it is marked used and a session with digest `session` opened for
    /// its user (at `now`, ending at `expires_at`). Of two redemptions racing, one signs in.
    async fn redeem_link(
        &self,
        link: &TokenDigest,
        binding: &TokenDigest,
        session: &TokenDigest,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<Redemption, StoreError>;

    /// The session with this digest when it is live at `now` (not ended, not past its expiry,
    /// not idle for `idle` or more, its user active), its use recorded at `now`.
    async fn session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<Option<PortalSession>, StoreError>;

    /// Disables an active user of the tenant at `at` and ends their open sessions, in one
    /// transaction: the user as disabled, or `None` when the tenant has no such active user.
    async fn disable_user(
        &self,
        tenant: &TenantId,
        id: &PortalUserId,
        at: DateTime<Utc>,
    ) -> Result<Option<PortalUser>, StoreError>;

    /// Ends the session (sign-out); false when it was not open.
    async fn end_session(
        &self,
        digest: &TokenDigest,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

/// Tokens: made from a secure random source, digested (SHA-256) for the store, and a
/// session's CSRF token derived under the service's key.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait PortalSecrets: Send + Sync {
    fn new_token(&self, kind: TokenKind) -> String;
    fn digest(&self, token: &str) -> TokenDigest;
    /// The CSRF token of a session: the same for the session's life, useless without it.
    fn csrf_token(&self, session_token: &str) -> String;
}

/// A mail to send.
#[derive(Clone, Debug, PartialEq)]
pub struct Mail {
    pub to: Email,
    pub subject: String,
    pub text: String,
}

/// A mail could not be handed over.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    /// The deployment has no mail transport.
    #[error("mail not sent: no mail transport is configured")]
    NoTransport,
    /// The transport failed (the detail names its kind, never the recipient).
    #[error("mail not sent: {0}")]
    Failed(String),
}

/// Where mail goes out: SMTP in production, the sandbox's mailbox in the demo and tests.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    async fn send(&self, mail: &Mail) -> Result<(), MailError>;
}
