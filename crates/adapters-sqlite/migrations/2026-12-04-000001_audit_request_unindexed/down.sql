CREATE INDEX audit.audit_log_by_request ON audit_log (request_id);
