-- 013_task_collapse_key: superseding messages (docs/delivery.md, "Collapse keys").
--
-- What: tasks.collapse_key, the collapse key a task was created with (1..128
-- characters of [A-Za-z0-9._:-], validated at creation), or NULL: nothing
-- supersedes the task. Executors read it with the task and give offline
-- stores the task's scope (account and key), so a newer task of the account
-- with the same key replaces an older one in users' offline lists.
--
-- Why no index: nothing queries tasks by it yet; the offline stores compare
-- scopes themselves. Byte-exact like the other keys (utf8mb4_nopad_bin).

ALTER TABLE tasks
  ADD COLUMN collapse_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL;
