//! A conversation with the assistant: one portal user's, under one grant of their tenant, a
//! list of turns. A turn's blocks are text, the model's tool calls and their results, as the
//! model saw them: a personal identity number never appears in any of them (see `scan`).

use crate::ids::{ConversationId, GrantId, PortalUserId, TenantId};
use chrono::{DateTime, Utc};

/// Who wrote a turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The person (their message, or the results of the tools the model called).
    User,
    /// The model.
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }
}

/// One piece of a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Text(String),
    /// A tool the model called, its input as the model wrote it (JSON text).
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
    /// What the tool answered (JSON text), or why it was not run.
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
}

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub blocks: Vec<Block>,
}

impl Turn {
    pub fn user_text(text: impl Into<String>) -> Turn {
        Turn {
            role: Role::User,
            blocks: vec![Block::Text(text.into())],
        }
    }

    /// The turn's text, its text blocks joined.
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A conversation's head: whose it is, under which grant, and when it was last used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversation {
    pub id: ConversationId,
    pub tenant_id: TenantId,
    pub portal_user_id: PortalUserId,
    /// The grant whose scopes and countries bound what the assistant does here.
    pub grant_id: GrantId,
    /// The first words of the first message (scanned: no personal number).
    pub title: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A turn as stored: its place in the conversation and when it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTurn {
    pub seq: u32,
    pub at: DateTime<Utc>,
    pub turn: Turn,
}

/// A turn sealed under the tenant's data key (the conversation may hold register data about
/// people), as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedTurn(pub Vec<u8>);

/// A title sealed under the tenant's data key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedTitle(pub Vec<u8>);

/// What the store keeps of a conversation's head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredConversation {
    pub id: ConversationId,
    pub tenant_id: TenantId,
    pub portal_user_id: PortalUserId,
    pub grant_id: GrantId,
    pub title: SealedTitle,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}
