-- Rollups of the usage ledger per hour and per UTC day; see 005_usage_rollup.sqlite.sql, which
-- this file mirrors. Here the trigger runs once per INSERT statement over its transition table (the
-- rows actually inserted), so a ledger batch costs one upsert per group, not one per row. Groups
-- are upserted in key order, so instances writing at once take their row locks in the same order.

CREATE TABLE usage_hourly (
  hour BIGINT NOT NULL,
  app TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  operation TEXT NOT NULL,
  front_door TEXT NOT NULL,
  requests BIGINT NOT NULL,
  errors BIGINT NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (hour, app, provider, model, operation, front_door)
);

CREATE TABLE usage_daily (
  day BIGINT NOT NULL,
  app TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  operation TEXT NOT NULL,
  front_door TEXT NOT NULL,
  requests BIGINT NOT NULL,
  errors BIGINT NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (day, app, provider, model, operation, front_door)
);

-- Request latency as a histogram per provider and model (which one is slow; per app it would
-- multiply the rows by the apps): bin = floor(ln(1 + latency_ms) * 8), bins about 13% wide.
CREATE TABLE usage_latency_hourly (
  hour BIGINT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  bin INTEGER NOT NULL,
  requests BIGINT NOT NULL,
  PRIMARY KEY (hour, provider, model, bin)
);

CREATE TABLE usage_latency_daily (
  day BIGINT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  bin INTEGER NOT NULL,
  requests BIGINT NOT NULL,
  PRIMARY KEY (day, provider, model, bin)
);

-- Requests refused by an app's limits (they never run, so they leave no ledger row).
CREATE TABLE limit_refusals_hourly (
  hour BIGINT NOT NULL,
  app TEXT NOT NULL,
  limit_name TEXT NOT NULL,
  refusals BIGINT NOT NULL,
  PRIMARY KEY (hour, app, limit_name)
);

-- Recent failed requests, newest first, without reading the successful ones.
CREATE INDEX usage_requests_failures ON usage_requests (created_at) WHERE status >= 400;

-- No ledger row may land between the trigger's creation and the backfill.
LOCK TABLE usage_requests IN SHARE ROW EXCLUSIVE MODE;

CREATE FUNCTION usage_requests_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_hourly AS r (hour, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
  SELECT created_at / 3600000 * 3600000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
    COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (hour, app, provider, model, operation, front_door) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    tokens_in = r.tokens_in + EXCLUDED.tokens_in,
    tokens_out = r.tokens_out + EXCLUDED.tokens_out,
    cost_usd = r.cost_usd + EXCLUDED.cost_usd;
  INSERT INTO usage_latency_hourly AS l (hour, provider, model, bin, requests)
  SELECT created_at / 3600000 * 3600000, COALESCE(provider, ''), COALESCE(model, ''),
    floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
  FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (hour, provider, model, bin) DO UPDATE SET requests = l.requests + EXCLUDED.requests;
  INSERT INTO usage_daily AS r (day, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
  SELECT created_at / 86400000 * 86400000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
    COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (day, app, provider, model, operation, front_door) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    tokens_in = r.tokens_in + EXCLUDED.tokens_in,
    tokens_out = r.tokens_out + EXCLUDED.tokens_out,
    cost_usd = r.cost_usd + EXCLUDED.cost_usd;
  INSERT INTO usage_latency_daily AS l (day, provider, model, bin, requests)
  SELECT created_at / 86400000 * 86400000, COALESCE(provider, ''), COALESCE(model, ''),
    floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
  FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, provider, model, bin) DO UPDATE SET requests = l.requests + EXCLUDED.requests;
  RETURN NULL;
END
$$;

CREATE TRIGGER usage_requests_rollup AFTER INSERT ON usage_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_requests_rollup();

INSERT INTO usage_hourly (hour, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
SELECT created_at / 3600000 * 3600000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
  COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
FROM usage_requests GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO usage_latency_hourly (hour, provider, model, bin, requests)
SELECT created_at / 3600000 * 3600000, COALESCE(provider, ''), COALESCE(model, ''),
  floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
FROM usage_requests GROUP BY 1, 2, 3, 4;

INSERT INTO usage_daily (day, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
SELECT created_at / 86400000 * 86400000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
  COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
FROM usage_requests GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO usage_latency_daily (day, provider, model, bin, requests)
SELECT created_at / 86400000 * 86400000, COALESCE(provider, ''), COALESCE(model, ''),
  floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
FROM usage_requests GROUP BY 1, 2, 3, 4;
