-- Agent connections, as PostgreSQL keeps them: clients and pending requests (global), and the
-- connections a person's consent made, beside their grants. Times in microseconds.
CREATE TABLE oauth_clients (
    client_id     TEXT    PRIMARY KEY,
    registration  TEXT    NOT NULL CHECK (registration IN ('dynamic', 'metadata_document')),
    client_name   TEXT    NOT NULL,
    client_uri    TEXT,
    redirect_uris TEXT    NOT NULL,
    grant_types   TEXT    NOT NULL,
    auth_method   TEXT    NOT NULL,
    scope         TEXT,
    secret_hash   TEXT,
    metadata_key  TEXT,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    fresh_until   INTEGER
) STRICT;
CREATE INDEX oauth_clients_unused ON oauth_clients (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX oauth_clients_by_metadata ON oauth_clients (metadata_key)
    WHERE metadata_key IS NOT NULL;

CREATE TABLE oauth_authorizations (
    request_digest BLOB    PRIMARY KEY,
    client_id      TEXT    NOT NULL,
    redirect_uri   TEXT    NOT NULL,
    state          TEXT,
    code_challenge TEXT    NOT NULL,
    resource       TEXT    NOT NULL,
    scopes         TEXT    NOT NULL,
    fresh_login    INTEGER NOT NULL,
    issuer         TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    decided_at     INTEGER
) STRICT;
CREATE INDEX oauth_authorizations_by_expiry ON oauth_authorizations (expires_at);

CREATE TABLE oauth_connections (
    tenant_id          TEXT    NOT NULL,
    grant_id           TEXT    NOT NULL,
    client_id          TEXT    NOT NULL,
    client_name        TEXT    NOT NULL,
    consented_by       TEXT    NOT NULL,
    resource           TEXT    NOT NULL,
    redirect_uri       TEXT    NOT NULL,
    code_challenge     TEXT    NOT NULL,
    code_digest        BLOB    NOT NULL,
    code_expires_at    INTEGER NOT NULL,
    code_used_at       INTEGER,
    refresh_generation INTEGER NOT NULL DEFAULT 0 CHECK (refresh_generation >= 0),
    refresh_rotated_at INTEGER,
    refresh_expires_at INTEGER,
    created_at         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, grant_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id)
) STRICT;
CREATE INDEX oauth_connections_by_person
    ON oauth_connections (tenant_id, consented_by, client_id);

ALTER TABLE audit.audit_log ADD COLUMN oauth_client TEXT;
