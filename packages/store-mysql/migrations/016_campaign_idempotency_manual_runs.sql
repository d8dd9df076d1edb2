-- 016_campaign_idempotency_manual_runs: idempotent campaign creation, and
-- manual runs in the firing history (docs/campaigns.md).
--
-- What:
-- * campaigns.idempotency_key: NULL for most campaigns; unique when set.
--   createCampaign with a key already stored answers that campaign instead
--   of inserting another (MySqlCampaignStore catches the duplicate-key error
--   and reads the row), as tasks.idempotency_key does for tasks. The API
--   stores 'api:<account>:<Idempotency-Key header>'.
-- * campaign_firings.manual: 1 for a run an operator asked for outside the
--   schedule (POST /api/v1/campaigns/:id/run), 0 for the schedule's own.
--
-- Why a column per table and no backfill: every existing campaign was
-- created without a key, and every existing firing came from the schedule.

ALTER TABLE campaigns
  ADD COLUMN idempotency_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  ADD UNIQUE KEY campaigns_idempotency_key (idempotency_key);

ALTER TABLE campaign_firings
  ADD COLUMN manual TINYINT(1) NOT NULL DEFAULT 0;
