-- Monitoring runs: what each subscription last saw, purges after retention, and the
-- per-tenant retention period.

-- The retention period after a subscription ends (Limits 4: default 90 days, per tenant).
ALTER TABLE tenants
    ADD COLUMN retention_days integer NOT NULL DEFAULT 90
        CHECK (retention_days BETWEEN 1 AND 3650);

-- The subscription an event belongs to (lifecycle and change events), so a purge finds its
-- events by index rather than by reading payloads.
ALTER TABLE events ADD COLUMN subscription_id text;
UPDATE events SET subscription_id = data ->> 'subscription_id'
    WHERE data ? 'subscription_id';
CREATE INDEX events_by_subscription ON events (tenant_id, subscription_id)
    WHERE subscription_id IS NOT NULL;

-- When a subscription's tenant-private data was purged (retention passed after its end).
ALTER TABLE subscriptions ADD COLUMN purged_at timestamptz;
CREATE INDEX subscriptions_purge_due ON subscriptions (purge_after)
    WHERE purge_after IS NOT NULL AND purged_at IS NULL;

-- What monitoring last saw of a subscription's subject, one row per part (the profile, the
-- officers and signatory rule, the beneficial owners). The next run diffs against it, and
-- the run's change events and the new reading are written in one transaction, so a crash
-- never loses a change nor reports one twice. Consumers' own reads never move it. Persons
-- appear in it only as the tenant's refs.
CREATE TABLE monitoring_baselines (
    tenant_id       text        NOT NULL,
    subscription_id text        NOT NULL,
    part            text        NOT NULL CHECK (part IN ('profile', 'officers', 'owners')),
    reading         jsonb       NOT NULL,
    taken_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, subscription_id, part),
    FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, subscription_id)
);
