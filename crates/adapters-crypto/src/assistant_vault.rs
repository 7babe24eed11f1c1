//! The assistant's conversations sealed at rest under the tenant's data key (the seal key, as
//! identifiers and person profiles), each with associated data of its own that binds it to its
//! place: a turn to its tenant, conversation and `seq`, a title to its tenant and
//! conversation. A sealed turn copied to another conversation, another place or another
//! tenant does not open, nor does a title as a turn or a turn as anything else.
//!
//! The plaintext of a turn is this module's own record format (`StoredTurnV1`, JSON): its role
//! and its blocks as the model saw them. A title is its UTF-8 text.

use crate::vault::{open, seal, AesVault};
use domain::access::tenant::WrappedDataKey;
use domain::assistant::conversation::{Block, Role, SealedTitle, SealedTurn, Turn};
use domain::assistant::ports::AssistantVault;
use domain::error::CryptoError;
use domain::ids::{ConversationId, TenantId};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

/// `<tenant>:assistant-turn:v1:<conversation>:<seq>`.
fn turn_aad(tenant: &TenantId, conversation: &ConversationId, seq: u32) -> Vec<u8> {
    format!("{tenant}:assistant-turn:v1:{conversation}:{seq}").into_bytes()
}

/// `<tenant>:assistant-title:v1:<conversation>`.
fn title_aad(tenant: &TenantId, conversation: &ConversationId) -> Vec<u8> {
    format!("{tenant}:assistant-title:v1:{conversation}").into_bytes()
}

fn fail(msg: &str) -> CryptoError {
    CryptoError::Failed(msg.to_owned())
}

#[derive(Serialize, Deserialize)]
struct StoredTurnV1 {
    role: String,
    blocks: Vec<StoredBlockV1>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StoredBlockV1 {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
}

impl StoredTurnV1 {
    fn from_domain(turn: &Turn) -> StoredTurnV1 {
        StoredTurnV1 {
            role: turn.role.as_str().to_owned(),
            blocks: turn
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Text(text) => StoredBlockV1::Text { text: text.clone() },
                    Block::ToolUse { id, name, input } => StoredBlockV1::ToolUse {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.clone(),
                    },
                    Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => StoredBlockV1::ToolResult {
                        tool_use_id: tool_use_id.clone(),
                        content: content.clone(),
                        is_error: *is_error,
                    },
                })
                .collect(),
        }
    }

    fn into_domain(self) -> Result<Turn, CryptoError> {
        Ok(Turn {
            role: Role::parse(&self.role).ok_or_else(|| fail("sealed turn has no known role"))?,
            blocks: self
                .blocks
                .into_iter()
                .map(|b| match b {
                    StoredBlockV1::Text { text } => Block::Text(text),
                    StoredBlockV1::ToolUse { id, name, input } => {
                        Block::ToolUse { id, name, input }
                    }
                    StoredBlockV1::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    },
                })
                .collect(),
        })
    }
}

