CREATE TABLE usage_requests (
  id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL,
  app TEXT NOT NULL,
  operation TEXT NOT NULL,
  task TEXT,
  provider TEXT,
  model TEXT,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  usage_estimated INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  price_source TEXT,
  latency_ms DOUBLE PRECISION NOT NULL,
  upstream_first_byte_ms DOUBLE PRECISION,
  upstream_ms DOUBLE PRECISION,
  status INTEGER NOT NULL,
  error_code TEXT,
  created_at BIGINT NOT NULL
);

CREATE INDEX usage_requests_app_created ON usage_requests (app, created_at);

CREATE TABLE usage_attempts (
  usage_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  usage_estimated INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  latency_ms DOUBLE PRECISION NOT NULL,
  outcome TEXT NOT NULL,
  upstream_status INTEGER,
  PRIMARY KEY (usage_id, attempt)
);
