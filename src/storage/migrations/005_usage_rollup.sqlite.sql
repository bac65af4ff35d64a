-- Rollups of the usage ledger for the dashboard and the admin API, per hour and per UTC day: a
-- 30-day question over a million ledger rows reads 30 days of daily rows (and the hours at the
-- range's edges) instead of the rows themselves. A trigger keeps them in step with usage_requests,
-- inside the ledger's own transaction (a row skipped as a duplicate by ON CONFLICT DO NOTHING fires
-- nothing). Absent provider and model are ''.
-- The PostgreSQL twin of this file (005_usage_rollup.postgres.sql) must stay equivalent.

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

INSERT INTO usage_hourly (hour, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
SELECT CAST(created_at AS INTEGER) / 3600000 * 3600000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
  COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
FROM usage_requests GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO usage_latency_hourly (hour, provider, model, bin, requests)
SELECT CAST(created_at AS INTEGER) / 3600000 * 3600000, COALESCE(provider, ''), COALESCE(model, ''),
  CAST(floor(ln(1 + latency_ms) * 8) AS INTEGER), COUNT(*)
FROM usage_requests GROUP BY 1, 2, 3, 4;

INSERT INTO usage_daily (day, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
SELECT CAST(created_at AS INTEGER) / 86400000 * 86400000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
  COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd)
FROM usage_requests GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO usage_latency_daily (day, provider, model, bin, requests)
SELECT CAST(created_at AS INTEGER) / 86400000 * 86400000, COALESCE(provider, ''), COALESCE(model, ''),
  CAST(floor(ln(1 + latency_ms) * 8) AS INTEGER), COUNT(*)
FROM usage_requests GROUP BY 1, 2, 3, 4;

CREATE TRIGGER usage_requests_rollup AFTER INSERT ON usage_requests
BEGIN
  INSERT INTO usage_hourly (hour, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
  VALUES (CAST(NEW.created_at AS INTEGER) / 3600000 * 3600000, NEW.app, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), NEW.operation, NEW.front_door, 1, CASE WHEN NEW.status >= 400 THEN 1 ELSE 0 END,
    NEW.tokens_in, NEW.tokens_out, NEW.cost_usd)
  ON CONFLICT (hour, app, provider, model, operation, front_door) DO UPDATE SET
    requests = requests + 1,
    errors = errors + excluded.errors,
    tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cost_usd = cost_usd + excluded.cost_usd;
  INSERT INTO usage_latency_hourly (hour, provider, model, bin, requests)
  VALUES (CAST(NEW.created_at AS INTEGER) / 3600000 * 3600000, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), CAST(floor(ln(1 + NEW.latency_ms) * 8) AS INTEGER), 1)
  ON CONFLICT (hour, provider, model, bin) DO UPDATE SET requests = requests + 1;
  INSERT INTO usage_daily (day, app, provider, model, operation, front_door, requests, errors, tokens_in, tokens_out, cost_usd)
  VALUES (CAST(NEW.created_at AS INTEGER) / 86400000 * 86400000, NEW.app, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), NEW.operation, NEW.front_door, 1, CASE WHEN NEW.status >= 400 THEN 1 ELSE 0 END,
    NEW.tokens_in, NEW.tokens_out, NEW.cost_usd)
  ON CONFLICT (day, app, provider, model, operation, front_door) DO UPDATE SET
    requests = requests + 1,
    errors = errors + excluded.errors,
    tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cost_usd = cost_usd + excluded.cost_usd;
  INSERT INTO usage_latency_daily (day, provider, model, bin, requests)
  VALUES (CAST(NEW.created_at AS INTEGER) / 86400000 * 86400000, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), CAST(floor(ln(1 + NEW.latency_ms) * 8) AS INTEGER), 1)
  ON CONFLICT (day, provider, model, bin) DO UPDATE SET requests = requests + 1;
END;
