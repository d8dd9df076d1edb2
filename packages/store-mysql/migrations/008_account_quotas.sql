-- 008_account_quotas: B-side controls (docs/account-quotas.md): each
-- account's settings and the broadcasts reserved against its quotas.
--
-- What:
-- * account_settings: one row per account an admin configured (limits: the
--   override of accounts.defaultLimits as a JSON object; click_through_rate:
--   the last broadcast's rate, NULL when unknown; updated_at). The row is
--   also each account's lock: a reservation first upserts it (INSERT ... ON
--   DUPLICATE KEY UPDATE takes an exclusive row lock, existing row or new),
--   so one account's reservations are decided one at a time in every
--   process, and another account's never wait. A row made only for the lock
--   has updated_at NULL and reads as "never set".
-- * account_reservations: one row per broadcast counted, keyed by (account,
--   reservation key): the task's idempotency key, so a retry is answered
--   instead of counted again. (account_id, send_at) serves the day's sum and
--   the nearest send times before and after a new broadcast. Rows sent more
--   than three days before a new reservation are deleted with it.
--
-- Why not the accounts table of 001: it asks for a name and a weight Herald
-- does not have for an account it only knows by id; these tables need
-- nothing but the id. Ids are utf8mb4_nopad_bin like every id (byte-exact),
-- times BIGINT epoch ms as the caller passed them.

CREATE TABLE IF NOT EXISTS account_settings (
  account_id         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  limits             JSON NULL,
  click_through_rate DOUBLE NULL,
  updated_at         BIGINT NULL,
  PRIMARY KEY (account_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS account_reservations (
  account_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  reservation_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  send_at         BIGINT NOT NULL,
  recipients      BIGINT UNSIGNED NOT NULL,
  reserved_at     BIGINT NOT NULL,
  PRIMARY KEY (account_id, reservation_key),
  KEY account_reservations_by_send_time (account_id, send_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
