DROP INDEX subscriptions_by_subject;
DROP INDEX subjects_by_merged_into;
CREATE INDEX subjects_by_merged_into ON subjects (tenant_id, merged_into)
    WHERE merged_into IS NOT NULL;
