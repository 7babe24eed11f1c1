-- Idempotency keys of consumers' writes (`Idempotency-Key`): per tenant, named by an HMAC
-- of the key under the tenant's key (never the key's text), with the keyed fingerprint of
-- the first request and, once answered, its answer sealed under the tenant's key. Kept 24
-- hours from the first request (`expires_at`); a running claim holds the key until
-- `locked_until`, after which a retry of the same request takes it over.
CREATE TABLE idempotency_keys (
    tenant_id    text        NOT NULL REFERENCES tenants (tenant_id),
    key_hash     text        NOT NULL,
    fingerprint  text        NOT NULL,
    state        text        NOT NULL CHECK (state IN ('running', 'answered')),
    locked_until timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    answer       bytea,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, key_hash),
    CHECK ((state = 'answered') = (answer IS NOT NULL))
);

-- The purge finds expired keys across tenants.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
