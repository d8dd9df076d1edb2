-- 019_local_time: local-time delivery (docs/local-time.md).
--
-- What: user_attributes.tz, a user's time zone (an IANA name in its canonical
-- spelling, or a fixed offset '+HH:MM'; checked by core's parseUserTimeZone),
-- or NULL: the task's default zone applies. Its bitset is `tz=<zone>` in
-- attribute_chunks, written with the user's other keys, so grouping an
-- audience by zone reads a few dozen bitsets, not one row per user.
--
-- tasks.deliver_at, a local-time task's { localTime, windowMs, missed,
-- defaultTimeZone } as JSON, or NULL: the task is sent at its one instant.
-- tasks.quiet_hours, a task's quiet hours { from, to } ('HH:MM' local) as
-- JSON, or NULL: none.
-- Nothing queries tasks by either: the dispatcher reads them with the task.

ALTER TABLE user_attributes
  ADD COLUMN tz VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL;

ALTER TABLE tasks
  ADD COLUMN deliver_at JSON NULL,
  ADD COLUMN quiet_hours JSON NULL;

-- account_settings.local_time, an account's local-time defaults
-- { defaultTimeZone, quietHours } as JSON (core account-quota/records.ts
-- AccountLocalTime), or NULL: none set.
ALTER TABLE account_settings
  ADD COLUMN local_time JSON NULL;
