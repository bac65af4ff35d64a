CREATE TABLE apps (
  name TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  rotated_at BIGINT,
  revoked_at BIGINT
);
