-- Webhooks: a consumer's endpoints, each a cursor into its tenant's event log that the
-- dispatcher advances by pushing, and each endpoint's delivery log (one row per attempt).

CREATE TABLE webhook_endpoints (
    tenant_id         text        NOT NULL REFERENCES tenants (tenant_id),
    endpoint_id       text        NOT NULL,
    -- The grant that registered it: it alone sees it, and it delivers what that grant reads.
    grant_id          text        NOT NULL,
    url               text        NOT NULL,
    -- Event type names (a JSON array), NULL for every type.
    types             jsonb,
    description       text,
    -- The signing secret, sealed under the tenant's data key (never in the clear).
    sealed_secret     bytea       NOT NULL,
    status            text        NOT NULL CHECK (status IN ('active', 'disabled')),
    disabled_reason   text        CHECK (disabled_reason IN ('consumer', 'failing', 'grant_lapsed')),
    disabled_at       timestamptz,
    -- The seq of the last event delivered or passed over.
    cursor_seq        bigint      NOT NULL CHECK (cursor_seq >= 0),
    failures          integer     NOT NULL DEFAULT 0 CHECK (failures >= 0),
    failing_since     timestamptz,
    next_attempt_at   timestamptz NOT NULL,
    -- A replica's dispatcher holds the endpoint until then.
    claimed_until     timestamptz,
    -- How many attempts the delivery log holds (the last one's number).
    attempts          bigint      NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    secret_rotated_at timestamptz,
    PRIMARY KEY (tenant_id, endpoint_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id),
    CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
);
CREATE INDEX webhook_endpoints_of_grant ON webhook_endpoints (tenant_id, grant_id, created_at);
-- What the dispatcher's claim reads: the active endpoints by due time.
CREATE INDEX webhook_endpoints_due ON webhook_endpoints (next_attempt_at) WHERE status = 'active';

CREATE TABLE webhook_deliveries (
    tenant_id       text        NOT NULL,
    endpoint_id     text        NOT NULL,
    -- The attempt's number in the endpoint's log.
    number          bigint      NOT NULL CHECK (number > 0),
    event_id        text        NOT NULL,
    seq             bigint      NOT NULL,
    type            text        NOT NULL,
    attempt         integer     NOT NULL CHECK (attempt > 0),
    attempted_at    timestamptz NOT NULL,
    outcome         text        NOT NULL CHECK (outcome IN ('delivered', 'refused', 'failed')),
    status_code     integer,
    error           text,
    duration_ms     bigint      NOT NULL,
    next_attempt_at timestamptz,
    PRIMARY KEY (tenant_id, endpoint_id, number),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, endpoint_id)
);
