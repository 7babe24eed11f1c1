DROP TABLE person_lookups;
DROP TABLE person_profiles;
