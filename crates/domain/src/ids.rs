//! Opaque identifiers of the service's own records.
//!
//! Every id is a fresh ULID (never derived from a registry identifier). The wire form of
//! tenant, grant and subject ids is the bare 26-character ULID; ids that share a field with
//! other kinds of values carry a short prefix (`idr_` identifier refs, `call_` call records,
//! `cid_` client ids).

use std::fmt;
use std::str::FromStr;
use ulid::Ulid;

macro_rules! ulid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(Ulid);

        impl $name {
            pub fn generate() -> Self {
                Self(Ulid::generate())
            }
            pub fn ulid(&self) -> Ulid {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(s: &str) -> Result<Self, InvalidId> {
                // Only the canonical upper-case spelling is an id; anything else is not found.
                if s.len() != 26 || s.bytes().any(|b| b.is_ascii_lowercase()) {
                    return Err(InvalidId);
                }
                Ulid::from_string(s).map(Self).map_err(|_| InvalidId)
            }
        }
    };
}

impl GrantId {
    /// The grant id that work on a tenant's own behalf carries (scheduled monitoring): the
    /// nil ULID, which no real grant can have. Upstream calls made by that work name it in
    /// their records instead of a consumer's grant.
    pub const MONITORING: GrantId = GrantId(Ulid(0));
    /// The grant id a portal user's reads carry ([`Caller::portal`](crate::access::caller::Caller::portal)):
    /// the ULID 1, which no real grant can have either.
    pub const PORTAL: GrantId = GrantId(Ulid(1));
}

/// The input was not an id of this kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not a well-formed id")]
pub struct InvalidId;

ulid_id!(
    /// A tenant: holds the contract, the permits and the data.
    TenantId
);
ulid_id!(
    /// A grant: one consumer's scopes and countries under one tenant.
    GrantId
);
ulid_id!(
    /// A subject: a company or person as one tenant knows it.
    SubjectId
);

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(Ulid);

        impl $name {
            pub const PREFIX: &'static str = $prefix;
            pub fn generate() -> Self {
                Self(Ulid::generate())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(s: &str) -> Result<Self, InvalidId> {
                let rest = s.strip_prefix($prefix).ok_or(InvalidId)?;
                if rest.len() != 26 || rest.bytes().any(|b| b.is_ascii_lowercase()) {
                    return Err(InvalidId);
                }
                Ulid::from_string(rest).map(Self).map_err(|_| InvalidId)
            }
        }
    };
}

prefixed_id!(
    /// The opaque handle of one stored identifier (never the number itself).
    IdentifierRef,
    "idr_"
);
prefixed_id!(
    /// The service's record of an upstream call or identity event; evidence points at it.
    CallRef,
    "call_"
);
prefixed_id!(
    /// A monitoring subscription.
    SubscriptionId,
    "sub_"
);
prefixed_id!(
    /// One event of a tenant's event log.
    EventId,
    "evt_"
);
prefixed_id!(
    /// One immutable imported version of a sanctions list (`source_version_ids` on checks).
    SourceVersionId,
    "srcv_"
);
prefixed_id!(
    /// A list's active version replaced by another: the re-screening work it gives.
    ListChangeId,
    "lchg_"
);
prefixed_id!(
    /// One request, for logs and the `X-Request-Id` header.
    RequestId,
    "req_"
);

/// A consumer's public client id. Opaque and URL-safe.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientId(String);

impl ClientId {
    pub const PREFIX: &'static str = "cid_";
    /// The prefix of a test-mode grant's client id: visibly not a live credential.
    pub const TEST_PREFIX: &'static str = "cid_test_";

    pub fn generate() -> Self {
        ClientId(format!(
            "{}{}",
            Self::PREFIX,
            Ulid::generate().to_string().to_ascii_lowercase()
        ))
    }

    /// A client id of a test-mode grant (`cid_test_` + a lower-case ULID).
    pub fn generate_test() -> Self {
        ClientId(format!(
            "{}{}",
            Self::TEST_PREFIX,
            Ulid::generate().to_string().to_ascii_lowercase()
        ))
    }

    /// Whether the id is a test-mode grant's.
    pub fn is_test(&self) -> bool {
        self.0.starts_with(Self::TEST_PREFIX)
    }

    /// Accepts what a client sends; an ill-formed value simply matches no grant.
    pub fn from_wire(s: &str) -> Self {
        ClientId(s.to_owned())
    }

    /// Whether the value has the shape of an id this service issues (used to decide whether
    /// an unknown client id is worth keeping in the security log).
    pub fn is_well_formed(&self) -> bool {
        let prefix = if self.is_test() {
            Self::TEST_PREFIX
        } else {
            Self::PREFIX
        };
        self.0.len() == prefix.len() + 26
            && self.0.starts_with(prefix)
            && self.0[prefix.len()..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A ULID as the service writes it (a pattern without anchors, for interface schemas): 26 Crockford base-32 characters, upper case, the first
/// at most `7` (128 bits).
pub const ULID_PATTERN: &str = "[0-7][0-9A-HJKMNP-TV-Z]{25}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_other_shapes() {
        let s = SubjectId::generate();
        assert_eq!(s.to_string().parse::<SubjectId>().unwrap(), s);
        assert!("nope".parse::<SubjectId>().is_err());
        assert!(s.to_string().to_lowercase().parse::<SubjectId>().is_err());
        let r = IdentifierRef::generate();
        assert!(r.to_string().starts_with("idr_"));
        assert_eq!(r.to_string().parse::<IdentifierRef>().unwrap(), r);
        assert!(s.to_string().parse::<IdentifierRef>().is_err());
    }

    #[test]
    fn client_ids_are_url_safe() {
        let c = ClientId::generate();
        assert!(c.is_well_formed());
        assert!(c
            .as_str()
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        assert!(!ClientId::from_wire("x").is_well_formed());
        let t = ClientId::generate_test();
        assert!(t.is_well_formed() && t.is_test());
        assert!(t.as_str().starts_with("cid_test_"));
        assert!(!c.is_test());
    }
}
prefixed_id!(
    /// One version of the service's screening policy (`policy_version_id` on checks).
    PolicyVersionId,
    "pol_"
);
prefixed_id!(
    /// One version of a tenant's override of the screening policy.
    OverrideVersionId,
    "ovr_"
);
prefixed_id!(
    /// One entry of a tenant's screening whitelist.
    WhitelistEntryId,
    "wle_"
);
prefixed_id!(
    /// One screening check (an append-only row).
    ScreeningCheckId,
    "chk_"
);
prefixed_id!(
    /// A consumer's webhook endpoint: where the tenant's log is pushed, event by event.
    WebhookEndpointId,
    "whk_"
);
prefixed_id!(
    /// A person who signs in to the tenant portal (one tenant's).
    PortalUserId,
    "pu_"
);
prefixed_id!(
    /// One of a portal user's conversations with the assistant.
    ConversationId,
    "cv_"
);
