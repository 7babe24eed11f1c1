-- Profiles without tax registrations cannot be kept under the old rule.
DELETE FROM company_profiles WHERE tax_call_ref IS NULL;
ALTER TABLE company_profiles ALTER COLUMN tax_call_ref SET NOT NULL;
