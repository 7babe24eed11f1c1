-- A portal user's actions are rows of the tenant's audit log (surface `portal`): the actor is
-- the portal user, and `grant_id` is the grant the action concerned, or '' for none.
ALTER TABLE audit_log ADD COLUMN portal_user_id text;
-- The portal's audit page pages a tenant's rows newest first, by grant when filtered.
CREATE INDEX audit_log_by_grant ON audit_log (tenant_id, grant_id, audit_id);
