ALTER TABLE audit_log DROP COLUMN oauth_client;
DROP TABLE oauth_connections;
DROP TABLE oauth_authorizations;
DROP TABLE oauth_clients;
