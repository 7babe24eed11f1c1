-- The embedded store: the same data model as the PostgreSQL migrations (`migrations/`), in
-- SQLite's types. Times are INTEGER microseconds since the Unix epoch, UTC (exact, sortable);
-- dates are TEXT `YYYY-MM-DD`; lists (`text[]` in PostgreSQL) and JSON documents are TEXT
-- holding JSON; bytes are BLOB. Every table is STRICT, so a value of another type is refused
-- rather than stored. Keys and unique indexes are those of PostgreSQL: every tenant-owned
-- table leads them with tenant_id. No column holds a raw personal number.

CREATE TABLE tenants (
    tenant_id             TEXT    NOT NULL PRIMARY KEY,
    name                  TEXT    NOT NULL,
    own_country           TEXT    NOT NULL,
    provisioned_countries TEXT    NOT NULL CHECK (json_valid(provisioned_countries)),
    status                TEXT    NOT NULL CHECK (status IN ('pending', 'active')),
    data_key              BLOB    NOT NULL,
    daily_paid_calls      INTEGER NOT NULL DEFAULT 1000 CHECK (daily_paid_calls >= 0),
    monitoring_share      REAL    NOT NULL DEFAULT 0.5
                                  CHECK (monitoring_share >= 0 AND monitoring_share <= 1),
    person_lookup_ceiling INTEGER NOT NULL DEFAULT 500 CHECK (person_lookup_ceiling >= 0),
    retention_days        INTEGER NOT NULL DEFAULT 90
                                  CHECK (retention_days >= 1 AND retention_days <= 3650),
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;

CREATE TABLE permits (
    tenant_id   TEXT    NOT NULL REFERENCES tenants (tenant_id),
    permit_id   TEXT    NOT NULL,
    valid_from  TEXT    NOT NULL,
    valid_to    TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('active', 'suspended')),
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, permit_id),
    CHECK (valid_to >= valid_from)
) STRICT;

CREATE TABLE grants (
    tenant_id             TEXT    NOT NULL REFERENCES tenants (tenant_id),
    grant_id              TEXT    NOT NULL,
    client_id             TEXT    NOT NULL,
    scopes                TEXT    NOT NULL CHECK (json_valid(scopes)),
    countries             TEXT    NOT NULL
                                  CHECK (json_valid(countries) AND json_array_length(countries) > 0),
    expires_at            INTEGER,
    revoked_at            INTEGER,
    secret_hash           TEXT    NOT NULL,
    credential_generation INTEGER NOT NULL DEFAULT 1,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, grant_id)
) STRICT;

CREATE TABLE client_credentials (
    client_id TEXT NOT NULL PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    grant_id  TEXT NOT NULL,
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id)
) STRICT;
CREATE UNIQUE INDEX client_credentials_by_grant ON client_credentials (grant_id);

CREATE TABLE call_records (
    tenant_id        TEXT    NOT NULL REFERENCES tenants (tenant_id),
    call_ref         TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    route            TEXT,
    status           INTEGER,
    upstream_ref     TEXT,
    digest           TEXT,
    schema_version   TEXT,
    cost             INTEGER NOT NULL DEFAULT 0,
    source_timestamp INTEGER NOT NULL,
    retrieved_at     INTEGER NOT NULL,
    operation        TEXT,
    usable           INTEGER NOT NULL DEFAULT 1 CHECK (usable IN (0, 1)),
    PRIMARY KEY (tenant_id, call_ref)
) STRICT;

CREATE TABLE subjects (
    tenant_id   TEXT    NOT NULL REFERENCES tenants (tenant_id),
    subject_id  TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('person', 'company')),
    merged_into TEXT,
    call_ref    TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
) STRICT;
CREATE INDEX subjects_by_merged_into ON subjects (tenant_id, merged_into)
    WHERE merged_into IS NOT NULL;

