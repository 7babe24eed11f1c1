DROP TABLE screening_checks;
DROP FUNCTION screening_checks_append_only();
DROP TABLE screening_whitelist_entries;
DROP TABLE screening_override_versions;
DROP TABLE screening_policy_versions;
