DROP INDEX company_profiles_subject;
