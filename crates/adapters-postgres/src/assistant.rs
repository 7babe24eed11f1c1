//! `ConversationStore` on PostgreSQL: a portal user's conversations and their sealed turns,
//! and the tenant's model calls per day. Turns are appended in the transaction that marks
//! their conversation used (its row locked by that update, so appends to one conversation
//! run one after another), and a place already taken is refused by the key, writing nothing.
//! A model call is spent by one statement that adds to the day's count only while it is below
//! the allowance, so concurrent spends serialise on the row and never pass it.

use crate::convert::{backend, TxError};
use crate::schema::{assistant_conversations, assistant_model_calls, assistant_turns};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Date, Int4, Text};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::assistant::conversation::{SealedTitle, SealedTurn, StoredConversation};
use domain::assistant::ports::{Allowance, ConversationStore};
use domain::error::StoreError;
use domain::ids::{ConversationId, PortalUserId, TenantId};
use storage_codec::assistant::{
    allowance, calls_from_stored, seq_from_stored, seq_to_stored, ConversationColumns,
};

type ConversationRow = (
    String,
    String,
    String,
    String,
    Vec<u8>,
    DateTime<Utc>,
    DateTime<Utc>,
);

const CONVERSATION_COLUMNS: (
    assistant_conversations::tenant_id,
    assistant_conversations::conversation_id,
    assistant_conversations::portal_user_id,
    assistant_conversations::grant_id,
    assistant_conversations::title,
    assistant_conversations::created_at,
    assistant_conversations::updated_at,
) = (
    assistant_conversations::tenant_id,
    assistant_conversations::conversation_id,
    assistant_conversations::portal_user_id,
    assistant_conversations::grant_id,
    assistant_conversations::title,
    assistant_conversations::created_at,
    assistant_conversations::updated_at,
);

fn conversation_of(r: ConversationRow) -> Result<StoredConversation, StoreError> {
    ConversationColumns {
        tenant_id: r.0,
        conversation_id: r.1,
        portal_user_id: r.2,
        grant_id: r.3,
        title: r.4,
        created_at: r.5,
        updated_at: r.6,
    }
    .into_conversation()
}

#[derive(QueryableByName)]
struct Spent {
    #[diesel(sql_type = Int4)]
    calls: i32,
}

#[async_trait]
impl ConversationStore for Database {
    async fn insert_conversation(&self, c: &StoredConversation) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(assistant_conversations::table)
            .values((
                assistant_conversations::tenant_id.eq(c.tenant_id.to_string()),
                assistant_conversations::conversation_id.eq(c.id.to_string()),
                assistant_conversations::portal_user_id.eq(c.portal_user_id.to_string()),
                assistant_conversations::grant_id.eq(c.grant_id.to_string()),
                assistant_conversations::title.eq(&c.title.0),
                assistant_conversations::created_at.eq(c.created_at),
                assistant_conversations::updated_at.eq(c.updated_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn set_title(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        title: &SealedTitle,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(
            assistant_conversations::table.find((tenant.to_string(), id.to_string())),
        )
        .set(assistant_conversations::title.eq(&title.0))
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    async fn conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<Option<StoredConversation>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<ConversationRow> = assistant_conversations::table
            .find((tenant.to_string(), id.to_string()))
            .filter(assistant_conversations::portal_user_id.eq(user.to_string()))
            .select(CONVERSATION_COLUMNS)
            .first(&mut conn)
            .await
            .optional()
            .map_err(backend)?;
        row.map(conversation_of).transpose()
    }

    async fn conversations(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        limit: u32,
    ) -> Result<Vec<StoredConversation>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<ConversationRow> = assistant_conversations::table
            .filter(assistant_conversations::tenant_id.eq(tenant.to_string()))
            .filter(assistant_conversations::portal_user_id.eq(user.to_string()))
            .order((
                assistant_conversations::updated_at.desc(),
                assistant_conversations::conversation_id.desc(),
            ))
            .limit(i64::from(limit))
            .select(CONVERSATION_COLUMNS)
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter().map(conversation_of).collect()
    }

    async fn turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
    ) -> Result<Vec<(u32, DateTime<Utc>, SealedTurn)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(i32, DateTime<Utc>, Vec<u8>)> = assistant_turns::table
            .filter(assistant_turns::tenant_id.eq(tenant.to_string()))
            .filter(assistant_turns::conversation_id.eq(id.to_string()))
            .order(assistant_turns::seq)
            .select((
                assistant_turns::seq,
                assistant_turns::written_at,
                assistant_turns::sealed,
            ))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter()
            .map(|(seq, at, sealed)| Ok((seq_from_stored(i64::from(seq))?, at, SealedTurn(sealed))))
            .collect()
    }

