-- Newsletter subscribers of surface B. Times are epoch milliseconds; tokens are stored only as
-- SHA-256 hashes; the client address only as a keyed hash.
CREATE TABLE newsletter_subscribers (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  consent_at BIGINT NOT NULL,
  consent_source TEXT NOT NULL,
  consent_ip_hash TEXT,
  consent_user_agent TEXT,
  confirmed_at BIGINT,
  unsubscribed_at BIGINT,
  confirm_token_hash TEXT UNIQUE,
  confirm_expires_at BIGINT,
  confirm_sent_at BIGINT
);

-- Every mail carries its own unsubscribe token; all stay valid, as List-Unsubscribe links must.
CREATE TABLE newsletter_unsubscribe_tokens (
  token_hash TEXT PRIMARY KEY,
  subscriber_id TEXT NOT NULL REFERENCES newsletter_subscribers (id),
  created_at BIGINT NOT NULL
);

CREATE INDEX newsletter_unsubscribe_tokens_subscriber ON newsletter_unsubscribe_tokens (subscriber_id);

-- Subscription changes for the mailing-list upstream, written in the subscriber's transaction.
-- seq orders one subscriber's changes; delivered and failed entries are kept for inspection.
CREATE TABLE newsletter_outbox (
  id TEXT PRIMARY KEY,
  subscriber_id TEXT NOT NULL REFERENCES newsletter_subscribers (id),
  seq INTEGER NOT NULL,
  email TEXT NOT NULL,
  subscriber_status TEXT NOT NULL,
  subscribed_at BIGINT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  delivered_at BIGINT,
  UNIQUE (subscriber_id, seq)
);

CREATE INDEX newsletter_outbox_due ON newsletter_outbox (state, next_attempt_at);
