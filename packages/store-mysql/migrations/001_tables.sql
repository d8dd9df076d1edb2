-- 001_tables: the task store's tables.
--
-- What: tasks, their execution units, recipient-list metadata, and two small
-- tables later issues build on (accounts, campaigns). The outbox (002) and the
-- live-task checkpoint (003) have their own files.
--
-- Why this shape:
-- * Every id, account id, owner and list id is utf8mb4_nopad_bin: comparisons
--   are byte-exact, so 'acme', 'ACME' and 'acme ' are three accounts. (The
--   plain utf8mb4_bin collation is PAD SPACE in MariaDB and would treat a
--   trailing space as absent.) The database default is the same collation.
-- * Times are BIGINT epoch milliseconds exactly as the caller passed them
--   (the store never reads a clock), so they round-trip unchanged.
-- * content, report and error are JSON documents: the store reads and writes
--   them whole, under the task's row lock.
-- * Indexes serve the read paths: (account_id, content_crc) the no-resend
--   ledger, (state, id) listing by state and the live/ready scans, and
--   (account_id, id) an account's tasks in id order.
--
-- Idempotent (IF NOT EXISTS), so re-running it after a half-applied attempt
-- is safe: MariaDB commits each DDL statement on its own.

CREATE TABLE IF NOT EXISTS tasks (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  account_id       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  list_id          VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  content          JSON NOT NULL,
  content_crc      INT UNSIGNED NOT NULL,
  priority         VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  send_at          BIGINT NOT NULL,
  expires_at       BIGINT NOT NULL,
  list_count       BIGINT UNSIGNED NOT NULL,
  state            VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  version          BIGINT UNSIGNED NOT NULL,
  epoch            BIGINT UNSIGNED NOT NULL,
  owner            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  filtered_list_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  report           JSON NOT NULL,
  error            JSON NULL,
  created_at       BIGINT NOT NULL,
  updated_at       BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY tasks_account_crc (account_id, content_crc),
  KEY tasks_state_id (state, id),
  KEY tasks_account_id (account_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS execution_units (
  task_id     BIGINT UNSIGNED NOT NULL,
  unit_no     INT UNSIGNED NOT NULL,
  `start`     BIGINT UNSIGNED NOT NULL,
  `end`       BIGINT UNSIGNED NOT NULL,
  executor_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  state       VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `checkpoint` BIGINT UNSIGNED NOT NULL,
  delivered   BIGINT UNSIGNED NOT NULL,
  `offline`   BIGINT UNSIGNED NOT NULL,
  updated_at  BIGINT NOT NULL,
  PRIMARY KEY (task_id, unit_no),
  CONSTRAINT execution_units_task FOREIGN KEY (task_id) REFERENCES tasks (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS recipient_lists (
  id         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  account_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  `count`    BIGINT UNSIGNED NOT NULL,
  checksum   INT UNSIGNED NOT NULL,
  is_sorted  BOOLEAN NOT NULL,
  is_unique  BOOLEAN NOT NULL,
  bytes      BIGINT UNSIGNED NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY recipient_lists_account (account_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- Minimal for now: the B-side controls (quota, frequency, weight) build on it.
CREATE TABLE IF NOT EXISTS accounts (
  id         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  name       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
  weight     TINYINT UNSIGNED NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- Minimal for now: cron-driven campaigns (one task per firing) build on it.
CREATE TABLE IF NOT EXISTS campaigns (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  account_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  cron       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  time_zone  VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  template   JSON NOT NULL,
  enabled    BOOLEAN NOT NULL DEFAULT TRUE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY campaigns_account (account_id, id),
  KEY campaigns_enabled (enabled, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
