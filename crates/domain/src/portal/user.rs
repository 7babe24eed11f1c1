//! A portal user: a person at a tenant who signs in to the portal by one-time link, and the
//! rule of an email address.

use crate::error::Failure;
use crate::ids::{PortalUserId, TenantId};
use chrono::{DateTime, Utc};

/// The longest address accepted (RFC 5321's path limit less the brackets).
pub const MAX_EMAIL_BYTES: usize = 254;

/// An email address as the portal keeps it: lower case, `local@domain`, the local part of
/// printable ASCII without white space or the characters that need quoting, the domain of
/// dot-separated labels of letters, digits and inner hyphens, with at least one dot.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, Failure> {
        let bad = || Failure::bad_request("email", "must be an email address (name@example.com)");
        if raw.is_empty() || raw.len() > MAX_EMAIL_BYTES {
            return Err(bad());
        }
        let lower = raw.to_ascii_lowercase();
        let (local, domain) = lower.split_once('@').ok_or_else(bad)?;
        let local_ok = !local.is_empty()
            && local.len() <= 64
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~.".contains(&b));
        let labels: Vec<&str> = domain.split('.').collect();
        let domain_ok = labels.len() >= 2
            && labels.iter().all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if local_ok && domain_ok {
            Ok(Email(lower))
        } else {
            Err(bad())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An address is a person's: `Debug` does not print it (logs name the user's id).
impl std::fmt::Debug for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Email(<redacted>)")
    }
}

/// What a portal user may do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PortalRole {
    /// Everything a member may, and the tenant's portal users and grants.
    Admin,
    /// Usage, audit and screening reads, and the whitelist's four eyes.
    Member,
}

impl PortalRole {
    pub fn as_str(self) -> &'static str {
        match self {
            PortalRole::Admin => "admin",
            PortalRole::Member => "member",
        }
    }

    pub fn parse(s: &str) -> Option<PortalRole> {
        match s {
            "admin" => Some(PortalRole::Admin),
            "member" => Some(PortalRole::Member),
            _ => None,
        }
    }
}

/// A portal user as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PortalUser {
    pub id: PortalUserId,
    pub tenant_id: TenantId,
    pub email: Email,
    pub role: PortalRole,
    pub created_at: DateTime<Utc>,
    /// Who added the user: another portal user, or `None` for the operator.
    pub created_by: Option<PortalUserId>,
    /// A disabled user cannot sign in, and their sessions end.
    pub disabled_at: Option<DateTime<Utc>>,
}

impl PortalUser {
    pub fn active(&self) -> bool {
        self.disabled_at.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn addresses_are_read_in_lower_case() {
        assert_eq!(
            Email::parse("Anna.Svensson+idreg@Example.SE")
                .unwrap()
                .as_str(),
            "anna.svensson+idreg@example.se"
        );
        for bad in [
            "",
            "anna",
            "anna@",
            "@example.se",
            "anna@example",
            "anna@@example.se",
            "an na@example.se",
            " anna@example.se",
            "anna@example.se ",
            ".anna@example.se",
            "an..na@example.se",
            "anna@-example.se",
            "anna@example..se",
            "anna@exa_mple.se",
            "\"anna\"@example.se",
            "anna@example.se\u{0}",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(Email::parse(&format!("{}@example.se", "a".repeat(65))).is_err());
        assert!(format!("{:?}", Email::parse("anna@example.se").unwrap()).contains("redacted"));
    }

    proptest! {
        /// Whatever the text, an accepted address has one `@`, no white space or control
        /// character, is lower case and fits the bound; and it reads back as itself.
        #[test]
        fn an_accepted_address_is_well_formed(raw in "\\PC{0,40}|[A-Za-z0-9.+_-]{1,12}@[A-Za-z0-9.-]{1,20}") {
            if let Ok(e) = Email::parse(&raw) {
                let s = e.as_str();
                prop_assert_eq!(s.matches('@').count(), 1);
                prop_assert!(!s.chars().any(|c| c.is_whitespace() || c.is_control()));
                prop_assert_eq!(s.to_ascii_lowercase(), s);
                prop_assert!(s.len() <= MAX_EMAIL_BYTES);
                prop_assert_eq!(Email::parse(s).unwrap(), e.clone());
            }
        }
    }
}
