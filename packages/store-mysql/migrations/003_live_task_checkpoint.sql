-- 003_live_task_checkpoint: a low-water mark that keeps live-task scans short.
--
-- What: store_checkpoints holds named bounds; row 'live_tasks' is the
-- smallest task id that may still be live (not COMPLETED, CANCELLED, FAILED
-- or EXPIRED). Every task with a smaller id is terminal, and terminal states
-- are final, so it stays that way.
--
-- Why (FOQS checkpointing, seed 003): "which tasks are live / ready" filters
-- on state, and as history grows almost every row is terminal. A scan that is
-- bounded only by state walks more and more history (and a locking scan locks
-- it). With the checkpoint, listLiveTasks and listReadyTasks bound the id
-- range on both sides:
--
--   WHERE id >= :checkpoint AND id <= :maxId AND state IN (...)
--
-- where :maxId is MAX(id) read first, so the range covers only the tail of
-- the table that can still hold live tasks.
--
-- How it advances (MySqlTaskStore): after listLiveTasks, and when the task at
-- the checkpoint becomes terminal, a short transaction locks this row FOR
-- UPDATE, finds the first live id at or above it (or MAX(id) + 1 when none)
-- and stores it. createTask holds this row in share mode from before its
-- INSERT until commit, so while the advancer holds the lock no task insert is
-- in flight and no uncommitted low id can be skipped. Tasks inserted by other
-- means (raw SQL) do not take that lock and may be missed by a racing advance.

CREATE TABLE IF NOT EXISTS store_checkpoints (
  name  VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  value BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (name)
) ENGINE = InnoDB;

INSERT IGNORE INTO store_checkpoints (name, value) VALUES ('live_tasks', 0);
