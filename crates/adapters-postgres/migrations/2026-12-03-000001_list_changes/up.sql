-- Ongoing screening: every change of a list's active version, recorded in the transaction
-- that makes it, then worked once through every active subscription. Reference data shared
-- by every tenant; the cursor names the last subscription worked, `(tenant, subscription)`.
CREATE TABLE sanctions_list_changes (
    change_id             text        PRIMARY KEY,
    source                text        NOT NULL,
    from_version_id       text        REFERENCES sanctions_source_versions (version_id),
    to_version_id         text        NOT NULL REFERENCES sanctions_source_versions (version_id),
    activated_at          timestamptz NOT NULL,
    claimed_until         timestamptz,
    after_tenant_id       text,
    after_subscription_id text,
    done_at               timestamptz,
    CHECK ((after_tenant_id IS NULL) = (after_subscription_id IS NULL))
);

-- The changes not yet worked, oldest first (what a claim reads).
CREATE INDEX sanctions_list_changes_pending ON sanctions_list_changes (activated_at, change_id)
    WHERE done_at IS NULL;

-- A check the service makes on its own (ongoing screening of a monitored subject) was run by
-- no consumer's grant: `grant_id` is NULL for it.
ALTER TABLE screening_checks ALTER COLUMN grant_id DROP NOT NULL;
