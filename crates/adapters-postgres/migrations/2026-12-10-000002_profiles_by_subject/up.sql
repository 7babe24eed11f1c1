-- Ongoing screening reads the names of a page of monitored companies at once, by their
-- subjects: a tenant's cached profiles by subject.
CREATE INDEX company_profiles_subject ON company_profiles (tenant_id, subject_id);
