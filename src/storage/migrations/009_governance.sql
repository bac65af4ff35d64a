-- Teams, apps in teams, keys, team admin tokens and the audit log (CONTRACT 6.5), and the ledger's
-- end user and team. Every write to teams, apps, keys or tokens takes the next value of
-- governance_clock.version in its own transaction: the row lock orders the writers, so versions
-- commit in order and an instance that has read everything up to version N never misses a row
-- below it. Instances poll the clock and read only the rows past what they hold (decision 0026).
CREATE TABLE governance_clock (
  id INTEGER PRIMARY KEY,
  version BIGINT NOT NULL
);
INSERT INTO governance_clock (id, version) VALUES (1, 1);

-- `settings` is JSON: {limits, models, mcp, metadata}. A deleted team keeps its row (deleted_at)
-- until its name is used again, so every instance learns of the deletion by its version.
CREATE TABLE teams (
  name TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted_at BIGINT,
  version BIGINT NOT NULL
);

ALTER TABLE apps ADD COLUMN team TEXT;
ALTER TABLE apps ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE apps ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
ALTER TABLE apps ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

-- An app's keys. `primary` is the app's first secret (what apps.secret_hash held, kept in step
-- with it); the others are made through the admin API or the CLI. last_used_at is to the minute.
CREATE TABLE app_keys (
  app TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  last_used_at BIGINT,
  revoked_at BIGINT,
  version BIGINT NOT NULL,
  PRIMARY KEY (app, id)
);
INSERT INTO app_keys (app, id, name, secret_hash, created_at, version)
  SELECT name, 'primary', 'primary', secret_hash, created_at, 1 FROM apps;

CREATE TABLE team_tokens (
  id TEXT PRIMARY KEY,
  team TEXT NOT NULL,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  version BIGINT NOT NULL
);

-- Who changed what, when: before and after are JSON without any secret or hash.
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  at BIGINT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  team TEXT,
  before_state TEXT,
  after_state TEXT
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_team_at ON audit_log (team, at);

ALTER TABLE usage_requests ADD COLUMN end_user TEXT;
ALTER TABLE usage_requests ADD COLUMN team TEXT;
CREATE INDEX usage_requests_app_end_user ON usage_requests (app, created_at, end_user);