CREATE TABLE subject_identifiers (
    tenant_id      TEXT    NOT NULL,
    identifier_ref TEXT    NOT NULL,
    subject_id     TEXT    NOT NULL,
    id_type        TEXT    NOT NULL,
    country        TEXT    NOT NULL,
    blind_index    BLOB    NOT NULL,
    sealed_value   BLOB    NOT NULL,
    valid_from     INTEGER NOT NULL,
    valid_to       INTEGER,
    PRIMARY KEY (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
) STRICT;
CREATE UNIQUE INDEX subject_identifiers_by_blind_index
    ON subject_identifiers (tenant_id, blind_index);
CREATE INDEX subject_identifiers_by_subject ON subject_identifiers (tenant_id, subject_id);

CREATE TABLE customer_refs (
    tenant_id  TEXT    NOT NULL,
    ref        TEXT    NOT NULL,
    subject_id TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
) STRICT;
CREATE INDEX customer_refs_by_subject ON customer_refs (tenant_id, subject_id);

CREATE TABLE audit_log (
    tenant_id   TEXT    NOT NULL,
    audit_id    TEXT    NOT NULL,
    grant_id    TEXT    NOT NULL,
    request_id  TEXT    NOT NULL,
    occurred_at INTEGER NOT NULL,
    surface     TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    method      TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    tool        TEXT,
    status      INTEGER NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('allowed', 'refused', 'failed')),
    error_code  TEXT,
    detail      TEXT,
    PRIMARY KEY (tenant_id, audit_id)
) STRICT;
CREATE INDEX audit_log_by_time ON audit_log (tenant_id, occurred_at);
CREATE INDEX audit_log_by_request ON audit_log (request_id);

CREATE TABLE access_log (
    tenant_id   TEXT    NOT NULL,
    grant_id    TEXT    NOT NULL,
    access_id   TEXT    NOT NULL,
    request_id  TEXT    NOT NULL,
    occurred_at INTEGER NOT NULL,
    surface     TEXT    NOT NULL,
    method      TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    tool        TEXT,
    status      INTEGER NOT NULL,
    outcome     TEXT    NOT NULL,
    error_code  TEXT,
    PRIMARY KEY (tenant_id, grant_id, access_id)
) STRICT;

CREATE TABLE security_log (
    event_id    TEXT    NOT NULL PRIMARY KEY,
    request_id  TEXT    NOT NULL,
    occurred_at INTEGER NOT NULL,
    method      TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    reason      TEXT    NOT NULL,
    client_id   TEXT,
    peer        TEXT
) STRICT;
CREATE INDEX security_log_by_time ON security_log (occurred_at);

CREATE TABLE company_profiles (
    tenant_id     TEXT    NOT NULL REFERENCES tenants (tenant_id),
    country       TEXT    NOT NULL,
    orgnr         TEXT    NOT NULL,
    subject_id    TEXT    NOT NULL,
    data          TEXT    NOT NULL CHECK (json_valid(data)),
    main_call_ref TEXT    NOT NULL,
    tax_call_ref  TEXT,
    fetched_at    INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, country, orgnr),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, main_call_ref) REFERENCES call_records (tenant_id, call_ref),
    FOREIGN KEY (tenant_id, tax_call_ref) REFERENCES call_records (tenant_id, call_ref)
) STRICT;

CREATE TABLE company_documents (
    tenant_id   TEXT    NOT NULL REFERENCES tenants (tenant_id),
    document_id TEXT    NOT NULL,
    subject_id  TEXT    NOT NULL,
    country     TEXT    NOT NULL,
    seen_at     INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, document_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
) STRICT;

CREATE TABLE paid_objects (
    tenant_id  TEXT    NOT NULL REFERENCES tenants (tenant_id),
    kind       TEXT    NOT NULL CHECK (kind IN ('officers', 'beneficial_owners', 'engagements')),
    country    TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    subject_id TEXT    NOT NULL,
    data       TEXT    NOT NULL CHECK (json_valid(data)),
    call_ref   TEXT    NOT NULL,
    fetched_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kind, country, key),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
) STRICT;

