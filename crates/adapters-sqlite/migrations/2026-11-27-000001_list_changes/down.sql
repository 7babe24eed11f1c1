DROP TABLE sanctions_list_changes;
