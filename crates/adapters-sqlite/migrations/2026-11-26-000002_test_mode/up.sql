-- Test mode, as PostgreSQL keeps it: the tenant's mode and a live tenant's test twin.
ALTER TABLE tenants ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE tenants ADD COLUMN test_tenant_id TEXT;

-- Screening checks stay append-only for live tenants; a test twin's checks are deleted when
-- the operator wipes its data.
DROP TRIGGER screening_checks_no_delete;
CREATE TRIGGER screening_checks_no_delete BEFORE DELETE ON screening_checks
WHEN (SELECT mode FROM tenants WHERE tenant_id = OLD.tenant_id) IS NOT 'test'
BEGIN
    SELECT RAISE(ABORT, 'screening checks are append-only (DELETE refused)');
END;