CREATE TABLE paid_call_budget (
    tenant_id      TEXT    NOT NULL REFERENCES tenants (tenant_id),
    day            TEXT    NOT NULL,
    used_on_demand INTEGER NOT NULL DEFAULT 0 CHECK (used_on_demand >= 0),
    used_scheduled INTEGER NOT NULL DEFAULT 0 CHECK (used_scheduled >= 0),
    PRIMARY KEY (tenant_id, day)
) STRICT;

CREATE TABLE person_profiles (
    tenant_id      TEXT    NOT NULL REFERENCES tenants (tenant_id),
    identifier_ref TEXT    NOT NULL,
    subject_id     TEXT    NOT NULL,
    sealed_profile BLOB    NOT NULL,
    call_ref       TEXT    NOT NULL,
    fetched_at     INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, identifier_ref)
        REFERENCES subject_identifiers (tenant_id, identifier_ref),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, call_ref) REFERENCES call_records (tenant_id, call_ref)
) STRICT;

CREATE TABLE person_lookups (
    tenant_id TEXT    NOT NULL REFERENCES tenants (tenant_id),
    day       TEXT    NOT NULL,
    used      INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (tenant_id, day)
) STRICT;

CREATE TABLE event_counters (
    tenant_id TEXT    NOT NULL PRIMARY KEY REFERENCES tenants (tenant_id),
    last_seq  INTEGER NOT NULL DEFAULT 0 CHECK (last_seq >= 0)
) STRICT;

CREATE TABLE events (
    tenant_id       TEXT    NOT NULL REFERENCES tenants (tenant_id),
    seq             INTEGER NOT NULL CHECK (seq > 0),
    event_id        TEXT    NOT NULL,
    idempotency_key TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    country         TEXT    NOT NULL,
    subject_id      TEXT,
    subject_ref     TEXT,
    occurred_at     INTEGER NOT NULL,
    recorded_at     INTEGER NOT NULL,
    data            TEXT    NOT NULL CHECK (json_valid(data)),
    evidence        TEXT    NOT NULL CHECK (json_valid(evidence)),
    subscription_id TEXT,
    PRIMARY KEY (tenant_id, seq),
    UNIQUE (tenant_id, event_id),
    UNIQUE (tenant_id, idempotency_key),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
) STRICT;
CREATE INDEX events_by_subscription ON events (tenant_id, subscription_id)
    WHERE subscription_id IS NOT NULL;

CREATE TABLE subscriptions (
    tenant_id            TEXT    NOT NULL REFERENCES tenants (tenant_id),
    subscription_id      TEXT    NOT NULL,
    subject_id           TEXT    NOT NULL,
    kind                 TEXT    NOT NULL CHECK (kind IN ('person', 'company')),
    legal_basis          TEXT    NOT NULL,
    legal_basis_ref      TEXT,
    status               TEXT    NOT NULL CHECK (status IN ('active', 'suspended', 'ended')),
    check_days           INTEGER NOT NULL CHECK (check_days > 0),
    full_refresh_days    INTEGER NOT NULL CHECK (full_refresh_days > 0),
    country              TEXT    NOT NULL,
    created_at           INTEGER NOT NULL,
    suspended_at         INTEGER,
    suspension_reason    TEXT,
    ended_at             INTEGER,
    purge_after          INTEGER,
    next_run_at          INTEGER,
    claimed_until        INTEGER,
    last_checked_at      INTEGER,
    last_full_refresh_at INTEGER,
    purged_at            INTEGER,
    PRIMARY KEY (tenant_id, subscription_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
) STRICT;
CREATE UNIQUE INDEX subscriptions_one_unended ON subscriptions (tenant_id, subject_id, kind)
    WHERE status <> 'ended';
CREATE INDEX subscriptions_due ON subscriptions (next_run_at) WHERE next_run_at IS NOT NULL;
CREATE INDEX subscriptions_newest ON subscriptions (tenant_id, created_at DESC);
CREATE INDEX subscriptions_purge_due ON subscriptions (purge_after)
    WHERE purge_after IS NOT NULL AND purged_at IS NULL;

CREATE TABLE monitoring_baselines (
    tenant_id       TEXT    NOT NULL,
    subscription_id TEXT    NOT NULL,
    part            TEXT    NOT NULL CHECK (part IN ('profile', 'officers', 'owners')),
    reading         TEXT    NOT NULL CHECK (json_valid(reading)),
    taken_at        INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, subscription_id, part),
    FOREIGN KEY (tenant_id, subscription_id) REFERENCES subscriptions (tenant_id, subscription_id)
) STRICT;

