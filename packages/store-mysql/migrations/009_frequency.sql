-- 009_frequency: the shared frequency counter (docs/frequency.md).
--
-- What: frequency_uses, one row per (local day, uin, task) a broadcast was
-- counted for: the dispatchers' frequency filter reads how many tasks each
-- user got that day, the executors add a row per user they deliver to
-- (online, and at login). Every dispatcher and executor of the cluster uses
-- this one table, so they all see the same counts (MySqlFrequencyCounter).
--
-- Why this key: (day, uin, task_id) is the primary key, so counting is
-- INSERT IGNORE, idempotent by (uin, day, task) as the FrequencyCounter
-- contract asks (a batch delivered again, or counted twice, adds nothing), a
-- user's count is a range of the clustered index, and a day's users are
-- uin-ordered: a sorted batch of users reads one contiguous stretch (keyed,
-- so sharded, by uin within the day). Old days are deleted by the adapter in
-- bounded chunks (day < the oldest kept), from the front of the index.

CREATE TABLE IF NOT EXISTS frequency_uses (
  day     INT UNSIGNED NOT NULL,
  uin     INT UNSIGNED NOT NULL,
  task_id BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (day, uin, task_id)
) ENGINE = InnoDB;
