//! `ConversationStore` on SQLite, as on PostgreSQL: a portal user's conversations and their
//! sealed turns, and the tenant's model calls per day. Each write is one write transaction
//! under the store's one write lock: turns are appended in the transaction that marks their
//! conversation used, a place already taken is refused by the key (writing nothing), and a
//! model call is spent by one statement that adds to the day's count only while it is below
//! the allowance.

use crate::convert::{day, micros, parse_day, time, TxError};
use crate::schema::{assistant_conversations, assistant_model_calls, assistant_turns};
use crate::Database;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{BigInt, Text};
use domain::assistant::conversation::{SealedTitle, SealedTurn, StoredConversation};
use domain::assistant::ports::{Allowance, ConversationStore};
use domain::error::StoreError;
use domain::ids::{ConversationId, PortalUserId, TenantId};
use storage_codec::assistant::{
    allowance, calls_from_stored, seq_from_stored, seq_to_stored, ConversationColumns,
};

type ConversationRow = (String, String, String, String, Vec<u8>, i64, i64);

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
        created_at: time(r.5)?,
        updated_at: time(r.6)?,
    }
    .into_conversation()
}

#[derive(QueryableByName)]
struct Spent {
    #[diesel(sql_type = BigInt)]
    calls: i64,
}

#[async_trait]
impl ConversationStore for Database {
    async fn insert_conversation(&self, c: &StoredConversation) -> Result<(), StoreError> {
        let c = c.clone();
        self.write(move |conn| {
            diesel::insert_into(assistant_conversations::table)
                .values((
                    assistant_conversations::tenant_id.eq(c.tenant_id.to_string()),
                    assistant_conversations::conversation_id.eq(c.id.to_string()),
                    assistant_conversations::portal_user_id.eq(c.portal_user_id.to_string()),
                    assistant_conversations::grant_id.eq(c.grant_id.to_string()),
                    assistant_conversations::title.eq(&c.title.0),
                    assistant_conversations::created_at.eq(micros(c.created_at)),
                    assistant_conversations::updated_at.eq(micros(c.updated_at)),
                ))
                .execute(conn)?;
            Ok(())
        })
        .await
    }

    async fn set_title(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        title: &SealedTitle,
    ) -> Result<(), StoreError> {
        let (tenant, id, title) = (tenant.to_string(), id.to_string(), title.0.clone());
        self.write(move |conn| {
            let n = diesel::update(assistant_conversations::table.find((&tenant, &id)))
                .set(assistant_conversations::title.eq(&title))
                .execute(conn)?;
            if n == 0 {
                return Err(TxError(StoreError::NotFound));
            }
            Ok(())
        })
        .await
    }

    async fn conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<Option<StoredConversation>, StoreError> {
        let (tenant, user, id) = (tenant.to_string(), user.to_string(), id.to_string());
        self.read(move |conn| {
            let row: Option<ConversationRow> = assistant_conversations::table
                .find((&tenant, &id))
                .filter(assistant_conversations::portal_user_id.eq(&user))
                .select(CONVERSATION_COLUMNS)
                .first(conn)
                .optional()?;
            Ok(row.map(conversation_of).transpose()?)
        })
        .await
    }

    async fn conversations(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        limit: u32,
    ) -> Result<Vec<StoredConversation>, StoreError> {
        let (tenant, user) = (tenant.to_string(), user.to_string());
        self.read(move |conn| {
            let rows: Vec<ConversationRow> = assistant_conversations::table
                .filter(assistant_conversations::tenant_id.eq(&tenant))
                .filter(assistant_conversations::portal_user_id.eq(&user))
                .order((
                    assistant_conversations::updated_at.desc(),
                    assistant_conversations::conversation_id.desc(),
                ))
                .limit(i64::from(limit))
                .select(CONVERSATION_COLUMNS)
                .load(conn)?;
            Ok(rows
                .into_iter()
                .map(conversation_of)
                .collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
    ) -> Result<Vec<(u32, DateTime<Utc>, SealedTurn)>, StoreError> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.read(move |conn| {
            let rows: Vec<(i64, i64, Vec<u8>)> = assistant_turns::table
                .filter(assistant_turns::tenant_id.eq(&tenant))
                .filter(assistant_turns::conversation_id.eq(&id))
                .order(assistant_turns::seq)
                .select((
                    assistant_turns::seq,
                    assistant_turns::written_at,
                    assistant_turns::sealed,
                ))
                .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|(seq, at, sealed)| Ok((seq_from_stored(seq)?, time(at)?, SealedTurn(sealed))))
                .collect::<Result<_, StoreError>>()?)
        })
        .await
    }

