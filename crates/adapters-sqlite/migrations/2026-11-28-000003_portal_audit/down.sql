DROP INDEX audit.audit_log_by_grant;
ALTER TABLE audit.audit_log DROP COLUMN portal_user_id;
