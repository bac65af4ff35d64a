-- Responses kept for the app that asked with `store: true` on POST /v1/responses (CONTRACT 5.4):
-- the Response object and the input items it answered (the whole conversation, earlier turns of a
-- previous_response_id chain included), both as JSON text, until `expires_at` (epoch ms). The key
-- is the app and the id, so an id is only ever found for its own app. `bytes` is the two texts'
-- size, which bounds what an app keeps. The same SQL for both engines.

CREATE TABLE stored_responses (
  app TEXT NOT NULL,
  id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  bytes BIGINT NOT NULL,
  response TEXT NOT NULL,
  input_items TEXT NOT NULL,
  PRIMARY KEY (app, id)
);

CREATE INDEX stored_responses_expiry ON stored_responses (expires_at);
CREATE INDEX stored_responses_app_created ON stored_responses (app, created_at);
