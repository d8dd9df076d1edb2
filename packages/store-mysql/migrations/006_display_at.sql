-- 006_display_at: pre-delivery.
--
-- What: tasks.display_at, epoch ms or NULL. A task with a display time is
-- delivered ahead of it (from send_at on) and every delivery carries it, so
-- clients show the message at that moment: a 10^8 audience takes minutes to
-- reach, and with a display time they all see it at the same second. NULL:
-- shown when it arrives, as before.
--
-- Why a plain column: the executor reads it with the task, once per task
-- (TaskCache), and nothing queries by it.

ALTER TABLE tasks
  ADD COLUMN display_at BIGINT NULL;
