//! A connection: what a person's consent made. It is an ordinary grant of the tenant (its
//! scopes, countries and revocation are the grant's: no second permission model), owned by
//! the tenant, bound to one OAuth client; beside it, the one authorization code the consent
//! issued and the family of refresh tokens that code started.
//!
//! Refresh tokens rotate: each use answers the next generation and retires the one used. A
//! client that races two refreshes with the same token gets the same successor again for
//! [`REFRESH_GRACE`]; after that, a retired token presented again means it leaked, and the
//! whole connection is revoked (every access and refresh token it minted stops at once).

use crate::ids::{GrantId, PortalUserId, TenantId};
use crate::portal::sign_in::TokenDigest;
use chrono::{DateTime, Duration, Utc};

/// How long an authorization code may wait to be redeemed.
pub const CODE_LIFETIME: Duration = Duration::minutes(5);
/// A refresh token unused this long stops working (each rotation starts it again).
pub const REFRESH_IDLE: Duration = Duration::days(30);
/// How long a retired refresh token still answers the successor it was rotated to.
pub const REFRESH_GRACE: Duration = Duration::seconds(30);
/// A connection's grant expires this long after the consent; the person connects again.
pub const CONNECTION_LIFETIME: Duration = Duration::days(90);

/// A connection as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    pub tenant_id: TenantId,
    pub grant_id: GrantId,
    pub client_id: String,
    /// The client's name when the person consented.
    pub client_name: String,
    pub consented_by: PortalUserId,
    /// The resource its tokens are minted for (their audience).
    pub resource: String,
    /// Where the code was sent: the token request must name it again.
    pub redirect_uri: String,
    pub code_challenge: String,
    pub code_digest: TokenDigest,
    pub code_expires_at: DateTime<Utc>,
    pub code_used_at: Option<DateTime<Utc>>,
    /// The refresh token now current (0 until the code is redeemed).
    pub refresh_generation: u32,
    pub refresh_rotated_at: Option<DateTime<Utc>>,
    pub refresh_expires_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// What presenting a refresh token of generation `presented` comes to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefreshVerdict {
    /// The current token: rotate to the next.
    Rotate,
    /// The token just retired, within the grace: answer the current one again.
    Replay,
    /// A retired token past the grace, or one never issued: revoke the connection.
    Reused,
    /// The family has lapsed (idle too long, or never started).
    Lapsed,
}

impl Connection {
    pub fn judge_refresh(&self, presented: u32, now: DateTime<Utc>) -> RefreshVerdict {
        let current = self.refresh_generation;
        if current == 0 || self.refresh_expires_at.is_none_or(|e| now >= e) {
            return RefreshVerdict::Lapsed;
        }
        if presented == current {
            RefreshVerdict::Rotate
        } else if presented + 1 == current
            && self
                .refresh_rotated_at
                .is_some_and(|at| now - at <= REFRESH_GRACE)
        {
            RefreshVerdict::Replay
        } else {
            RefreshVerdict::Reused
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection(generation: u32, rotated_ago: Option<i64>) -> Connection {
        let now = Utc::now();
        Connection {
            tenant_id: TenantId::generate(),
            grant_id: GrantId::generate(),
            client_id: "mcp_01".into(),
            client_name: "c".into(),
            consented_by: PortalUserId::generate(),
            resource: "https://idreg.example/mcp".into(),
            redirect_uri: "https://client.example/cb".into(),
            code_challenge: "x".into(),
            code_digest: TokenDigest(vec![1]),
            code_expires_at: now,
            code_used_at: Some(now),
            refresh_generation: generation,
            refresh_rotated_at: rotated_ago.map(|s| now - Duration::seconds(s)),
            refresh_expires_at: Some(now + REFRESH_IDLE),
            created_at: now,
        }
    }

    #[test]
    fn rotation_replay_and_reuse() {
        let now = Utc::now();
        let c = connection(3, Some(5));
        assert_eq!(c.judge_refresh(3, now), RefreshVerdict::Rotate);
        assert_eq!(c.judge_refresh(2, now), RefreshVerdict::Replay);
        assert_eq!(c.judge_refresh(1, now), RefreshVerdict::Reused);
        assert_eq!(c.judge_refresh(4, now), RefreshVerdict::Reused);
        let late = connection(3, Some(REFRESH_GRACE.num_seconds() + 1));
        assert_eq!(late.judge_refresh(2, now), RefreshVerdict::Reused);
        let unused = connection(0, None);
        assert_eq!(unused.judge_refresh(0, now), RefreshVerdict::Lapsed);
        let mut idle = connection(2, Some(5));
        idle.refresh_expires_at = Some(now - Duration::seconds(1));
        assert_eq!(idle.judge_refresh(2, now), RefreshVerdict::Lapsed);
    }
}
