-- An index on usage_requests by time alone, for retention: its hourly delete (`created_at <
-- cutoff`) had no index to use and read the whole table each time (about 160 ms for 300,000
-- rows on SQLite, where the read held the event loop; linear in the ledger's size). Keys arrive in
-- time order, so each insert appends at the index's right edge. On PostgreSQL, building it on a
-- large ledger holds writes to the table for as long as it takes, once.
CREATE INDEX IF NOT EXISTS usage_requests_created ON usage_requests (created_at);
