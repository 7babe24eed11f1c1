DROP TABLE sanctions_list_changes;
-- (A check made by ongoing screening has no grant; it cannot be kept under NOT NULL.)
ALTER TABLE screening_checks ALTER COLUMN grant_id SET NOT NULL;
