-- The agent round's ledger columns (CONTRACT 5.3, 5.5, 5.6, 5.7), written once for every feature
-- that fills them, so that the rollup trigger is rebuilt once:
--   prompt-cache tokens (5.3): cache reads and 5-minute / 1-hour writes, per request and attempt;
--   the response cache (5.5): whether the answer was a hit, and the cost it saved;
--   deployments (5.6): which deployment of a slot served the request (never its key);
--   the MCP gateway (5.7): the server and tool of an `mcp_tool` row.
-- The rollups gain the cache measures and two grouping columns, `deployment` and `tool`
-- (`server__tool` for MCP calls), '' when absent; existing rollup rows keep their sums, with zeros.
-- MCP calls stay out of the latency histogram, which describes the models' latency.
-- The PostgreSQL twin of this file (007_agent_round_ledger.postgres.sql) must stay equivalent.

ALTER TABLE usage_requests ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_requests ADD COLUMN cache_write_5m_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_requests ADD COLUMN cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_requests ADD COLUMN cache_hit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_requests ADD COLUMN cost_saved_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE usage_requests ADD COLUMN deployment TEXT;
ALTER TABLE usage_requests ADD COLUMN mcp_server TEXT;
ALTER TABLE usage_requests ADD COLUMN mcp_tool TEXT;

ALTER TABLE usage_attempts ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_attempts ADD COLUMN cache_write_5m_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_attempts ADD COLUMN cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_attempts ADD COLUMN deployment TEXT;

DROP TRIGGER usage_requests_rollup;

CREATE TABLE usage_hourly_007 (
  hour BIGINT NOT NULL,
  app TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  operation TEXT NOT NULL,
  front_door TEXT NOT NULL,
  deployment TEXT NOT NULL,
  tool TEXT NOT NULL,
  requests BIGINT NOT NULL,
  errors BIGINT NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  cache_read_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  cache_hits BIGINT NOT NULL,
  cost_saved_usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (hour, app, provider, model, operation, front_door, deployment, tool)
);
INSERT INTO usage_hourly_007
SELECT hour, app, provider, model, operation, front_door, '', '', requests, errors, tokens_in, tokens_out, cost_usd, 0, 0, 0, 0
FROM usage_hourly;
DROP TABLE usage_hourly;
ALTER TABLE usage_hourly_007 RENAME TO usage_hourly;

CREATE TABLE usage_daily_007 (
  day BIGINT NOT NULL,
  app TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  operation TEXT NOT NULL,
  front_door TEXT NOT NULL,
  deployment TEXT NOT NULL,
  tool TEXT NOT NULL,
  requests BIGINT NOT NULL,
  errors BIGINT NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  cache_read_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  cache_hits BIGINT NOT NULL,
  cost_saved_usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (day, app, provider, model, operation, front_door, deployment, tool)
);
INSERT INTO usage_daily_007
SELECT day, app, provider, model, operation, front_door, '', '', requests, errors, tokens_in, tokens_out, cost_usd, 0, 0, 0, 0
FROM usage_daily;
DROP TABLE usage_daily;
ALTER TABLE usage_daily_007 RENAME TO usage_daily;

CREATE TRIGGER usage_requests_rollup AFTER INSERT ON usage_requests
BEGIN
  INSERT INTO usage_hourly (hour, app, provider, model, operation, front_door, deployment, tool, requests, errors,
    tokens_in, tokens_out, cost_usd, cache_read_tokens, cache_write_tokens, cache_hits, cost_saved_usd)
  VALUES (CAST(NEW.created_at AS INTEGER) / 3600000 * 3600000, NEW.app, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), NEW.operation, NEW.front_door, COALESCE(NEW.deployment, ''),
    COALESCE(NEW.mcp_server || '__' || NEW.mcp_tool, ''), 1, CASE WHEN NEW.status >= 400 THEN 1 ELSE 0 END,
    NEW.tokens_in, NEW.tokens_out, NEW.cost_usd, NEW.cache_read_tokens,
    NEW.cache_write_5m_tokens + NEW.cache_write_1h_tokens, NEW.cache_hit, NEW.cost_saved_usd)
  ON CONFLICT (hour, app, provider, model, operation, front_door, deployment, tool) DO UPDATE SET
    requests = requests + 1,
    errors = errors + excluded.errors,
    tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cost_usd = cost_usd + excluded.cost_usd,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    cache_hits = cache_hits + excluded.cache_hits,
    cost_saved_usd = cost_saved_usd + excluded.cost_saved_usd;
  INSERT INTO usage_latency_hourly (hour, provider, model, bin, requests)
  SELECT CAST(NEW.created_at AS INTEGER) / 3600000 * 3600000, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), CAST(floor(ln(1 + NEW.latency_ms) * 8) AS INTEGER), 1
  WHERE NEW.operation <> 'mcp_tool'
  ON CONFLICT (hour, provider, model, bin) DO UPDATE SET requests = requests + 1;
  INSERT INTO usage_daily (day, app, provider, model, operation, front_door, deployment, tool, requests, errors,
    tokens_in, tokens_out, cost_usd, cache_read_tokens, cache_write_tokens, cache_hits, cost_saved_usd)
  VALUES (CAST(NEW.created_at AS INTEGER) / 86400000 * 86400000, NEW.app, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), NEW.operation, NEW.front_door, COALESCE(NEW.deployment, ''),
    COALESCE(NEW.mcp_server || '__' || NEW.mcp_tool, ''), 1, CASE WHEN NEW.status >= 400 THEN 1 ELSE 0 END,
    NEW.tokens_in, NEW.tokens_out, NEW.cost_usd, NEW.cache_read_tokens,
    NEW.cache_write_5m_tokens + NEW.cache_write_1h_tokens, NEW.cache_hit, NEW.cost_saved_usd)
  ON CONFLICT (day, app, provider, model, operation, front_door, deployment, tool) DO UPDATE SET
    requests = requests + 1,
    errors = errors + excluded.errors,
    tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cost_usd = cost_usd + excluded.cost_usd,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    cache_hits = cache_hits + excluded.cache_hits,
    cost_saved_usd = cost_saved_usd + excluded.cost_saved_usd;
  INSERT INTO usage_latency_daily (day, provider, model, bin, requests)
  SELECT CAST(NEW.created_at AS INTEGER) / 86400000 * 86400000, COALESCE(NEW.provider, ''),
    COALESCE(NEW.model, ''), CAST(floor(ln(1 + NEW.latency_ms) * 8) AS INTEGER), 1
  WHERE NEW.operation <> 'mcp_tool'
  ON CONFLICT (day, provider, model, bin) DO UPDATE SET requests = requests + 1;
END;
