-- Webhooks, as PostgreSQL keeps them: a consumer's endpoints, each a cursor into its
-- tenant's event log, and each endpoint's delivery log (one row per attempt).
CREATE TABLE webhook_endpoints (
    tenant_id         TEXT    NOT NULL REFERENCES tenants (tenant_id),
    endpoint_id       TEXT    NOT NULL,
    grant_id          TEXT    NOT NULL,
    url               TEXT    NOT NULL,
    -- Event type names (a JSON array), NULL for every type.
    types             TEXT    CHECK (types IS NULL OR json_valid(types)),
    description       TEXT,
    -- The signing secret, sealed under the tenant's data key (never in the clear).
    sealed_secret     BLOB    NOT NULL,
    status            TEXT    NOT NULL CHECK (status IN ('active', 'disabled')),
    disabled_reason   TEXT    CHECK (disabled_reason IN ('consumer', 'failing', 'grant_lapsed')),
    disabled_at       INTEGER,
    cursor_seq        INTEGER NOT NULL CHECK (cursor_seq >= 0),
    failures          INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    failing_since     INTEGER,
    next_attempt_at   INTEGER NOT NULL,
    claimed_until     INTEGER,
    attempts          INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL,
    secret_rotated_at INTEGER,
    PRIMARY KEY (tenant_id, endpoint_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id),
    CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
) STRICT;
CREATE INDEX webhook_endpoints_of_grant ON webhook_endpoints (tenant_id, grant_id, created_at);
CREATE INDEX webhook_endpoints_due ON webhook_endpoints (next_attempt_at) WHERE status = 'active';

CREATE TABLE webhook_deliveries (
    tenant_id       TEXT    NOT NULL,
    endpoint_id     TEXT    NOT NULL,
    number          INTEGER NOT NULL CHECK (number > 0),
    event_id        TEXT    NOT NULL,
    seq             INTEGER NOT NULL,
    type            TEXT    NOT NULL,
    attempt         INTEGER NOT NULL CHECK (attempt > 0),
    attempted_at    INTEGER NOT NULL,
    outcome         TEXT    NOT NULL CHECK (outcome IN ('delivered', 'refused', 'failed')),
    status_code     INTEGER,
    error           TEXT,
    duration_ms     INTEGER NOT NULL,
    next_attempt_at INTEGER,
    PRIMARY KEY (tenant_id, endpoint_id, number),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, endpoint_id)
) STRICT;
