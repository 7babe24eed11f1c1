//! Sign-in by one-time link and the sessions it opens: the tokens' shapes, their lifetimes,
//! and which of the specification's codes a link that does not sign in answers.
//!
//! Every token is a prefix and the base64url (no padding) of 32 random bytes: `pl_` a link,
//! `pb_` the binding of the browser that asked for it, `ps_` a session. None is stored: the
//! store keeps each one's SHA-256 ([`TokenDigest`]).

use crate::error::{ErrorCode, Failure};
use crate::ids::{PortalUserId, TenantId};
use crate::portal::user::{Email, PortalRole};
use chrono::{DateTime, Duration, Utc};

/// How long a sign-in link can be redeemed.
pub const LINK_LIFETIME: Duration = Duration::minutes(15);
/// How many links one user may be sent within [`LINK_WINDOW`]; more are not sent.
pub const LINKS_PER_WINDOW: u32 = 5;
pub const LINK_WINDOW: Duration = Duration::minutes(15);
/// A session ends this long after sign-in, whatever its use.
pub const SESSION_LIFETIME: Duration = Duration::hours(8);
/// A session unused this long ends.
pub const SESSION_IDLE: Duration = Duration::minutes(30);

/// The kinds of token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Link,
    Binding,
    Session,
}

impl TokenKind {
    pub fn prefix(self) -> &'static str {
        match self {
            TokenKind::Link => "pl_",
            TokenKind::Binding => "pb_",
            TokenKind::Session => "ps_",
        }
    }

    /// Whether `s` has this kind's shape: the prefix and 43 base64url characters.
    pub fn fits(self, s: &str) -> bool {
        s.strip_prefix(self.prefix()).is_some_and(|rest| {
            rest.len() == 43
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
    }
}

/// A token's SHA-256: what the store keeps and looks up by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenDigest(pub Vec<u8>);

/// A link as stored (its token mailed, never kept).
#[derive(Clone, Debug, PartialEq)]
pub struct SignInLink {
    pub digest: TokenDigest,
    pub tenant_id: TenantId,
    pub user_id: PortalUserId,
    /// The digest of the binding cookie of the browser that asked for it.
    pub binding: TokenDigest,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A session as stored (its token in the browser's cookie, never kept).
#[derive(Clone, Debug, PartialEq)]
pub struct PortalSession {
    pub digest: TokenDigest,
    pub tenant_id: TenantId,
    pub user_id: PortalUserId,
    pub role: PortalRole,
    /// The user's address, read with the role: the pages name the signed-in user by it (an
    /// audit row names the user by id only).
    pub email: Email,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    /// `created_at` + [`SESSION_LIFETIME`].
    pub expires_at: DateTime<Utc>,
}

impl PortalSession {
    /// Whether the session still admits at `now` (not past its lifetime nor idle too long).
    pub fn live(&self, now: DateTime<Utc>) -> bool {
        now < self.expires_at && now - self.last_seen_at < SESSION_IDLE
    }
}

/// What redeeming a well-formed link came to, as the store found it in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum Redemption {
    /// No link has that token, or it was asked for by another browser.
    Unknown,
    /// Redeemed before.
    Used,
    /// Past its lifetime.
    Expired,
    /// Redeemed now: the session it opened.
    SignedIn(PortalSession),
}

/// The failure of a link that does not sign in: the specification's codes.
pub fn link_failure(code: ErrorCode) -> Failure {
    let message = match code {
        ErrorCode::InvalidLink => {
            "the sign-in link is not one this service sends; ask for a new one"
        }
        ErrorCode::LinkInvalid => {
            "the sign-in link is unknown, or was asked for in another browser; ask for a new one \
             in this browser"
        }
        ErrorCode::LinkUsed => "the sign-in link was used already; ask for a new one",
        ErrorCode::LinkExpired => "the sign-in link has expired (15 minutes); ask for a new one",
        _ => "the sign-in link does not sign in",
    };
    Failure::new(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_token_fits_its_own_kind_only() {
        let body = "A".repeat(43);
        assert!(TokenKind::Link.fits(&format!("pl_{body}")));
        assert!(!TokenKind::Session.fits(&format!("pl_{body}")));
        for bad in [
            String::new(),
            "pl_".to_owned(),
            format!("pl_{}", "A".repeat(42)),
            format!("pl_{}", "A".repeat(44)),
            format!("pl_{}=", "A".repeat(42)),
            format!("pl_{}+", "A".repeat(42)),
            format!("PL_{body}"),
        ] {
            assert!(!TokenKind::Link.fits(&bad), "{bad:?}");
        }
    }

    #[test]
    fn a_session_ends_at_its_lifetime_or_when_idle() {
        let t = chrono::Utc::now();
        let s = PortalSession {
            digest: TokenDigest(vec![1]),
            tenant_id: TenantId::generate(),
            user_id: PortalUserId::generate(),
            role: PortalRole::Member,
            email: Email::parse("member@example.se").unwrap(),
            created_at: t,
            last_seen_at: t,
            expires_at: t + SESSION_LIFETIME,
        };
        assert!(s.live(t + Duration::minutes(29)));
        assert!(!s.live(t + SESSION_IDLE));
        let busy = PortalSession {
            last_seen_at: t + Duration::hours(8) - Duration::minutes(1),
            ..s
        };
        assert!(busy.live(t + Duration::hours(8) - Duration::seconds(1)));
        assert!(!busy.live(t + SESSION_LIFETIME));
    }

    proptest! {
        #[test]
        fn only_the_exact_shape_fits(s in "\\PC{0,60}") {
            if TokenKind::Link.fits(&s) {
                prop_assert!(s.starts_with("pl_") && s.len() == 46 && s.is_ascii());
            }
        }
    }
}
