-- Every answer names its subject's aliases (the ids merged into it), so the merge pointer is
-- read on the request path: index it. Partial, as only merged subjects carry one.
CREATE INDEX subjects_by_merged_into ON subjects (tenant_id, merged_into)
    WHERE merged_into IS NOT NULL;

-- Operator commands name a grant by its id alone: they find its tenant in the credential
-- directory (a global table), and from there on every grant query is scoped by tenant. The
-- global index on grants by id alone goes.
CREATE UNIQUE INDEX client_credentials_by_grant ON client_credentials (grant_id);
DROP INDEX grants_by_grant_id;
