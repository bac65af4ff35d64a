-- The agent round's ledger columns; see 007_agent_round_ledger.sqlite.sql, which this file
-- mirrors. The trigger stays once per INSERT statement over its transition table.

ALTER TABLE usage_requests
  ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_5m_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_hit INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN cost_saved_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  ADD COLUMN deployment TEXT,
  ADD COLUMN mcp_server TEXT,
  ADD COLUMN mcp_tool TEXT;

ALTER TABLE usage_attempts
  ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_5m_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN deployment TEXT;

-- No ledger row may land while the rollups are rebuilt and the trigger replaced.
LOCK TABLE usage_requests IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE usage_hourly
  ADD COLUMN deployment TEXT NOT NULL DEFAULT '',
  ADD COLUMN tool TEXT NOT NULL DEFAULT '',
  ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_hits BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cost_saved_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE usage_hourly DROP CONSTRAINT usage_hourly_pkey;
ALTER TABLE usage_hourly ADD PRIMARY KEY (hour, app, provider, model, operation, front_door, deployment, tool);

ALTER TABLE usage_daily
  ADD COLUMN deployment TEXT NOT NULL DEFAULT '',
  ADD COLUMN tool TEXT NOT NULL DEFAULT '',
  ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cache_hits BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN cost_saved_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE usage_daily DROP CONSTRAINT usage_daily_pkey;
ALTER TABLE usage_daily ADD PRIMARY KEY (day, app, provider, model, operation, front_door, deployment, tool);

CREATE OR REPLACE FUNCTION usage_requests_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_hourly AS r (hour, app, provider, model, operation, front_door, deployment, tool, requests, errors,
    tokens_in, tokens_out, cost_usd, cache_read_tokens, cache_write_tokens, cache_hits, cost_saved_usd)
  SELECT created_at / 3600000 * 3600000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
    COALESCE(deployment, ''), COALESCE(mcp_server || '__' || mcp_tool, ''),
    COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd),
    SUM(cache_read_tokens), SUM(cache_write_5m_tokens + cache_write_1h_tokens), SUM(cache_hit), SUM(cost_saved_usd)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (hour, app, provider, model, operation, front_door, deployment, tool) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    tokens_in = r.tokens_in + EXCLUDED.tokens_in,
    tokens_out = r.tokens_out + EXCLUDED.tokens_out,
    cost_usd = r.cost_usd + EXCLUDED.cost_usd,
    cache_read_tokens = r.cache_read_tokens + EXCLUDED.cache_read_tokens,
    cache_write_tokens = r.cache_write_tokens + EXCLUDED.cache_write_tokens,
    cache_hits = r.cache_hits + EXCLUDED.cache_hits,
    cost_saved_usd = r.cost_saved_usd + EXCLUDED.cost_saved_usd;
  INSERT INTO usage_latency_hourly AS l (hour, provider, model, bin, requests)
  SELECT created_at / 3600000 * 3600000, COALESCE(provider, ''), COALESCE(model, ''),
    floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
  FROM new_rows WHERE operation <> 'mcp_tool' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (hour, provider, model, bin) DO UPDATE SET requests = l.requests + EXCLUDED.requests;
  INSERT INTO usage_daily AS r (day, app, provider, model, operation, front_door, deployment, tool, requests, errors,
    tokens_in, tokens_out, cost_usd, cache_read_tokens, cache_write_tokens, cache_hits, cost_saved_usd)
  SELECT created_at / 86400000 * 86400000, app, COALESCE(provider, ''), COALESCE(model, ''), operation, front_door,
    COALESCE(deployment, ''), COALESCE(mcp_server || '__' || mcp_tool, ''),
    COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(tokens_in), SUM(tokens_out), SUM(cost_usd),
    SUM(cache_read_tokens), SUM(cache_write_5m_tokens + cache_write_1h_tokens), SUM(cache_hit), SUM(cost_saved_usd)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (day, app, provider, model, operation, front_door, deployment, tool) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    tokens_in = r.tokens_in + EXCLUDED.tokens_in,
    tokens_out = r.tokens_out + EXCLUDED.tokens_out,
    cost_usd = r.cost_usd + EXCLUDED.cost_usd,
    cache_read_tokens = r.cache_read_tokens + EXCLUDED.cache_read_tokens,
    cache_write_tokens = r.cache_write_tokens + EXCLUDED.cache_write_tokens,
    cache_hits = r.cache_hits + EXCLUDED.cache_hits,
    cost_saved_usd = r.cost_saved_usd + EXCLUDED.cost_saved_usd;
  INSERT INTO usage_latency_daily AS l (day, provider, model, bin, requests)
  SELECT created_at / 86400000 * 86400000, COALESCE(provider, ''), COALESCE(model, ''),
    floor(ln(1 + latency_ms) * 8)::integer, COUNT(*)
  FROM new_rows WHERE operation <> 'mcp_tool' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, provider, model, bin) DO UPDATE SET requests = l.requests + EXCLUDED.requests;
  RETURN NULL;
END
$$;
