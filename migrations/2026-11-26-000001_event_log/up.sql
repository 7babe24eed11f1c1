-- The per-tenant event log.

-- One counter row per tenant: an append locks it (the upsert's row lock, held until the
-- commit), takes the next seq values and writes the new last value in the same transaction,
-- so concurrent writers and replicas never leave a gap or a duplicate, and a rolled-back
-- append leaves no hole.
CREATE TABLE event_counters (
    tenant_id text   PRIMARY KEY REFERENCES tenants (tenant_id),
    last_seq  bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0)
);

-- The log. Readers page by (tenant_id, seq); an idempotency key is appended once per tenant.
-- A purge replaces `data` with {"purged": true} and keeps the envelope.
CREATE TABLE events (
    tenant_id       text        NOT NULL REFERENCES tenants (tenant_id),
    seq             bigint      NOT NULL CHECK (seq > 0),
    event_id        text        NOT NULL,
    idempotency_key text        NOT NULL,
    type            text        NOT NULL,
    country         text        NOT NULL,
    subject_id      text,
    subject_ref     text,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL,
    data            jsonb       NOT NULL,
    evidence        jsonb       NOT NULL,
    PRIMARY KEY (tenant_id, seq),
    UNIQUE (tenant_id, event_id),
    UNIQUE (tenant_id, idempotency_key),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
);
