-- The audit trail back into the store's own file.
CREATE TABLE main.audit_log (
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
CREATE INDEX main.audit_log_by_time ON audit_log (tenant_id, occurred_at);
CREATE INDEX main.audit_log_by_request ON audit_log (request_id);

CREATE TABLE main.access_log (
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

CREATE TABLE main.security_log (
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
CREATE INDEX main.security_log_by_time ON security_log (occurred_at);

INSERT INTO main.audit_log SELECT * FROM audit.audit_log;
INSERT INTO main.access_log SELECT * FROM audit.access_log;
INSERT INTO main.security_log SELECT * FROM audit.security_log;
DROP TABLE audit.audit_log;
DROP TABLE audit.access_log;
DROP TABLE audit.security_log;
