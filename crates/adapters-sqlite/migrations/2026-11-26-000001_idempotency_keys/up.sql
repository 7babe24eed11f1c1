-- Idempotency keys of consumers' writes, as PostgreSQL keeps them (times in microseconds
-- UTC, the sealed answer as a BLOB).
CREATE TABLE idempotency_keys (
    tenant_id    TEXT    NOT NULL REFERENCES tenants (tenant_id),
    key_hash     TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    state        TEXT    NOT NULL CHECK (state IN ('running', 'answered')),
    locked_until INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    answer       BLOB,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key_hash),
    CHECK ((state = 'answered') = (answer IS NOT NULL))
) STRICT;

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
