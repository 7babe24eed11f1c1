-- The keys this store was first used with, as fingerprints (never the keys): every process
-- compares its own with this row at start and refuses to serve on a mismatch, so replicas
-- cannot fork the store by running under different keys. One row at most.
CREATE TABLE key_fingerprints (
    id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    signing text NOT NULL,
    master text NOT NULL,
    recorded_at timestamptz NOT NULL,
    signing_replaced_at timestamptz
);
