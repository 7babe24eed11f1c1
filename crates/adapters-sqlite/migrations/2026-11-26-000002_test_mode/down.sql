DROP TRIGGER screening_checks_no_delete;
CREATE TRIGGER screening_checks_no_delete BEFORE DELETE ON screening_checks
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (DELETE refused)');
END;
ALTER TABLE tenants DROP COLUMN test_tenant_id;
ALTER TABLE tenants DROP COLUMN mode;
