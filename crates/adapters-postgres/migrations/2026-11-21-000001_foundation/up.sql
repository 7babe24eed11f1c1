-- Foundation: tenants, permits, grants and credentials, subjects and identifiers, call
-- records, and the audit, access and security logs.
--
-- Every tenant-owned table leads its primary key and each unique index with tenant_id, so
-- the schema distributes by tenant (Citus) without change. Ids are ULID strings.
-- No column holds a raw personal number: identifiers are stored encrypted under the tenant's
-- data key, found through a keyed blind index.

CREATE TABLE tenants (
    tenant_id              text        PRIMARY KEY,
    name                   text        NOT NULL,
    own_country            text        NOT NULL,
    provisioned_countries  text[]      NOT NULL,
    status                 text        NOT NULL CHECK (status IN ('pending', 'active')),
    -- The tenant's data key, wrapped under the service's master key.
    data_key               bytea       NOT NULL,
    daily_paid_calls       bigint      NOT NULL DEFAULT 1000 CHECK (daily_paid_calls >= 0),
    monitoring_share       double precision NOT NULL DEFAULT 0.5
                               CHECK (monitoring_share >= 0 AND monitoring_share <= 1),
    person_lookup_ceiling  bigint      NOT NULL DEFAULT 500 CHECK (person_lookup_ceiling >= 0),
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    CHECK (own_country = ANY (provisioned_countries))
);

-- Person-register permits. Append-only: the newest row is the tenant's permit, and a
-- reinstated permit is a new row.
CREATE TABLE permits (
    tenant_id   text        NOT NULL REFERENCES tenants (tenant_id),
    permit_id   text        NOT NULL,
    valid_from  date        NOT NULL,
    valid_to    date        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('active', 'suspended')),
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, permit_id),
    CHECK (valid_to >= valid_from)
);

CREATE TABLE grants (
    tenant_id             text        NOT NULL REFERENCES tenants (tenant_id),
    grant_id              text        NOT NULL,
    client_id             text        NOT NULL,
    scopes                text[]      NOT NULL,
    countries             text[]      NOT NULL CHECK (cardinality(countries) > 0),
    expires_at            timestamptz,
    revoked_at            timestamptz,
    -- Argon2id PHC string of the client secret; the secret itself is never stored.
    secret_hash           text        NOT NULL,
    credential_generation integer     NOT NULL DEFAULT 1,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, grant_id)
);
-- Operator commands name a grant by id alone.
CREATE INDEX grants_by_grant_id ON grants (grant_id);

-- The credential directory: which tenant and grant a client id belongs to. A reference
-- table (not tenant-owned): the token endpoint must find the tenant from the client id.
CREATE TABLE client_credentials (
    client_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    grant_id  text NOT NULL,
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id)
);

-- The service's record of each upstream call or identity event; evidence points here.
CREATE TABLE call_records (
    tenant_id        text        NOT NULL REFERENCES tenants (tenant_id),
    call_ref         text        NOT NULL,
    source           text        NOT NULL,
    route            text,
    status           integer,
    upstream_ref     text,
    digest           text,
    schema_version   text,
    cost             integer     NOT NULL DEFAULT 0,
    source_timestamp timestamptz NOT NULL,
    retrieved_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, call_ref)
);

CREATE TABLE subjects (
    tenant_id  text        NOT NULL REFERENCES tenants (tenant_id),
    subject_id text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('person', 'company')),
    -- Set when this subject was merged into another: it stays a valid alias one hop away.
    merged_into text,
    call_ref   text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
);

CREATE TABLE subject_identifiers (
    tenant_id      text        NOT NULL,
    identifier_ref text        NOT NULL,
    subject_id     text        NOT NULL,
    id_type        text        NOT NULL,
    country        text        NOT NULL,
    -- HMAC of the canonical identifier under the tenant's blind-index key.
    blind_index    bytea       NOT NULL,
    -- AES-256-GCM ciphertext of the canonical identifier under the tenant's data key.
    sealed_value   bytea       NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    PRIMARY KEY (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
);
CREATE UNIQUE INDEX subject_identifiers_by_blind_index
    ON subject_identifiers (tenant_id, blind_index);
CREATE INDEX subject_identifiers_by_subject ON subject_identifiers (tenant_id, subject_id);

-- Customer references: many-to-one onto a subject, immutable once set.
CREATE TABLE customer_refs (
    tenant_id  text        NOT NULL,
    ref        text        NOT NULL,
    subject_id text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
);
CREATE INDEX customer_refs_by_subject ON customer_refs (tenant_id, subject_id);

-- The tenant's audit log: one row per authenticated request that reached a route.
CREATE TABLE audit_log (
    tenant_id   text        NOT NULL,
    audit_id    text        NOT NULL,
    grant_id    text        NOT NULL,
    request_id  text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    surface     text        NOT NULL,
    action      text        NOT NULL,
    method      text        NOT NULL,
    route       text        NOT NULL,
    tool        text,
    status      integer     NOT NULL,
    outcome     text        NOT NULL CHECK (outcome IN ('allowed', 'refused', 'failed')),
    error_code  text,
    detail      text,
    PRIMARY KEY (tenant_id, audit_id)
);
CREATE INDEX audit_log_by_time ON audit_log (tenant_id, occurred_at);

-- The per-grant access log: the same requests, keyed for a grant's own history.
CREATE TABLE access_log (
    tenant_id   text        NOT NULL,
    grant_id    text        NOT NULL,
    access_id   text        NOT NULL,
    request_id  text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    surface     text        NOT NULL,
    method      text        NOT NULL,
    route       text        NOT NULL,
    tool        text,
    status      integer     NOT NULL,
    outcome     text        NOT NULL,
    error_code  text,
    PRIMARY KEY (tenant_id, grant_id, access_id)
);

-- Requests that could not be attributed to a grant: no token, a forged or malformed one,
-- unknown client credentials. Not tenant-owned.
CREATE TABLE security_log (
    event_id    text        PRIMARY KEY,
    request_id  text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    method      text        NOT NULL,
    route       text        NOT NULL,
    status      integer     NOT NULL,
    reason      text        NOT NULL,
    client_id   text,
    peer        text
);
CREATE INDEX security_log_by_time ON security_log (occurred_at);