impl AssistantVault for AesVault {
    fn seal_turn(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        seq: u32,
        turn: &Turn,
    ) -> Result<SealedTurn, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = Zeroizing::new(
            serde_json::to_vec(&StoredTurnV1::from_domain(turn))
                .map_err(|_| fail("turn does not encode"))?,
        );
        seal(&keys.seal, &plain, &turn_aad(tenant, conversation, seq)).map(SealedTurn)
    }

    fn open_turn(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        seq: u32,
        sealed: &SealedTurn,
    ) -> Result<Turn, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = open(&keys.seal, &sealed.0, &turn_aad(tenant, conversation, seq))
            .map_err(|_| fail("sealed turn does not open at this place"))?;
        let stored: StoredTurnV1 =
            serde_json::from_slice(&plain).map_err(|_| fail("sealed turn is not a stored turn"))?;
        stored.into_domain()
    }

    fn seal_title(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        title: &str,
    ) -> Result<SealedTitle, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        seal(
            &keys.seal,
            title.as_bytes(),
            &title_aad(tenant, conversation),
        )
        .map(SealedTitle)
    }

    fn open_title(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        conversation: &ConversationId,
        sealed: &SealedTitle,
    ) -> Result<String, CryptoError> {
        let keys = self.tenant_keys(tenant, key)?;
        let plain = open(&keys.seal, &sealed.0, &title_aad(tenant, conversation))
            .map_err(|_| fail("sealed title does not open for this conversation"))?;
        String::from_utf8(plain.to_vec()).map_err(|_| fail("sealed title is not text"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::MasterKey;
    use domain::subjects::ports::IdentifierVault;

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    fn turn() -> Turn {
        Turn {
            role: Role::Assistant,
            blocks: vec![
                Block::Text("Exempel AB har två styrelseledamöter.".into()),
                Block::ToolUse {
                    id: "toolu_01".into(),
                    name: "get_company".into(),
                    input: r#"{"country":"SE","orgnr":"5560021361"}"#.into(),
                },
                Block::ToolResult {
                    tool_use_id: "toolu_01".into(),
                    content: r#"{"name":"Exempel AB","city":"Stockholm"}"#.into(),
                    is_error: false,
                },
                Block::ToolResult {
                    tool_use_id: "toolu_02".into(),
                    content: "scope_missing".into(),
                    is_error: true,
                },
            ],
        }
    }

    #[test]
    fn a_turn_and_a_title_round_trip_sealed() {
        let v = AesVault::from_master_key(&MasterKey::generate());
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let c = ConversationId::generate();
        for original in [turn(), Turn::user_text("Vem äger Exempel AB?")] {
            let sealed = v.seal_turn(&t, &k, &c, 3, &original).unwrap();
            assert_eq!(v.open_turn(&t, &k, &c, 3, &sealed).unwrap(), original);
            // Sealing is randomised.
            assert_ne!(v.seal_turn(&t, &k, &c, 3, &original).unwrap(), sealed);
        }
        let title = v.seal_title(&t, &k, &c, "Vem äger Exempel AB?").unwrap();
        assert_eq!(
            v.open_title(&t, &k, &c, &title).unwrap(),
            "Vem äger Exempel AB?"
        );
    }

    #[test]
    fn a_sealed_turn_moved_to_another_place_conversation_or_tenant_does_not_open() {
        let v = AesVault::from_master_key(&MasterKey::generate());
        let (a, b) = (TenantId::generate(), TenantId::generate());
        let (ka, kb) = (v.new_data_key(&a).unwrap(), v.new_data_key(&b).unwrap());
        let (c, other) = (ConversationId::generate(), ConversationId::generate());
        let sealed = v.seal_turn(&a, &ka, &c, 3, &turn()).unwrap();
        assert!(v.open_turn(&a, &ka, &c, 4, &sealed).is_err(), "another seq");
        assert!(v.open_turn(&a, &ka, &c, 2, &sealed).is_err(), "another seq");
        assert!(
            v.open_turn(&a, &ka, &other, 3, &sealed).is_err(),
            "another conversation"
        );
        assert!(
            v.open_turn(&b, &kb, &c, 3, &sealed).is_err(),
            "another tenant"
        );
        assert!(
            v.open_turn(&b, &ka, &c, 3, &sealed).is_err(),
            "another tenant"
        );
        // A title opens as its conversation's title only, and never as a turn.
        let title = v.seal_title(&a, &ka, &c, "En titel").unwrap();
        assert!(v.open_title(&a, &ka, &other, &title).is_err());
        assert!(v.open_title(&b, &kb, &c, &title).is_err());
        assert!(v.open_turn(&a, &ka, &c, 0, &SealedTurn(title.0)).is_err());
        assert!(v.open_title(&a, &ka, &c, &SealedTitle(sealed.0)).is_err());
    }

    #[test]
    fn the_ciphertext_holds_none_of_the_plaintext() {
        let v = AesVault::from_master_key(&MasterKey::generate());
        let t = TenantId::generate();
        let k = v.new_data_key(&t).unwrap();
        let c = ConversationId::generate();
        let sealed = v.seal_turn(&t, &k, &c, 0, &turn()).unwrap();
        for needle in [
            "Exempel AB",
            "styrelseledam",
            "get_company",
            "toolu_01",
            "5560021361",
            "Stockholm",
            "assistant",
            "tool_use",
        ] {
            assert!(!contains(&sealed.0, needle.as_bytes()), "{needle}");
        }
        let title = v.seal_title(&t, &k, &c, "Vem äger Exempel AB?").unwrap();
        assert!(!contains(&title.0, b"Exempel AB"));
    }
}
