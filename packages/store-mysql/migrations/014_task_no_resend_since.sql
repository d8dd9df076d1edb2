-- 014_task_no_resend_since: how far back a task's no-resend filter looks
-- (docs/campaigns.md, "No-resend scope").
--
-- What: tasks.no_resend_since, epoch ms, or NULL. The dispatcher's no-resend
-- link counts only the earlier tasks of the same content whose send_at is
-- after it; NULL, every one (tasks created through the API, and campaign
-- firings of scope content). A campaign firing of scope firing sets it to its
-- scheduled time, of scope window to the start of its window.
--
-- Why a plain BIGINT without an index: it is set at creation and read with
-- the task; the ledger already reads a content's tasks by content_crc.

ALTER TABLE tasks
  ADD COLUMN no_resend_since BIGINT NULL;
