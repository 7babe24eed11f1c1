-- The paid company-registry tier: the per-tenant cache of paid objects and the daily
-- paid-call budget's counters.

-- One tenant's cached paid objects: officers and signatory rule, beneficial owners (keyed by
-- the company code) and a person's engagements (keyed by the tenant's identifier_ref). The
-- data holds the tenant's identifier_refs, never a personal number. No cross-tenant store.
CREATE TABLE paid_objects (
    tenant_id  text        NOT NULL REFERENCES tenants (tenant_id),
    kind       text        NOT NULL CHECK (kind IN ('officers', 'beneficial_owners', 'engagements')),
    country    text        NOT NULL,
    key        text        NOT NULL,
    subject_id text        NOT NULL,
    data       jsonb       NOT NULL,
    call_ref   text        NOT NULL,
    fetched_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, kind, country, key),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
);

-- The daily paid-call budget: one row per tenant and budget day (a calendar day in
-- Europe/Stockholm), counting on-demand reads and scheduled monitoring apart. A spend is one
-- statement that adds to a part only while the part stays within its cap, so concurrent
-- spends serialise on the row and never overspend.
CREATE TABLE paid_call_budget (
    tenant_id      text   NOT NULL REFERENCES tenants (tenant_id),
    day            date   NOT NULL,
    used_on_demand bigint NOT NULL DEFAULT 0 CHECK (used_on_demand >= 0),
    used_scheduled bigint NOT NULL DEFAULT 0 CHECK (used_scheduled >= 0),
    PRIMARY KEY (tenant_id, day)
);
