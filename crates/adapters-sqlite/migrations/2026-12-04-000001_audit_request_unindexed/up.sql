-- Nothing reads the audit trail by request id (the log is read by tenant, grant, route and
-- time), and every answered request's commit kept this index too. PostgreSQL never had it.
DROP INDEX audit.audit_log_by_request;