    async fn append_turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        first_seq: u32,
        turns: &[SealedTurn],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        let mut placed = Vec::with_capacity(turns.len());
        for (i, turn) in turns.iter().enumerate() {
            let seq = u32::try_from(i)
                .ok()
                .and_then(|i| first_seq.checked_add(i))
                .ok_or_else(|| StoreError::Backend("a turn's place is out of range".into()))?;
            placed.push((i64::from(seq_to_stored(seq)?), turn.0.clone()));
        }
        let at = micros(at);
        self.write(move |conn| {
            let found = diesel::update(assistant_conversations::table.find((&tenant, &id)))
                .set(assistant_conversations::updated_at.eq(at))
                .execute(conn)?;
            if found == 0 {
                return Err(TxError(StoreError::NotFound));
            }
            let rows: Vec<_> = placed
                .iter()
                .map(|(seq, sealed)| {
                    (
                        assistant_turns::tenant_id.eq(&tenant),
                        assistant_turns::conversation_id.eq(&id),
                        assistant_turns::seq.eq(*seq),
                        assistant_turns::written_at.eq(at),
                        assistant_turns::sealed.eq(sealed),
                    )
                })
                .collect();
            for row in rows {
                match diesel::insert_into(assistant_turns::table)
                    .values(row)
                    .execute(conn)
                {
                    Ok(_) => {}
                    Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                        // The transaction rolls back: nothing of this append is written.
                        return Err(TxError(StoreError::Conflict));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(())
        })
        .await
    }

    async fn delete_conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<bool, StoreError> {
        let (tenant, user, id) = (tenant.to_string(), user.to_string(), id.to_string());
        self.write(move |conn| {
            // Its turns go with it (`ON DELETE CASCADE`; foreign keys are on).
            let n = diesel::delete(
                assistant_conversations::table
                    .find((&tenant, &id))
                    .filter(assistant_conversations::portal_user_id.eq(&user)),
            )
            .execute(conn)?;
            Ok(n == 1)
        })
        .await
    }

    async fn purge_conversations(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let before = micros(before);
        self.write(move |conn| {
            let n = diesel::delete(
                assistant_conversations::table
                    .filter(assistant_conversations::updated_at.lt(before)),
            )
            .execute(conn)?;
            Ok(n as u64)
        })
        .await
    }

    async fn spend_model_call(
        &self,
        tenant: &TenantId,
        on: NaiveDate,
        per_day: u32,
    ) -> Result<Allowance, StoreError> {
        if per_day == 0 {
            return Ok(Allowance::Exhausted);
        }
        // PostgreSQL's column range bounds the allowance there; the same here.
        let cap = i64::from(i32::try_from(per_day).unwrap_or(i32::MAX));
        let tenant = tenant.to_string();
        let spent: Option<i64> = self
            .write(move |conn| {
                let spent: Vec<Spent> = diesel::sql_query(
                    "INSERT INTO assistant_model_calls AS m (tenant_id, day, calls) \
                     VALUES (?, ?, 1) \
                     ON CONFLICT (tenant_id, day) DO UPDATE SET calls = m.calls + 1 \
                     WHERE m.calls < ? \
                     RETURNING calls",
                )
                .bind::<Text, _>(&tenant)
                .bind::<Text, _>(day(on))
                .bind::<BigInt, _>(cap)
                .load(conn)?;
                Ok(spent.first().map(|s| s.calls))
            })
            .await?;
        allowance(spent, per_day)
    }

    async fn model_calls(
        &self,
        tenant: &TenantId,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u32)>, StoreError> {
        let (tenant, from, to) = (tenant.to_string(), day(from), day(to));
        self.read(move |conn| {
            // Days as `YYYY-MM-DD` order as text does.
            let rows: Vec<(String, i64)> = assistant_model_calls::table
                .filter(assistant_model_calls::tenant_id.eq(&tenant))
                .filter(assistant_model_calls::day.between(&from, &to))
                .order(assistant_model_calls::day)
                .select((assistant_model_calls::day, assistant_model_calls::calls))
                .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|(d, calls)| Ok((parse_day(&d)?, calls_from_stored(calls)?)))
                .collect::<Result<_, StoreError>>()?)
        })
        .await
    }
}
