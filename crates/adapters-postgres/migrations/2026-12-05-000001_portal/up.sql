-- The tenant portal's sign-in: its users, the one-time links mailed to them, and the sessions
-- a link opens. Tokens are never stored: links and sessions are kept by the SHA-256 of their
-- token, and a link by the SHA-256 of the binding cookie of the browser that asked for it.

CREATE TABLE portal_users (
    tenant_id   text        NOT NULL REFERENCES tenants (tenant_id),
    user_id     text        NOT NULL,
    -- Lower case; one user per address within a tenant.
    email       text        NOT NULL,
    role        text        NOT NULL CHECK (role IN ('admin', 'member')),
    created_at  timestamptz NOT NULL,
    -- The portal user who added this one; NULL when the operator did.
    created_by  text,
    disabled_at timestamptz,
    PRIMARY KEY (tenant_id, user_id),
    UNIQUE (tenant_id, email)
);
-- A sign-in names an address, not a tenant.
CREATE INDEX portal_users_by_email ON portal_users (email);

CREATE TABLE portal_links (
    tenant_id      text        NOT NULL,
    link_digest    bytea       NOT NULL,
    user_id        text        NOT NULL,
    binding_digest bytea       NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz,
    PRIMARY KEY (tenant_id, link_digest),
    FOREIGN KEY (tenant_id, user_id) REFERENCES portal_users (tenant_id, user_id)
);
-- A link is redeemed by its token alone; the limit counts a user's recent links.
CREATE INDEX portal_links_by_digest ON portal_links (link_digest);
CREATE INDEX portal_links_of_user ON portal_links (tenant_id, user_id, created_at);

CREATE TABLE portal_sessions (
    tenant_id      text        NOT NULL,
    session_digest bytea       NOT NULL,
    user_id        text        NOT NULL,
    created_at     timestamptz NOT NULL,
    last_seen_at   timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    PRIMARY KEY (tenant_id, session_digest),
    FOREIGN KEY (tenant_id, user_id) REFERENCES portal_users (tenant_id, user_id)
);
-- A request names its session by its cookie alone.
CREATE INDEX portal_sessions_by_digest ON portal_sessions (session_digest);
