-- A subject's subscriptions of any status (its canonical id and its aliases) are read on
-- every subscribe and with a subject's reads. Only the partial index of unended ones had the
-- subject, so PostgreSQL walked every subscription of the tenant to find them: 9 ms at
-- 10,000 subscriptions, growing with the tenant. SQLite has sought them since 2026-12-03.
CREATE INDEX subscriptions_by_subject ON subscriptions (tenant_id, subject_id);
-- A subject's aliases, sought already in subject order, as on SQLite.
DROP INDEX subjects_by_merged_into;
CREATE INDEX subjects_by_merged_into ON subjects (tenant_id, merged_into, subject_id)
    WHERE merged_into IS NOT NULL;
