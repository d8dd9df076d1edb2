-- 018_campaign_firing_run_key: idempotent "run now" (docs/campaigns.md).
--
-- What:
-- * campaign_firings.run_key: NULL for every firing but a manual run asked
--   for with an Idempotency-Key; then 'api:<account>:<header>'. Unique when
--   set, so a retry of the request finds the firing its first try made
--   (MySqlCampaignStore.getFiringByRunKey) instead of firing again. Of two
--   firings recorded with one key the first keeps it; the second is stored
--   without it.
--
-- Why a column and no backfill: every existing manual run was asked for
-- without a key, and the key belongs beside the firing it names (deleted
-- with it when its campaign is).

ALTER TABLE campaign_firings
  ADD COLUMN run_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  ADD UNIQUE KEY campaign_firings_run_key (run_key);
