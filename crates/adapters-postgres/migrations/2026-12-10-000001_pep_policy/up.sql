-- PEP screening: a policy version says whether PEP lists are screened and how many months
-- after leaving office a position still counts (at least the 12 EU law sets); a tenant's
-- override may change either (NULL keeps the policy's). Versions published before keep
-- the defaults: PEP lists screened, a 12-month window.
ALTER TABLE screening_policy_versions
    ADD COLUMN peps_screened boolean NOT NULL DEFAULT true,
    ADD COLUMN pep_after_office_months integer NOT NULL DEFAULT 12
        CHECK (pep_after_office_months BETWEEN 12 AND 600);

ALTER TABLE screening_override_versions
    ADD COLUMN peps_screened boolean,
    ADD COLUMN pep_after_office_months integer
        CHECK (pep_after_office_months BETWEEN 12 AND 600);
