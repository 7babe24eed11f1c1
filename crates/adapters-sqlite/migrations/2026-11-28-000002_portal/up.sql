-- The tenant portal's sign-in, as PostgreSQL keeps it: users, the one-time links mailed to
-- them and the sessions a link opens, links and sessions by the SHA-256 of their token.
CREATE TABLE portal_users (
    tenant_id   TEXT    NOT NULL REFERENCES tenants (tenant_id),
    user_id     TEXT    NOT NULL,
    email       TEXT    NOT NULL,
    role        TEXT    NOT NULL CHECK (role IN ('admin', 'member')),
    created_at  INTEGER NOT NULL,
    created_by  TEXT,
    disabled_at INTEGER,
    PRIMARY KEY (tenant_id, user_id),
    UNIQUE (tenant_id, email)
) STRICT;
CREATE INDEX portal_users_by_email ON portal_users (email);

CREATE TABLE portal_links (
    tenant_id      TEXT    NOT NULL,
    link_digest    BLOB    NOT NULL,
    user_id        TEXT    NOT NULL,
    binding_digest BLOB    NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER,
    PRIMARY KEY (tenant_id, link_digest),
    FOREIGN KEY (tenant_id, user_id) REFERENCES portal_users (tenant_id, user_id)
) STRICT;
CREATE INDEX portal_links_by_digest ON portal_links (link_digest);
CREATE INDEX portal_links_of_user ON portal_links (tenant_id, user_id, created_at);

CREATE TABLE portal_sessions (
    tenant_id      TEXT    NOT NULL,
    session_digest BLOB    NOT NULL,
    user_id        TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    last_seen_at   INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    ended_at       INTEGER,
    PRIMARY KEY (tenant_id, session_digest),
    FOREIGN KEY (tenant_id, user_id) REFERENCES portal_users (tenant_id, user_id)
) STRICT;
CREATE INDEX portal_sessions_by_digest ON portal_sessions (session_digest);
