DROP TABLE sanctions_import_failures;
DROP TABLE sanctions_active_lists;
DROP TABLE sanctions_entries;
DROP TABLE sanctions_source_versions;
