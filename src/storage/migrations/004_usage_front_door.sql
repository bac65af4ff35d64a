-- Which front door a request came through: 'native' (/v1/chat, /v1/embed, /v1/json), 'openai' or
-- 'anthropic' (the compatible doors). Rows written before the doors existed came through the
-- native routes, which the default says.
ALTER TABLE usage_requests ADD COLUMN front_door TEXT NOT NULL DEFAULT 'native';
