ALTER TABLE screening_override_versions
    DROP COLUMN pep_after_office_months,
    DROP COLUMN peps_screened;

ALTER TABLE screening_policy_versions
    DROP COLUMN pep_after_office_months,
    DROP COLUMN peps_screened;
