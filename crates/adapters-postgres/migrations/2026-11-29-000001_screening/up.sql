-- Screening: the service's policy versions, tenants' override versions and whitelists, and
-- the append-only checks. Policy versions are the service's (not tenant-owned); everything
-- else leads its primary key and unique indexes with tenant_id. Ids are ULID strings.
-- Thresholds and weights are double precision columns: they read back bit for bit.

-- The service's policy versions; at most one is active (none: no check can run).
CREATE TABLE screening_policy_versions (
    policy_version_id    text             PRIMARY KEY,
    version              integer          NOT NULL UNIQUE CHECK (version > 0),
    review               double precision NOT NULL,
    hit                  double precision NOT NULL,
    birth_date_exact     double precision NOT NULL,
    birth_date_partial   double precision NOT NULL,
    birth_date_mismatch  double precision NOT NULL,
    nationality_match    double precision NOT NULL,
    nationality_mismatch double precision NOT NULL,
    country_match        double precision NOT NULL,
    weak_alias           double precision NOT NULL,
    created_by           text             NOT NULL,
    created_at           timestamptz      NOT NULL,
    active               boolean          NOT NULL,
    CHECK (review > 0 AND review <= hit AND hit <= 1)
);
CREATE UNIQUE INDEX screening_policy_one_active
    ON screening_policy_versions ((true)) WHERE active;

-- A tenant's override versions: draft → approved (by another operator) → active → retired.
-- One active per tenant (the partial unique index). An override sets both thresholds or
-- neither, and any weights (NULL keeps the policy's).
CREATE TABLE screening_override_versions (
    tenant_id            text             NOT NULL REFERENCES tenants (tenant_id),
    override_version_id  text             NOT NULL,
    version              integer          NOT NULL CHECK (version > 0),
    review               double precision,
    hit                  double precision,
    birth_date_exact     double precision,
    birth_date_partial   double precision,
    birth_date_mismatch  double precision,
    nationality_match    double precision,
    nationality_mismatch double precision,
    country_match        double precision,
    weak_alias           double precision,
    proposed_by          text             NOT NULL,
    approved_by          text,
    status               text             NOT NULL
                             CHECK (status IN ('draft', 'approved', 'active', 'retired')),
    effective_from       timestamptz,
    created_at           timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, override_version_id),
    UNIQUE (tenant_id, version),
    CHECK ((review IS NULL) = (hit IS NULL)),
    -- Four eyes: approved by someone else, and nothing beyond a draft without approval.
    CHECK (approved_by IS NULL OR approved_by <> proposed_by),
    CHECK (status NOT IN ('approved', 'active') OR approved_by IS NOT NULL),
    CHECK (status <> 'active' OR effective_from IS NOT NULL)
);
CREATE UNIQUE INDEX screening_override_one_active
    ON screening_override_versions (tenant_id) WHERE status = 'active';

-- A tenant's whitelist: one list entry cleared for a subject or for an input (its keyed
-- hash), made and approved by two operators, expiring, revocable.
CREATE TABLE screening_whitelist_entries (
    tenant_id          text        NOT NULL REFERENCES tenants (tenant_id),
    whitelist_entry_id text        NOT NULL,
    subject_id         text,
    input_hash         text,
    source             text        NOT NULL,
    source_entry_id    text        NOT NULL,
    reason             text        NOT NULL,
    created_by         text        NOT NULL,
    approved_by        text,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    revoked_at         timestamptz,
    PRIMARY KEY (tenant_id, whitelist_entry_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    CHECK ((subject_id IS NULL) <> (input_hash IS NULL)),
    CHECK (approved_by IS NULL OR approved_by <> created_by)
);
CREATE INDEX screening_whitelist_newest
    ON screening_whitelist_entries (tenant_id, created_at DESC, whitelist_entry_id DESC);

-- Checks: append-only (the trigger below refuses UPDATE, DELETE and TRUNCATE). The input is
-- sealed under the tenant's key; `candidates` is the matcher's result as the check keeps it.
CREATE TABLE screening_checks (
    tenant_id                  text        NOT NULL REFERENCES tenants (tenant_id),
    check_id                   text        NOT NULL,
    grant_id                   text        NOT NULL,
    subject_id                 text,
    -- The country that bounds who may read the check; NULL: every grant of the tenant.
    visibility                 text,
    input_kind                 text        NOT NULL CHECK (input_kind IN ('subject', 'adhoc')),
    sealed_input               bytea       NOT NULL,
    has_identifier             boolean     NOT NULL,
    person_fields_masked       boolean     NOT NULL,
    input_hash                 text,
    input_verified             boolean     NOT NULL,
    band                       text        NOT NULL CHECK (band IN ('clear', 'review', 'hit')),
    policy_version_id          text        NOT NULL
                                   REFERENCES screening_policy_versions (policy_version_id),
    tenant_override_version_id text,
    source_version_ids         text[]      NOT NULL,
    degraded_sources           text[]      NOT NULL,
    truncated_datasets         text[]      NOT NULL,
    matcher_version            text        NOT NULL,
    checked_at                 timestamptz NOT NULL,
    candidates                 jsonb       NOT NULL,
    PRIMARY KEY (tenant_id, check_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, tenant_override_version_id)
        REFERENCES screening_override_versions (tenant_id, override_version_id)
);
CREATE INDEX screening_checks_newest
    ON screening_checks (tenant_id, checked_at DESC, check_id DESC);
CREATE INDEX screening_checks_by_subject
    ON screening_checks (tenant_id, subject_id, checked_at DESC)
    WHERE subject_id IS NOT NULL;

CREATE FUNCTION screening_checks_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'screening checks are append-only (% refused)', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER screening_checks_append_only
    BEFORE UPDATE OR DELETE ON screening_checks
    FOR EACH ROW EXECUTE FUNCTION screening_checks_append_only();
CREATE TRIGGER screening_checks_no_truncate
    BEFORE TRUNCATE ON screening_checks
    FOR EACH STATEMENT EXECUTE FUNCTION screening_checks_append_only();
