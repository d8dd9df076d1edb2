-- 005_campaigns: cron campaigns (the campaigns table of 001 completed, and
-- their firing history) and idempotent task creation.
--
-- What:
-- * tasks.idempotency_key: NULL for most tasks; unique when set. createTask
--   with a key already stored returns that task instead of inserting another
--   (MySqlTaskStore catches the duplicate-key error and reads the row). A
--   campaign firing creates its task with the key
--   'campaign:<id>:<scheduledAt>', the API with 'api:<account>:<header>'.
-- * campaigns gains what the CampaignStore contract needs: name, updated_at,
--   active_from (when the current schedule took effect) and
--   last_scheduled_at (the last scheduled time handled; NULL before the
--   first). The controller moves last_scheduled_at with a compare-and-set
--   (UPDATE ... WHERE last_scheduled_at <=> :expected), so of two
--   controllers only one advances it.
-- * campaign_firings: one row per (campaign, scheduled time) handled, fired
--   (with the task it created) or missed (with a reason). The primary key is
--   the firing's identity: recording is INSERT IGNORE, so the first record
--   wins and a retry or a second controller reads it back. Listed newest
--   first by a backward scan of the primary key.
--
-- Why one ALTER per table: each ALTER is applied whole or not at all, and
-- the columns are added without IF NOT EXISTS so the file runs on MySQL 8 as
-- on MariaDB. Times are BIGINT epoch ms as the caller passed them, like the
-- tables of 001.

ALTER TABLE tasks
  ADD COLUMN idempotency_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  ADD UNIQUE KEY tasks_idempotency_key (idempotency_key);

ALTER TABLE campaigns
  ADD COLUMN name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL DEFAULT '' AFTER account_id,
  ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN active_from BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN last_scheduled_at BIGINT NULL;

CREATE TABLE IF NOT EXISTS campaign_firings (
  campaign_id  BIGINT UNSIGNED NOT NULL,
  scheduled_at BIGINT NOT NULL,
  outcome      VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  task_id      BIGINT UNSIGNED NULL,
  reason       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  `at`         BIGINT NOT NULL,
  PRIMARY KEY (campaign_id, scheduled_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
