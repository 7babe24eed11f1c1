-- The portal assistant, as PostgreSQL keeps it: a portal user's conversations (the title
-- sealed), their turns at their places (each sealed; deleted with their conversation), and
-- the model calls a tenant made each day. Times in microseconds, days as YYYY-MM-DD.
CREATE TABLE assistant_conversations (
    tenant_id       TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,
    portal_user_id  TEXT    NOT NULL,
    grant_id        TEXT    NOT NULL,
    title           BLOB    NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id),
    FOREIGN KEY (tenant_id, portal_user_id) REFERENCES portal_users (tenant_id, user_id)
) STRICT;
CREATE INDEX assistant_conversations_of_user
    ON assistant_conversations (tenant_id, portal_user_id, updated_at DESC);
CREATE INDEX assistant_conversations_by_use ON assistant_conversations (updated_at);

CREATE TABLE assistant_turns (
    tenant_id       TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,
    seq             INTEGER NOT NULL CHECK (seq >= 0),
    written_at      INTEGER NOT NULL,
    sealed          BLOB    NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, seq),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES assistant_conversations (tenant_id, conversation_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE assistant_model_calls (
    tenant_id TEXT    NOT NULL REFERENCES tenants (tenant_id),
    day       TEXT    NOT NULL,
    calls     INTEGER NOT NULL CHECK (calls >= 0),
    PRIMARY KEY (tenant_id, day)
) STRICT;

ALTER TABLE audit.audit_log ADD COLUMN conversation_id TEXT;
