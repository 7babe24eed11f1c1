DROP TABLE company_documents;
DROP TABLE company_profiles;
ALTER TABLE call_records DROP COLUMN usable, DROP COLUMN operation;
