-- 010_task_speed: a task's speed (docs/scheduling.md "Pacing").
--
-- What: tasks.speed, recipients per second the account asked the task to be
-- sent at (1..10^8, at most the account's maxSpeed), or NULL: none asked. The
-- dispatcher plans the task's units for it, and each executor holding a unit
-- paces its share (token bucket).
--
-- Why a plain nullable column: it is set at creation and never changes; the
-- scheduler reads it with the task, and nothing queries by it.

ALTER TABLE tasks
  ADD COLUMN speed INT UNSIGNED NULL;
