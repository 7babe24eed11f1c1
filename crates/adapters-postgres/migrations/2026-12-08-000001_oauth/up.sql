-- Agent connections: the OAuth authorization-code flow, consented in the portal.

-- Clients of the flow, global (a client is known before any tenant is): registered
-- dynamically (RFC 7591), or read from their Client ID Metadata Document. Redirect URIs one per
-- line (they hold no white space), grant types space-separated.
CREATE TABLE oauth_clients (
    client_id    text        PRIMARY KEY,
    registration text        NOT NULL CHECK (registration IN ('dynamic', 'metadata_document')),
    client_name  text        NOT NULL,
    client_uri   text,
    redirect_uris text       NOT NULL,
    grant_types  text        NOT NULL,
    auth_method  text        NOT NULL,
    scope        text,
    -- Argon2id PHC string of a confidential client's secret; never the secret.
    secret_hash  text,
    -- A public dynamic client's metadata in one string: the same registration sent again is
    -- answered with the same client.
    metadata_key text,
    created_at   timestamptz NOT NULL,
    -- An unused dynamic registration lapses then; NULL once a person consented to it.
    expires_at   timestamptz,
    -- A metadata document is read again after this.
    fresh_until  timestamptz
);
CREATE INDEX oauth_clients_unused ON oauth_clients (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX oauth_clients_by_metadata ON oauth_clients (metadata_key)
    WHERE metadata_key IS NOT NULL;

-- Authorization requests waiting for a person's decision (ten minutes), keyed by the SHA-256
-- of the id the consent page's address carries. No tenant is known yet.
CREATE TABLE oauth_authorizations (
    request_digest bytea       PRIMARY KEY,
    client_id      text        NOT NULL,
    redirect_uri   text        NOT NULL,
    state          text,
    code_challenge text        NOT NULL,
    resource       text        NOT NULL,
    scopes         text        NOT NULL,
    fresh_login    boolean     NOT NULL,
    issuer         text        NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    decided_at     timestamptz
);
CREATE INDEX oauth_authorizations_by_expiry ON oauth_authorizations (expires_at);

-- What a consent made: a grant of the tenant bound to one client, its one code (kept as its
-- SHA-256) and its refresh family (the generation now current).
CREATE TABLE oauth_connections (
    tenant_id          text        NOT NULL,
    grant_id           text        NOT NULL,
    client_id          text        NOT NULL,
    client_name        text        NOT NULL,
    consented_by       text        NOT NULL,
    resource           text        NOT NULL,
    redirect_uri       text        NOT NULL,
    code_challenge     text        NOT NULL,
    code_digest        bytea       NOT NULL,
    code_expires_at    timestamptz NOT NULL,
    code_used_at       timestamptz,
    refresh_generation integer     NOT NULL DEFAULT 0 CHECK (refresh_generation >= 0),
    refresh_rotated_at timestamptz,
    refresh_expires_at timestamptz,
    created_at         timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, grant_id),
    FOREIGN KEY (tenant_id, grant_id) REFERENCES grants (tenant_id, grant_id)
);
CREATE INDEX oauth_connections_by_person
    ON oauth_connections (tenant_id, consented_by, client_id);

-- A portal row of an agent connection's step names its client.
ALTER TABLE audit_log ADD COLUMN oauth_client text;
