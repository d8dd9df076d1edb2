-- 012_task_progress: a task's progress curve and why it waits (docs/api.md, GET /api/v1/tasks/:id/progress).
--
-- What: one row per task its owning scheduler has sampled: the curve of
-- confirmed counts over time (@herald/core/progress, at most 512 points,
-- thinned by halving its resolution), the reason it waits for a sender slot
-- (or NULL), and the time of the write. GET /api/v1/tasks/:id/progress reads
-- it; a scheduler taking the task over reads it and goes on sampling.
--
-- Why a table of its own: the row is replaced whole every few seconds while
-- the task sends, and keeping it out of `tasks` leaves the task's version,
-- its outbox trigger and its row size alone. The write locks the task row
-- (the fence) but does not rewrite it. JSON documents, read and written whole:
-- 512 points are about 16 KB.

CREATE TABLE IF NOT EXISTS task_progress (
  task_id    BIGINT UNSIGNED NOT NULL,
  history    JSON NOT NULL,
  waiting    JSON NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (task_id),
  CONSTRAINT task_progress_task FOREIGN KEY (task_id) REFERENCES tasks (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
