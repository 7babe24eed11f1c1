CREATE OR REPLACE FUNCTION screening_checks_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'screening checks are append-only (% refused)', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;
ALTER TABLE tenants DROP COLUMN test_tenant_id;
ALTER TABLE tenants DROP COLUMN mode;
