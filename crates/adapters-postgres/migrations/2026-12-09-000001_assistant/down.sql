ALTER TABLE audit_log DROP COLUMN conversation_id;
DROP TABLE assistant_model_calls;
DROP TABLE assistant_turns;
DROP TABLE assistant_conversations;
