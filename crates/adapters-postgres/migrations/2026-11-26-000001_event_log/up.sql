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

-- Monitoring subscriptions. One that has not ended per subject and kind (the partial unique
-- index makes concurrent creates race safely: one wins). The scheduler claims due ones by
-- `next_run_at` (NULL once ended).
CREATE TABLE subscriptions (
    tenant_id         text        NOT NULL REFERENCES tenants (tenant_id),
    subscription_id   text        NOT NULL,
    subject_id        text        NOT NULL,
    kind              text        NOT NULL CHECK (kind IN ('person', 'company')),
    legal_basis       text        NOT NULL,
    legal_basis_ref   text,
    status            text        NOT NULL CHECK (status IN ('active', 'suspended', 'ended')),
    check_days        integer     NOT NULL CHECK (check_days > 0),
    full_refresh_days integer     NOT NULL CHECK (full_refresh_days > 0),
    country           text        NOT NULL,
    created_at        timestamptz NOT NULL,
    suspended_at      timestamptz,
    suspension_reason text,
    ended_at          timestamptz,
    purge_after       timestamptz,
    next_run_at       timestamptz,
    -- A replica that claimed the due run holds it until then (a lease: a replica that dies
    -- mid-run leaves it to be claimed again once the lease has passed).
    claimed_until     timestamptz,
    last_checked_at   timestamptz,
    last_full_refresh_at timestamptz,
    PRIMARY KEY (tenant_id, subscription_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
);
CREATE UNIQUE INDEX subscriptions_one_unended
    ON subscriptions (tenant_id, subject_id, kind) WHERE status <> 'ended';
CREATE INDEX subscriptions_due ON subscriptions (next_run_at) WHERE next_run_at IS NOT NULL;
CREATE INDEX subscriptions_newest ON subscriptions (tenant_id, created_at DESC);