    async fn append_turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        first_seq: u32,
        turns: &[SealedTurn],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (tenant_id, conversation_id) = (tenant.to_string(), id.to_string());
        let mut places = Vec::with_capacity(turns.len());
        for i in 0..turns.len() {
            let seq = u32::try_from(i)
                .ok()
                .and_then(|i| first_seq.checked_add(i))
                .ok_or_else(|| StoreError::Backend("a turn's place is out of range".into()))?;
            places.push(seq_to_stored(seq)?);
        }
        let rows: Vec<_> = places
            .iter()
            .zip(turns)
            .map(|(seq, turn)| {
                (
                    assistant_turns::tenant_id.eq(&tenant_id),
                    assistant_turns::conversation_id.eq(&conversation_id),
                    assistant_turns::seq.eq(*seq),
                    assistant_turns::written_at.eq(at),
                    assistant_turns::sealed.eq(&turn.0),
                )
            })
            .collect();
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| -> Result<(), TxError> {
            // Marks the conversation used and locks its row: a concurrent append to it waits
            // here, then finds its places taken.
            let found =
                diesel::update(assistant_conversations::table.find((&tenant_id, &conversation_id)))
                    .set(assistant_conversations::updated_at.eq(at))
                    .execute(conn)
                    .await?;
            if found == 0 {
                return Err(TxError(StoreError::NotFound));
            }
            if rows.is_empty() {
                return Ok(());
            }
            match diesel::insert_into(assistant_turns::table)
                .values(&rows)
                .execute(conn)
                .await
            {
                Ok(_) => Ok(()),
                Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                    Err(TxError(StoreError::Conflict))
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
        .map_err(StoreError::from)
    }

    async fn delete_conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        // Its turns go with it (`ON DELETE CASCADE`).
        let n = diesel::delete(
            assistant_conversations::table
                .find((tenant.to_string(), id.to_string()))
                .filter(assistant_conversations::portal_user_id.eq(user.to_string())),
        )
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n == 1)
    }

    async fn purge_conversations(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        // Every tenant's (`assistant_conversations_by_use`); turns go with their conversation.
        let n = diesel::delete(
            assistant_conversations::table.filter(assistant_conversations::updated_at.lt(before)),
        )
        .execute(&mut conn)
        .await
        .map_err(backend)?;
        Ok(n as u64)
    }

    async fn spend_model_call(
        &self,
        tenant: &TenantId,
        day: NaiveDate,
        per_day: u32,
    ) -> Result<Allowance, StoreError> {
        if per_day == 0 {
            return Ok(Allowance::Exhausted);
        }
        // The column's range bounds the allowance.
        let cap = i32::try_from(per_day).unwrap_or(i32::MAX);
        let mut conn = self.conn().await?;
        let spent: Option<Spent> = diesel::sql_query(
            "INSERT INTO assistant_model_calls AS m (tenant_id, day, calls) VALUES ($1, $2, 1) \
             ON CONFLICT (tenant_id, day) DO UPDATE SET calls = m.calls + 1 \
             WHERE m.calls < $3 \
             RETURNING m.calls",
        )
        .bind::<Text, _>(tenant.to_string())
        .bind::<Date, _>(day)
        .bind::<Int4, _>(cap)
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(backend)?;
        allowance(spent.map(|s| i64::from(s.calls)), per_day)
    }

    async fn model_calls(
        &self,
        tenant: &TenantId,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u32)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(NaiveDate, i32)> = assistant_model_calls::table
            .filter(assistant_model_calls::tenant_id.eq(tenant.to_string()))
            .filter(assistant_model_calls::day.between(from, to))
            .order(assistant_model_calls::day)
            .select((assistant_model_calls::day, assistant_model_calls::calls))
            .load(&mut conn)
            .await
            .map_err(backend)?;
        rows.into_iter()
            .map(|(day, calls)| Ok((day, calls_from_stored(i64::from(calls))?)))
            .collect()
    }
}
