-- 020_task_rollout: safe rollouts (docs/rollouts.md), A/B variants and holdout.
--
-- What: tasks.rollout, the rollout a task was created with as JSON
-- ({ seed, variants, holdout }: core rollout/model.ts TaskRollout), or NULL
-- for one content sent to everyone. Executors read it with the task to give
-- each recipient its variant's content; the dispatcher's holdout link reads
-- it to remove the holdout share.
--
-- Why JSON and no index: it is read only with its task, whole, and nothing
-- queries tasks by it; the shape is checked by core's checkTaskRollout on
-- every write.

ALTER TABLE tasks
  ADD COLUMN rollout JSON NULL;
