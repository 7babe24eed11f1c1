DROP TABLE subscriptions;
DROP TABLE events;
DROP TABLE event_counters;
