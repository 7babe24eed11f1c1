-- A company profile holds what any country's register gives: the tax registrations are a
-- field group like the others, absent (and named in the profile's `unchecked`) when no
-- source checked them, as for a country whose connectors have no tax source.
ALTER TABLE company_profiles ALTER COLUMN tax_call_ref DROP NOT NULL;