CREATE TABLE sanctions_source_versions (
    version_id    TEXT    NOT NULL PRIMARY KEY,
    source        TEXT    NOT NULL,
    digest        TEXT    NOT NULL,
    published_at  INTEGER,
    imported_at   INTEGER NOT NULL,
    entry_count   INTEGER NOT NULL CHECK (entry_count > 0),
    skipped_count INTEGER NOT NULL CHECK (skipped_count >= 0),
    UNIQUE (source, digest)
) STRICT;

CREATE TABLE sanctions_entries (
    version_id      TEXT    NOT NULL REFERENCES sanctions_source_versions (version_id),
    ordinal         INTEGER NOT NULL,
    source_entry_id TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    entry           TEXT    NOT NULL CHECK (json_valid(entry)),
    PRIMARY KEY (version_id, ordinal)
) STRICT;

CREATE TABLE sanctions_active_lists (
    source       TEXT    NOT NULL PRIMARY KEY,
    version_id   TEXT    NOT NULL REFERENCES sanctions_source_versions (version_id),
    activated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE sanctions_import_failures (
    source       TEXT    NOT NULL,
    attempted_at INTEGER NOT NULL,
    reason       TEXT    NOT NULL,
    PRIMARY KEY (source, attempted_at)
) STRICT;

CREATE TABLE screening_policy_versions (
    policy_version_id    TEXT    NOT NULL PRIMARY KEY,
    version              INTEGER NOT NULL UNIQUE CHECK (version > 0),
    review               REAL    NOT NULL,
    hit                  REAL    NOT NULL,
    birth_date_exact     REAL    NOT NULL,
    birth_date_partial   REAL    NOT NULL,
    birth_date_mismatch  REAL    NOT NULL,
    nationality_match    REAL    NOT NULL,
    nationality_mismatch REAL    NOT NULL,
    country_match        REAL    NOT NULL,
    weak_alias           REAL    NOT NULL,
    created_by           TEXT    NOT NULL,
    created_at           INTEGER NOT NULL,
    active               INTEGER NOT NULL CHECK (active IN (0, 1)),
    CHECK (review > 0 AND review <= hit AND hit <= 1)
) STRICT;
-- At most one active version: a unique index on a constant over the active rows.
CREATE UNIQUE INDEX screening_policy_one_active ON screening_policy_versions ((1))
    WHERE active = 1;

CREATE TABLE screening_override_versions (
    tenant_id            TEXT    NOT NULL REFERENCES tenants (tenant_id),
    override_version_id  TEXT    NOT NULL,
    version              INTEGER NOT NULL CHECK (version > 0),
    review               REAL,
    hit                  REAL,
    birth_date_exact     REAL,
    birth_date_partial   REAL,
    birth_date_mismatch  REAL,
    nationality_match    REAL,
    nationality_mismatch REAL,
    country_match        REAL,
    weak_alias           REAL,
    proposed_by          TEXT    NOT NULL,
    approved_by          TEXT,
    status               TEXT    NOT NULL CHECK (status IN ('draft', 'approved', 'active', 'retired')),
    effective_from       INTEGER,
    created_at           INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, override_version_id),
    UNIQUE (tenant_id, version),
    CHECK ((review IS NULL) = (hit IS NULL)),
    CHECK (approved_by IS NULL OR approved_by <> proposed_by),
    CHECK (status NOT IN ('approved', 'active') OR approved_by IS NOT NULL),
    CHECK (status <> 'active' OR effective_from IS NOT NULL)
) STRICT;
CREATE UNIQUE INDEX screening_override_one_active ON screening_override_versions (tenant_id)
    WHERE status = 'active';

