//! The assistant's rows as both stores keep them: a conversation's head read back from its
//! columns, every id checked again; a turn's place and a day's count of model calls as the
//! `integer` columns hold them; and what one spend came to.

use crate::{corrupt, parse_id};
use chrono::{DateTime, Utc};
use domain::assistant::conversation::{SealedTitle, StoredConversation};
use domain::assistant::ports::Allowance;
use domain::error::StoreError;

/// A conversation's columns as read, times already converted.
pub struct ConversationColumns {
    pub tenant_id: String,
    pub conversation_id: String,
    pub portal_user_id: String,
    pub grant_id: String,
    pub title: Vec<u8>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ConversationColumns {
    pub fn into_conversation(self) -> Result<StoredConversation, StoreError> {
        Ok(StoredConversation {
            id: parse_id(&self.conversation_id, "conversation id")?,
            tenant_id: parse_id(&self.tenant_id, "tenant id")?,
            portal_user_id: parse_id(&self.portal_user_id, "portal user id")?,
            grant_id: parse_id(&self.grant_id, "grant id")?,
            title: SealedTitle(self.title),
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// A turn's place as stored (PostgreSQL's `integer`, which the embedded store keeps to).
pub fn seq_to_stored(seq: u32) -> Result<i32, StoreError> {
    i32::try_from(seq).map_err(|_| StoreError::Backend("a turn's place is out of range".into()))
}

pub fn seq_from_stored(stored: i64) -> Result<u32, StoreError> {
    u32::try_from(stored).map_err(|_| corrupt("turn seq"))
}

/// A day's count of model calls read back.
pub fn calls_from_stored(stored: i64) -> Result<u32, StoreError> {
    u32::try_from(stored).map_err(|_| corrupt("model calls"))
}

/// What a spend came to: the day's count after it when it was spent (`None`: the statement
/// added nothing, the allowance was used up).
pub fn allowance(spent_to: Option<i64>, per_day: u32) -> Result<Allowance, StoreError> {
    match spent_to {
        None => Ok(Allowance::Exhausted),
        Some(calls) => Ok(Allowance::Spent {
            left: per_day.saturating_sub(calls_from_stored(calls)?),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::ids::{ConversationId, GrantId, PortalUserId, TenantId};

    #[test]
    fn a_conversation_reads_back_from_its_columns_and_a_bad_id_is_a_fault() {
        let at = DateTime::from_timestamp_micros(1_764_000_000_123_456).unwrap();
        let (id, tenant, user, grant) = (
            ConversationId::generate(),
            TenantId::generate(),
            PortalUserId::generate(),
            GrantId::generate(),
        );
        let columns = |conversation_id: String| ConversationColumns {
            tenant_id: tenant.to_string(),
            conversation_id,
            portal_user_id: user.to_string(),
            grant_id: grant.to_string(),
            title: vec![1, 2, 3],
            created_at: at,
            updated_at: at,
        };
        let read = columns(id.to_string()).into_conversation().unwrap();
        assert_eq!(
            read,
            StoredConversation {
                id,
                tenant_id: tenant,
                portal_user_id: user,
                grant_id: grant,
                title: SealedTitle(vec![1, 2, 3]),
                created_at: at,
                updated_at: at,
            }
        );
        assert!(columns(grant.to_string()).into_conversation().is_err());
    }

    #[test]
    fn places_and_counts_stay_in_range_and_a_spend_says_what_is_left() {
        assert_eq!(seq_to_stored(7).unwrap(), 7);
        assert!(seq_to_stored(u32::MAX).is_err());
        assert_eq!(seq_from_stored(7).unwrap(), 7);
        assert!(seq_from_stored(-1).is_err());
        assert_eq!(allowance(Some(3), 5).unwrap(), Allowance::Spent { left: 2 });
        assert_eq!(allowance(Some(5), 5).unwrap(), Allowance::Spent { left: 0 });
        assert_eq!(allowance(None, 5).unwrap(), Allowance::Exhausted);
        assert!(allowance(Some(-1), 5).is_err());
    }
}
