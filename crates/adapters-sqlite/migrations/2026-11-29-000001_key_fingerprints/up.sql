-- The keys this store was first used with, as fingerprints (never the keys): every process
-- compares its own with this row at start and refuses to serve on a mismatch. One row at most.
-- Times in microseconds since the epoch, as every table here.
CREATE TABLE key_fingerprints (
    id INTEGER NOT NULL PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    signing TEXT NOT NULL,
    master TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    signing_replaced_at INTEGER
);
