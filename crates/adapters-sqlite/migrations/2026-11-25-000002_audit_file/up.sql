-- The audit trail moves into a file of its own, attached to every connection as `audit`
-- (`<store>.audit.sqlite3` beside the store; see database.rs).
--
-- Every answered request appends its audit row, and in WAL mode a commit to a file makes
-- every other connection drop its page cache for that file at its next read. With the trail
-- in the same file as the data, each request's reads started from a cold cache; in a file
-- of its own, the trail's commits leave the data's pages cached. The tables keep their names
-- (unqualified names find them in `audit`), columns and keys; rows written before move with
-- them.
CREATE TABLE audit.audit_log (
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
CREATE INDEX audit.audit_log_by_time ON audit_log (tenant_id, occurred_at);
CREATE INDEX audit.audit_log_by_request ON audit_log (request_id);

CREATE TABLE audit.access_log (
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

CREATE TABLE audit.security_log (
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
CREATE INDEX audit.security_log_by_time ON security_log (occurred_at);

INSERT INTO audit.audit_log SELECT * FROM main.audit_log;
INSERT INTO audit.access_log SELECT * FROM main.access_log;
INSERT INTO audit.security_log SELECT * FROM main.security_log;
DROP TABLE main.audit_log;
DROP TABLE main.access_log;
DROP TABLE main.security_log;
