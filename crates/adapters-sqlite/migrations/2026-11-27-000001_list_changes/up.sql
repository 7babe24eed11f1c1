-- Ongoing screening, as PostgreSQL keeps it: every change of a list's active version, and
-- how far its re-screening has gone.
CREATE TABLE sanctions_list_changes (
    change_id             TEXT    NOT NULL PRIMARY KEY,
    source                TEXT    NOT NULL,
    from_version_id       TEXT    REFERENCES sanctions_source_versions (version_id),
    to_version_id         TEXT    NOT NULL REFERENCES sanctions_source_versions (version_id),
    activated_at          INTEGER NOT NULL,
    claimed_until         INTEGER,
    after_tenant_id       TEXT,
    after_subscription_id TEXT,
    done_at               INTEGER,
    CHECK ((after_tenant_id IS NULL) = (after_subscription_id IS NULL))
) STRICT;

CREATE INDEX sanctions_list_changes_pending ON sanctions_list_changes (activated_at, change_id)
    WHERE done_at IS NULL;

-- A check the service makes on its own (ongoing screening of a monitored subject) was run by
-- no consumer's grant: `grant_id` is NULL for it. SQLite changes a column's constraint by
-- rebuilding the table (no other table refers to it; dropping it fires no trigger).
CREATE TABLE screening_checks_rebuilt (
    tenant_id                  TEXT    NOT NULL REFERENCES tenants (tenant_id),
    check_id                   TEXT    NOT NULL,
    grant_id                   TEXT,
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
INSERT INTO screening_checks_rebuilt SELECT * FROM screening_checks;
DROP TABLE screening_checks;
ALTER TABLE screening_checks_rebuilt RENAME TO screening_checks;
CREATE INDEX screening_checks_newest ON screening_checks (tenant_id, checked_at DESC, check_id DESC);
CREATE INDEX screening_checks_by_subject ON screening_checks (tenant_id, subject_id, checked_at DESC)
    WHERE subject_id IS NOT NULL;
-- Checks are append-only, beneath the port too (a test twin's may be deleted).
CREATE TRIGGER screening_checks_no_update BEFORE UPDATE ON screening_checks
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (UPDATE refused)');
END;
CREATE TRIGGER screening_checks_no_delete BEFORE DELETE ON screening_checks
WHEN (SELECT mode FROM tenants WHERE tenant_id = OLD.tenant_id) IS NOT 'test'
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (DELETE refused)');
END;
