//! Ports of the assistant: the language model, idreg's tools as the model may call them, the
//! store of conversations and of the daily allowance, and the vault that seals turns.

use crate::access::audit::AuditTrail;
use crate::access::caller::Caller;
use crate::access::scope::ScopeSet;
use crate::access::tenant::WrappedDataKey;
use crate::assistant::conversation::{SealedTitle, SealedTurn, StoredConversation, Turn};
use crate::assistant::model::{ModelError, ModelEvent, ModelReply, ModelRequest, ToolSpec};
use crate::error::{CryptoError, StoreError};
use crate::ids::{ConversationId, PortalUserId, TenantId};
use crate::subjects::identifier::Identifier;
use crate::Failure;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// Where a model's streamed events go as they arrive.
pub trait ModelSink: Send + Sync {
    fn event(&self, event: ModelEvent);
}

/// A language model that streams its answer and calls tools. The adapter retries 429, 529
/// and server errors with backoff while nothing has streamed, and bounds every wait.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LanguageModel: Send + Sync {
    /// One model turn: its events go to `sink` as they stream.
    async fn stream(
        &self,
        request: &ModelRequest,
        sink: std::sync::Arc<dyn ModelSink>,
    ) -> Result<ModelReply, ModelError>;

    /// The model's name as configured (shown to the person, recorded nowhere else).
    fn model(&self) -> String;
}

/// What a tool answered, ready for the model: the body as JSON text (references, never a
/// personal number), its one-line summary, and the evidence it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolAnswer {
    pub content: String,
    pub summary: String,
    pub citations: Vec<Citation>,
}

/// Evidence an answer rests on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Citation {
    /// An upstream call record (`call_ref`).
    Call(String),
    /// A sanctions list version a screening check was made against.
    ListVersion(String),
}

/// A person's number resolved on the service's side: what the model gets in its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub identifier_ref: String,
    pub subject_id: String,
}

/// idreg's tools as the assistant calls them: the MCP tool layer (the same bodies, scopes,
/// refusals and audit rows), run for an admitted [`Caller`] whose audit rows name the portal
/// user and the conversation. Its futures need not be `Send`: the MCP tool layer's handlers
/// run on the request's own worker.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait(?Send)]
pub trait AssistantTools: Send + Sync {
    /// The tools offered for `scopes` (see `bounds::offered`): name, description, schema.
    fn offered(&self, scopes: &ScopeSet) -> Vec<ToolSpec>;

    /// Whether a tool's input (JSON text) holds a raw personal identity number anywhere: in
    /// a string, a number or a key, however escaped (`scan::holds_personal_number` on every
    /// decoded leaf). Unparsable input is judged on its text.
    fn input_holds_personal_number(&self, input: &str) -> bool;

    /// Runs the tool `name` with `input` (JSON text). An API failure is the tool's answer
    /// (its code goes back to the model).
    async fn call(
        &self,
        caller: &Caller,
        trail: &AuditTrail,
        name: &str,
        input: &str,
    ) -> Result<ToolAnswer, Failure>;

    /// A failure as the model gets it (JSON text: its code and message).
    fn failure_content(&self, failure: &Failure) -> String;

    /// Resolves a person's number to the tenant's subject (`POST /v1/subjects/resolve`,
    /// audited as that route).
    async fn resolve(
        &self,
        caller: &Caller,
        trail: &AuditTrail,
        identifier: &Identifier,
    ) -> Result<Resolved, Failure>;
}

/// What spending one model call from the tenant's daily allowance came to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Allowance {
    /// Spent; this many calls are left today.
    Spent { left: u32 },
    /// None left today.
    Exhausted,
}

/// Conversations (per tenant and portal user) and the tenant's daily model calls.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ConversationStore: Send + Sync {
    async fn insert_conversation(
        &self,
        conversation: &StoredConversation,
    ) -> Result<(), StoreError>;

    /// Replaces the conversation's (sealed) title.
    async fn set_title(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        title: &SealedTitle,
    ) -> Result<(), StoreError>;

    /// The conversation, when it is this tenant's and this user's.
    async fn conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<Option<StoredConversation>, StoreError>;

    /// The user's conversations, most recently used first, at most `limit`.
    async fn conversations(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        limit: u32,
    ) -> Result<Vec<StoredConversation>, StoreError>;

    /// The conversation's turns in order: `(seq, written at, sealed turn)`.
    async fn turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
    ) -> Result<Vec<(u32, DateTime<Utc>, SealedTurn)>, StoreError>;

    /// Appends turns at `first_seq` onwards and marks the conversation used at `at`, in one
    /// transaction. A seq already taken (a second tab writing) is [`StoreError::Conflict`]
    /// and writes nothing.
    async fn append_turns(
        &self,
        tenant: &TenantId,
        id: &ConversationId,
        first_seq: u32,
        turns: &[SealedTurn],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Deletes the conversation and its turns; false when there was none of this user's.
    async fn delete_conversation(
        &self,
        tenant: &TenantId,
        user: &PortalUserId,
        id: &ConversationId,
    ) -> Result<bool, StoreError>;

    /// Deletes every conversation last used before `before` (every tenant's), with its
    /// turns; how many.
    async fn purge_conversations(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;

    /// Spends one model call of `tenant`'s allowance of `per_day` on `day`, atomically: two
    /// messages racing never pass the allowance.
    async fn spend_model_call(
        &self,
        tenant: &TenantId,
        day: NaiveDate,
        per_day: u32,
    ) -> Result<Allowance, StoreError>;

    /// The model calls `tenant` made on each day of `from..=to` that had any.
    async fn model_calls(
        &self,
        tenant: &TenantId,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u32)>, StoreError>;
}

/// Seals turns and titles under the tenant's data key, bound to their conversation (and
/// place), so a sealed turn moved elsewhere does not open.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait AssistantVault: Send + Sync {
    fn seal_turn(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        seq: u32,
        turn: &Turn,
    ) -> Result<SealedTurn, CryptoError>;

    fn open_turn(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        seq: u32,
        sealed: &SealedTurn,
    ) -> Result<Turn, CryptoError>;

    fn seal_title(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        title: &str,
    ) -> Result<SealedTitle, CryptoError>;

    fn open_title(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        sealed: &SealedTitle,
    ) -> Result<String, CryptoError>;
}
