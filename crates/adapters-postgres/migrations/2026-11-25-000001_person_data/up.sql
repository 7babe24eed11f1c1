-- Person data from the population register: the per-tenant person cache and the daily
-- person-lookup counters.

-- One tenant's cached person profiles, keyed by the tenant's identifier_ref the profile was
-- read by. The profile is sealed under the tenant's data key (AES-256-GCM, bound to the
-- tenant): storage never holds person data in the clear, and no table is shared between
-- tenants.
CREATE TABLE person_profiles (
    tenant_id      text        NOT NULL REFERENCES tenants (tenant_id),
    identifier_ref text        NOT NULL,
    subject_id     text        NOT NULL,
    sealed_profile bytea       NOT NULL,
    call_ref       text        NOT NULL,
    fetched_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, identifier_ref) REFERENCES subject_identifiers (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
);

-- The person-lookup ceiling's counter: one row per tenant and day (a calendar day in
-- Europe/Stockholm), apart from the paid company budget. A lookup is one statement that adds
-- to the count only while it stays within the ceiling, so concurrent lookups serialise on
-- the row and never pass it.
CREATE TABLE person_lookups (
    tenant_id text   NOT NULL REFERENCES tenants (tenant_id),
    day       date   NOT NULL,
    used      bigint NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (tenant_id, day)
);
