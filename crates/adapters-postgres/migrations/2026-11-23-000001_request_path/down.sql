CREATE INDEX grants_by_grant_id ON grants (grant_id);
DROP INDEX client_credentials_by_grant;
DROP INDEX subjects_by_merged_into;
