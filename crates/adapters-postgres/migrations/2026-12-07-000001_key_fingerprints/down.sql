DROP TABLE key_fingerprints;
