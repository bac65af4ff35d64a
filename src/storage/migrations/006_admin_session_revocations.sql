-- Dashboard sessions signed out before they expire (see gateway/admin/admin-sessions.ts). A session
-- is a signed cookie that any instance accepts; this table is where every instance learns that one
-- was signed out. Only a validly signed, unexpired session is ever written, and a row is deleted
-- once the session would have expired anyway, so the table holds the last eight hours' sign-outs.
CREATE TABLE admin_session_revocations (
  nonce TEXT PRIMARY KEY,
  expires_at BIGINT NOT NULL
);

CREATE INDEX admin_session_revocations_expiry ON admin_session_revocations (expires_at);
