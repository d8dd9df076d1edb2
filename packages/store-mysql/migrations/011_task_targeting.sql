-- 011_task_targeting: a targeted task's query (docs/architecture.md, "The filter chain").
--
-- What: tasks.targeting, the targeting query a task was created with (the
-- audiences' query language, at most 4096 characters, validated at creation),
-- or NULL: an untargeted task. The dispatcher's targeting link removes the
-- recipients whose attributes do not match it.
--
-- Why TEXT: a query may be 4096 characters (up to 16 KiB in utf8mb4), which as
-- a VARCHAR would count against the row's 64 KiB; it is set at creation, read
-- with the task, and nothing queries by it.

ALTER TABLE tasks
  ADD COLUMN targeting TEXT NULL;
