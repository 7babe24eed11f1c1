-- The portal assistant: a portal user's conversations, their turns, and the model calls a
-- tenant made each day.

-- A conversation's head: whose it is and when it was last used. Its grant bounds what the
-- assistant does in it: a grant of the tenant or of its test twin, so it has no foreign key.
-- The title is sealed under the tenant's data key, bound to the conversation.
CREATE TABLE assistant_conversations (
    tenant_id       text        NOT NULL,
    conversation_id text        NOT NULL,
    portal_user_id  text        NOT NULL,
    grant_id        text        NOT NULL,
    title           bytea       NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id),
    FOREIGN KEY (tenant_id, portal_user_id) REFERENCES portal_users (tenant_id, user_id)
);
-- A user's conversations, most recently used first.
CREATE INDEX assistant_conversations_of_user
    ON assistant_conversations (tenant_id, portal_user_id, updated_at DESC);
-- The retention purge: conversations last used before a cutoff, every tenant's.
CREATE INDEX assistant_conversations_by_use ON assistant_conversations (updated_at);

-- A conversation's turns at their places (`seq`), each sealed under the tenant's data key and
-- bound to its conversation and place. A place is taken once: a second writer of the same
-- place is refused by the key. Deleted with their conversation.
CREATE TABLE assistant_turns (
    tenant_id       text        NOT NULL,
    conversation_id text        NOT NULL,
    seq             integer     NOT NULL CHECK (seq >= 0),
    written_at      timestamptz NOT NULL,
    sealed          bytea       NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, seq),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES assistant_conversations (tenant_id, conversation_id) ON DELETE CASCADE
);

-- The model calls a tenant made on a day (the service's budget day): a spend is one statement
-- that adds one only while the count is below the allowance, so concurrent spends serialise
-- on the row and never pass it.
CREATE TABLE assistant_model_calls (
    tenant_id text    NOT NULL REFERENCES tenants (tenant_id),
    day       date    NOT NULL,
    calls     integer NOT NULL CHECK (calls >= 0),
    PRIMARY KEY (tenant_id, day)
);

-- A row of a tool call the assistant made names the conversation it was made in.
ALTER TABLE audit_log ADD COLUMN conversation_id text;
