-- Files and batches (CONTRACT 6.7): see 010_batches.sqlite.sql, which this file mirrors; only the
-- type of a chunk's bytes differs (BYTEA). Decision 0030 says why the bytes live in the database.
--
-- batch_files: an uploaded JSON Lines file (purpose `batch`), or a batch's output or error file,
--   whose content is made from the batch's items when read (`batch_id` set, no chunks). A file is
--   found only by its own app and only until `expires_at`.
-- batch_file_chunks: an uploaded file's bytes, in order, each chunk at most 1 MiB, so an upload is
--   written and a download read without holding the file in memory.
-- batches: one batch, OpenAI's (`flavor` openai) or Anthropic's Message Batch (`anthropic`).
-- batch_items: one request of a batch (a line of its file, 1-based), with its lease: an instance
--   that claims an item owns it until `lease_until`; one that dies leaves it to be claimed again
--   after that. `ledger_id` is the id of the item's ledger row, fixed when the batch is made, so a
--   request run again after a crash meets its first row (ON CONFLICT DO NOTHING) instead of adding
--   a second; an item's result is written only once its row is in the ledger.
-- usage_requests.batch_id: the batch a ledger row's request belongs to, null for live requests.

CREATE TABLE batch_files (
  id TEXT PRIMARY KEY,
  app TEXT NOT NULL,
  purpose TEXT NOT NULL,
  filename TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  lines BIGINT NOT NULL,
  status TEXT NOT NULL,
  batch_id TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX batch_files_app_created ON batch_files (app, created_at);
CREATE INDEX batch_files_expiry ON batch_files (expires_at);

CREATE TABLE batch_file_chunks (
  file_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (file_id, seq)
);

CREATE TABLE batches (
  id TEXT PRIMARY KEY,
  app TEXT NOT NULL,
  flavor TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  input_file_id TEXT,
  completion_window TEXT NOT NULL,
  metadata TEXT,
  status TEXT NOT NULL,
  total BIGINT NOT NULL,
  output_file_id TEXT,
  error_file_id TEXT,
  created_at BIGINT NOT NULL,
  in_progress_at BIGINT,
  expires_at BIGINT NOT NULL,
  finalizing_at BIGINT,
  completed_at BIGINT,
  failed_at BIGINT,
  expired_at BIGINT,
  cancelling_at BIGINT,
  cancelled_at BIGINT,
  errors TEXT
);
CREATE INDEX batches_app_created ON batches (app, created_at);
CREATE INDEX batches_status ON batches (status);

CREATE TABLE batch_items (
  batch_id TEXT NOT NULL,
  line INTEGER NOT NULL,
  custom_id TEXT NOT NULL,
  ledger_id TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  not_before BIGINT NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_token TEXT,
  lease_until BIGINT,
  tries INTEGER NOT NULL DEFAULT 0,
  status_code INTEGER,
  request_id TEXT,
  response TEXT,
  finished_at BIGINT,
  PRIMARY KEY (batch_id, line),
  UNIQUE (batch_id, custom_id)
);
CREATE INDEX batch_items_due ON batch_items (state, not_before);
CREATE INDEX batch_items_lease ON batch_items (lease_owner);

ALTER TABLE usage_requests ADD COLUMN batch_id TEXT;
CREATE INDEX usage_requests_batch ON usage_requests (batch_id) WHERE batch_id IS NOT NULL;
