-- 004_access: API tokens and the audit log (the AccessStore port).
--
-- What: access_tokens holds one row per API token: its public id, name,
-- role, the accounts an operator token acts for, and the SHA-256 of its
-- secret (never the secret). audit_log holds one row per audited request
-- (every mutating API request whose caller was verified): who, what, when,
-- the account and resource it touched, and the HTTP status it got.
--
-- Why this shape:
-- * Tokens are never deleted, only revoked (revoked_at): the audit log names
--   them, and an id is never handed out twice.
-- * accounts is a JSON array, read and written whole: a token's accounts
--   are only ever checked together, in the interface tier.
-- * The audit log is read newest first by a keyset cursor (id < ?), whole or
--   by token or by account: the primary key serves the first, the
--   (token_id, id) and (account_id, id) indexes the others.
-- * Token ids, hashes and roles are ASCII and compared byte-exact; names,
--   account ids, actions and resources are utf8mb4_nopad_bin like the task
--   tables (001_tables.sql), so 'acme' and 'acme ' stay two accounts.
--
-- Idempotent (IF NOT EXISTS), so re-running it after a half-applied attempt
-- is safe.

CREATE TABLE IF NOT EXISTS access_tokens (
  id          VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  name        VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  role        VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  accounts    JSON NOT NULL,
  hash        CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at  BIGINT NOT NULL,
  revoked_at  BIGINT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS audit_log (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `at`        BIGINT NOT NULL,
  token_id    VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  token_name  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  action      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  account_id  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  resource    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  status      SMALLINT UNSIGNED NOT NULL,
  PRIMARY KEY (id),
  KEY audit_token (token_id, id),
  KEY audit_account (account_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
