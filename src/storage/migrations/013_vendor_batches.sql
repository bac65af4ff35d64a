-- Batches sent to a vendor's own batch API (CONTRACT 6.7; docs/batches.md, decision 0030).
-- upstream_slot: the slot whose vendor runs the batch (OpenAI's Batch API, Anthropic's Message
--   Batches); NULL when the gateway runs its requests itself (the batch runner never claims the
--   items of a batch with a slot).
-- upstream_state: `submit` (not sent yet), `submitting` (a submission began: a restart looks for it
--   upstream before sending again, so a batch is never submitted twice), `polling` (upstream_id
--   known), `done` (every result mapped back to its item).
-- upstream_id / upstream_file_id: the vendor's batch id, and OpenAI's uploaded input file.
-- upstream_cancel: 1 once the client's cancel was forwarded upstream.
-- upstream_owner / upstream_token / upstream_until: the lease of the instance submitting or
--   polling it, as items have theirs: one instance at a time, another after an instance dies.
-- upstream_next / upstream_polls: when it is next polled, and polls so far (the backoff).
ALTER TABLE batches ADD COLUMN upstream_slot TEXT;
ALTER TABLE batches ADD COLUMN upstream_state TEXT;
ALTER TABLE batches ADD COLUMN upstream_id TEXT;
ALTER TABLE batches ADD COLUMN upstream_file_id TEXT;
ALTER TABLE batches ADD COLUMN upstream_cancel INTEGER NOT NULL DEFAULT 0;
ALTER TABLE batches ADD COLUMN upstream_owner TEXT;
ALTER TABLE batches ADD COLUMN upstream_token TEXT;
ALTER TABLE batches ADD COLUMN upstream_until BIGINT;
ALTER TABLE batches ADD COLUMN upstream_next BIGINT NOT NULL DEFAULT 0;
ALTER TABLE batches ADD COLUMN upstream_polls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE batches ADD COLUMN upstream_submitting_at BIGINT;
CREATE INDEX batches_upstream ON batches (upstream_state, upstream_next);
