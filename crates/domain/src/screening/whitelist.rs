//! A tenant's screening whitelist: "this list entry is not our customer". An entry names one
//! list entry (`source_id`, `source_entry_id`) and whom it clears: a subject (`subject_id`)
//! or an ad-hoc input (`input_hash`, the keyed hash a check carries, so the input itself is
//! never stored for it). Entries are made and approved by two different operators (four
//! eyes), expire, and can be revoked. A whitelisted candidate stays in a check's result,
//! marked, and no longer raises the check's band.

use crate::ids::{SubjectId, TenantId, WhitelistEntryId};
use crate::screening::sanctions::ListSource;
use chrono::{DateTime, Utc};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhitelistEntry {
    pub id: WhitelistEntryId,
    pub tenant_id: TenantId,
    pub subject_id: Option<SubjectId>,
    pub input_hash: Option<String>,
    pub source: ListSource,
    pub source_entry_id: String,
    pub reason: String,
    pub created_by: String,
    pub approved_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Where an entry stands at a moment: only `InEffect` clears anything.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WhitelistState {
    /// Made, waiting for a second person's approval.
    Proposed,
    InEffect,
    Expired,
    Revoked,
}

impl WhitelistState {
    pub fn as_str(self) -> &'static str {
        match self {
            WhitelistState::Proposed => "proposed",
            WhitelistState::InEffect => "in effect",
            WhitelistState::Expired => "expired",
            WhitelistState::Revoked => "revoked",
        }
    }
}

impl WhitelistEntry {
    /// In effect at `at`: approved, not revoked, not expired.
    pub fn effective(&self, at: DateTime<Utc>) -> bool {
        self.state(at) == WhitelistState::InEffect
    }

    /// Where the entry stands at `at`: revoked, else expired, else waiting for approval, else
    /// in effect.
    pub fn state(&self, at: DateTime<Utc>) -> WhitelistState {
        if self.revoked_at.is_some_and(|r| r <= at) {
            WhitelistState::Revoked
        } else if self.expires_at <= at {
            WhitelistState::Expired
        } else if self.approved_by.is_none() {
            WhitelistState::Proposed
        } else {
            WhitelistState::InEffect
        }
    }

    /// Whether the entry clears `source`/`entry_id` for a check of `subject` or with
    /// `input_hash` (effectiveness aside).
    pub fn covers(
        &self,
        source: ListSource,
        entry_id: &str,
        subject: Option<&SubjectId>,
        input_hash: Option<&str>,
    ) -> bool {
        if self.source != source || self.source_entry_id != entry_id {
            return false;
        }
        let by_subject = matches!((&self.subject_id, subject), (Some(a), Some(b)) if a == b);
        let by_input =
            matches!((self.input_hash.as_deref(), input_hash), (Some(a), Some(b)) if a == b);
        by_subject || by_input
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn entry() -> WhitelistEntry {
        let at: DateTime<Utc> = "2026-11-01T00:00:00Z".parse().unwrap();
        WhitelistEntry {
            id: WhitelistEntryId::generate(),
            tenant_id: TenantId::generate(),
            subject_id: None,
            input_hash: Some("hmac-sha256:ab".into()),
            source: ListSource::OfacSdn,
            source_entry_id: "36".into(),
            reason: "different person: birth year 1990".into(),
            created_by: "ops-anna".into(),
            approved_by: None,
            created_at: at,
            expires_at: at + Duration::days(30),
            revoked_at: None,
        }
    }

    #[test]
    fn in_effect_only_approved_unexpired_and_unrevoked() {
        let mut e = entry();
        let now = e.created_at + Duration::days(1);
        assert!(!e.effective(now), "not yet approved");
        e.approved_by = Some("ops-bo".into());
        assert!(e.effective(now));
        assert!(!e.effective(e.expires_at), "expired");
        e.revoked_at = Some(now);
        assert!(!e.effective(now));
    }

    #[test]
    fn its_state_says_why_it_is_or_is_not_in_effect() {
        let mut e = entry();
        let now = e.created_at + Duration::days(1);
        assert_eq!(e.state(now), WhitelistState::Proposed);
        e.approved_by = Some("ops-bo".into());
        assert_eq!(e.state(now), WhitelistState::InEffect);
        assert_eq!(e.state(e.expires_at), WhitelistState::Expired);
        e.revoked_at = Some(now + Duration::hours(1));
        assert_eq!(e.state(now), WhitelistState::InEffect, "revoked later");
        assert_eq!(e.state(e.expires_at), WhitelistState::Revoked);
        for at in [now, e.expires_at] {
            assert_eq!(e.effective(at), e.state(at) == WhitelistState::InEffect);
        }
    }

    #[test]
    fn covers_its_entry_for_its_subject_or_input() {
        let e = entry();
        assert!(e.covers(ListSource::OfacSdn, "36", None, Some("hmac-sha256:ab")));
        assert!(!e.covers(ListSource::OfacSdn, "37", None, Some("hmac-sha256:ab")));
        assert!(!e.covers(
            ListSource::UnConsolidated,
            "36",
            None,
            Some("hmac-sha256:ab")
        ));
        assert!(!e.covers(ListSource::OfacSdn, "36", None, Some("hmac-sha256:cd")));
        assert!(!e.covers(ListSource::OfacSdn, "36", None, None));
    }
}