CREATE TABLE screening_whitelist_entries (
    tenant_id          TEXT    NOT NULL REFERENCES tenants (tenant_id),
    whitelist_entry_id TEXT    NOT NULL,
    subject_id         TEXT,
    input_hash         TEXT,
    source             TEXT    NOT NULL,
    source_entry_id    TEXT    NOT NULL,
    reason             TEXT    NOT NULL,
    created_by         TEXT    NOT NULL,
    approved_by        TEXT,
    created_at         INTEGER NOT NULL,
    expires_at         INTEGER NOT NULL,
    revoked_at         INTEGER,
    PRIMARY KEY (tenant_id, whitelist_entry_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    CHECK ((subject_id IS NULL) <> (input_hash IS NULL)),
    CHECK (approved_by IS NULL OR approved_by <> created_by)
) STRICT;
CREATE INDEX screening_whitelist_newest
    ON screening_whitelist_entries (tenant_id, created_at DESC, whitelist_entry_id DESC);

CREATE TABLE screening_checks (
    tenant_id                  TEXT    NOT NULL REFERENCES tenants (tenant_id),
    check_id                   TEXT    NOT NULL,
    grant_id                   TEXT    NOT NULL,
    subject_id                 TEXT,
    visibility                 TEXT,
    input_kind                 TEXT    NOT NULL CHECK (input_kind IN ('subject', 'adhoc')),
    sealed_input               BLOB    NOT NULL,
    has_identifier             INTEGER NOT NULL CHECK (has_identifier IN (0, 1)),
    person_fields_masked       INTEGER NOT NULL CHECK (person_fields_masked IN (0, 1)),
    input_hash                 TEXT,
    input_verified             INTEGER NOT NULL CHECK (input_verified IN (0, 1)),
    band                       TEXT    NOT NULL CHECK (band IN ('clear', 'review', 'hit')),
    policy_version_id          TEXT    NOT NULL
                                       REFERENCES screening_policy_versions (policy_version_id),
    tenant_override_version_id TEXT,
    source_version_ids         TEXT    NOT NULL CHECK (json_valid(source_version_ids)),
    degraded_sources           TEXT    NOT NULL CHECK (json_valid(degraded_sources)),
    truncated_datasets         TEXT    NOT NULL CHECK (json_valid(truncated_datasets)),
    matcher_version            TEXT    NOT NULL,
    checked_at                 INTEGER NOT NULL,
    candidates                 TEXT    NOT NULL CHECK (json_valid(candidates)),
    PRIMARY KEY (tenant_id, check_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, tenant_override_version_id)
        REFERENCES screening_override_versions (tenant_id, override_version_id)
) STRICT;
CREATE INDEX screening_checks_newest ON screening_checks (tenant_id, checked_at DESC, check_id DESC);
CREATE INDEX screening_checks_by_subject ON screening_checks (tenant_id, subject_id, checked_at DESC)
    WHERE subject_id IS NOT NULL;
-- Checks are append-only, beneath the port too.
CREATE TRIGGER screening_checks_no_update BEFORE UPDATE ON screening_checks
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (UPDATE refused)');
END;
CREATE TRIGGER screening_checks_no_delete BEFORE DELETE ON screening_checks
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (DELETE refused)');
END;
