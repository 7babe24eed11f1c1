DROP TABLE monitoring_baselines;
DROP INDEX subscriptions_purge_due;
ALTER TABLE subscriptions DROP COLUMN purged_at;
DROP INDEX events_by_subscription;
ALTER TABLE events DROP COLUMN subscription_id;
ALTER TABLE tenants DROP COLUMN retention_days;
