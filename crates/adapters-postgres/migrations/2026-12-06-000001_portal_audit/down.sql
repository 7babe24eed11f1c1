DROP INDEX audit_log_by_grant;
ALTER TABLE audit_log DROP COLUMN portal_user_id;
