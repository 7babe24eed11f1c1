-- A subject's aliases are read on every company read (the cached profile's handle) and with
-- every subscription, in subject order. The index by `merged_into` alone made SQLite's planner
-- prefer the primary key for that order, and walk every subject of the tenant to find the
-- few merged ones; with the subject id in the index it seeks the aliases, already in order.
DROP INDEX subjects_by_merged_into;
CREATE INDEX subjects_by_merged_into ON subjects (tenant_id, merged_into, subject_id)
    WHERE merged_into IS NOT NULL;
-- A subject's subscriptions of any status (its canonical id and its aliases), sought rather
-- than found by walking the tenant's subscriptions.
CREATE INDEX subscriptions_by_subject ON subscriptions (tenant_id, subject_id);
