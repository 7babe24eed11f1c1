//! What both wire formats do alike with the port's turns and tools.

use domain::assistant::conversation::{Block, Role, Turn};
use domain::assistant::model::{ModelError, ToolSpec};
use serde_json::Value;

/// The turns as messages: consecutive turns of one role become one message, adjacent text
/// blocks of a turn become one (a streamed answer may be stored delta by delta), empty text
/// is dropped, and a message left with no block is left out.
pub(crate) fn messages(turns: &[Turn]) -> Vec<(Role, Vec<Block>)> {
    let mut out: Vec<(Role, Vec<Block>)> = Vec::new();
    for turn in turns {
        let mut blocks: Vec<Block> = Vec::new();
        for block in &turn.blocks {
            match (block, blocks.last_mut()) {
                (Block::Text(t), _) if t.is_empty() => {}
                (Block::Text(t), Some(Block::Text(last))) => last.push_str(t),
                _ => blocks.push(block.clone()),
            }
        }
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((role, merged)) if *role == turn.role => merged.extend(blocks),
            _ => out.push((turn.role, blocks)),
        }
    }
    out
}

/// A stored tool input as the JSON object the wire wants: `{}` when it is not one (the model
/// was cut off, or the store holds something else).
pub(crate) fn input_object(input: &str) -> Value {
    match serde_json::from_str::<Value>(input) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::Object(Default::default()),
    }
}

/// A tool's input schema as JSON; a schema that is not a JSON object is a fault of the
/// tool's definition, refused before anything is sent.
pub(crate) fn schema(tool: &ToolSpec) -> Result<Value, ModelError> {
    match serde_json::from_str::<Value>(&tool.input_schema) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err(ModelError::Rejected(format!(
            "the input schema of the tool {:?} is not a JSON object",
            tool.name
        ))),
    }
}

/// A streamed tool input as the port passes it on: as accumulated, trimmed, `{}` when empty.
/// It may not be JSON at all (cut off by the token limit): the caller checks before running.
pub(crate) fn tool_input(accumulated: &str) -> String {
    match accumulated.trim() {
        "" => "{}".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// A string field of a JSON object, when it is a string.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// A count field of a JSON object, when it is a non-negative integer.
pub(crate) fn count_field(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Block {
        Block::Text(t.into())
    }

    #[test]
    fn turns_merge_by_role_and_text_by_adjacency() {
        let turns = vec![
            Turn {
                role: Role::User,
                blocks: vec![text("Who "), text("sits"), text(""), text(" on the board?")],
            },
            Turn::user_text("And the auditor?"),
            Turn {
                role: Role::Assistant,
                blocks: vec![text("")],
            },
            Turn {
                role: Role::Assistant,
                blocks: vec![
                    text("Let me "),
                    text("look."),
                    Block::ToolUse {
                        id: "t1".into(),
                        name: "company_profile".into(),
                        input: "{}".into(),
                    },
                ],
            },
        ];
        let merged = messages(&turns);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].0, Role::User);
        assert_eq!(
            merged[0].1,
            vec![text("Who sits on the board?"), text("And the auditor?")]
        );
        assert_eq!(merged[1].0, Role::Assistant);
        assert_eq!(merged[1].1.len(), 2);
        assert_eq!(merged[1].1[0], text("Let me look."));
    }

    #[test]
    fn inputs_that_are_not_objects_become_empty_objects() {
        assert_eq!(input_object(r#"{"a":1}"#), serde_json::json!({"a":1}));
        assert_eq!(input_object(r#"{"a":"#), serde_json::json!({}));
        assert_eq!(input_object("[1]"), serde_json::json!({}));
        assert_eq!(tool_input("  \n"), "{}");
        assert_eq!(tool_input(" {\"a\":1}\n"), "{\"a\":1}");
    }
}
