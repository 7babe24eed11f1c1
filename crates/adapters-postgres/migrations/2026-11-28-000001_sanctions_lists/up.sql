-- Sanctions lists: immutable imported versions, which one of each list is active, and
-- failed imports. Reference data shared by every tenant: not tenant-owned.

-- One imported version of a list. A version never changes after its import; the same file
-- (digest) is stored once per list.
CREATE TABLE sanctions_source_versions (
    version_id    text        PRIMARY KEY,
    source        text        NOT NULL,
    digest        text        NOT NULL,
    published_at  timestamptz,
    imported_at   timestamptz NOT NULL,
    entry_count   integer     NOT NULL CHECK (entry_count > 0),
    skipped_count integer     NOT NULL CHECK (skipped_count >= 0),
    UNIQUE (source, digest)
);

-- A version's entries in import order; `entry` is the list's record as the readers read it.
CREATE TABLE sanctions_entries (
    version_id      text    NOT NULL REFERENCES sanctions_source_versions (version_id),
    ordinal         integer NOT NULL,
    source_entry_id text    NOT NULL,
    kind            text    NOT NULL,
    entry           jsonb   NOT NULL,
    PRIMARY KEY (version_id, ordinal)
);

-- The version of each list that checks run against; replaced only by a complete import.
CREATE TABLE sanctions_active_lists (
    source       text        PRIMARY KEY,
    version_id   text        NOT NULL REFERENCES sanctions_source_versions (version_id),
    activated_at timestamptz NOT NULL
);

-- Imports that failed; one after the active version's activation makes the list degraded.
CREATE TABLE sanctions_import_failures (
    source       text        NOT NULL,
    attempted_at timestamptz NOT NULL,
    reason       text        NOT NULL,
    PRIMARY KEY (source, attempted_at)
);
