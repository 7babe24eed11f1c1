DROP TABLE paid_call_budget;
DROP TABLE paid_objects;
