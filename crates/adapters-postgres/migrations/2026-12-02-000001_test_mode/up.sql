-- Test mode: a live tenant's test twin is a tenant of its own (`mode = 'test'`), whose grants'
-- credentials say so and whose requests are served by the sandbox connectors. The live
-- tenant names its twin (`test_tenant_id`); no foreign key, as between any two tenants
-- (a distributed schema places them apart), the adapter writes both in one transaction
-- under the live tenant's row lock.
ALTER TABLE tenants ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE tenants ADD COLUMN test_tenant_id text;

-- Screening checks stay append-only for live tenants; a test twin's checks are deleted when
-- the operator wipes its data.
CREATE OR REPLACE FUNCTION screening_checks_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND EXISTS (
        SELECT 1 FROM tenants t WHERE t.tenant_id = OLD.tenant_id AND t.mode = 'test'
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'screening checks are append-only (% refused)', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
