-- 002_outbox: the task-event outbox, filled by triggers on tasks.
--
-- What: task_events holds one row per task state change: creation (from_state
-- NULL -> CREATED) and every UPDATE of tasks that changes `state`. Claims and
-- patches that keep the state write none. `version` is the task's version
-- after the change and `at` the `now` the writer passed (created_at or
-- updated_at). The controller reads unrelayed rows in id order, publishes
-- them, then sets relayed_at (a server timestamp kept for audit only).
--
-- Why triggers: the event is part of the same atomic write as the change,
-- whoever makes it (this adapter, an operator's SQL, a later tool), so no
-- state change can exist without its event and no event without its change.
--
-- Why task_events_writer: the relay reads "events after id N" and then marks
-- everything <= its last id relayed. With AUTO_INCREMENT alone, two
-- transactions can take ids 7 and 8 and commit 8 first; a relay that read 8
-- and marked <= 8 would mark 7 relayed without ever publishing it. Each
-- trigger first updates the single task_events_writer row, which holds that
-- row's lock until commit, so event ids are taken in commit order and a
-- reader never sees a later id before an earlier one. The cost is that task
-- state changes (not unit checkpoints) commit one at a time: a few per task,
-- far below a MariaDB server's commit rate.
--
-- Index (relayed_at, id) keeps the unrelayed rows (relayed_at IS NULL)
-- together and in id order, however long the relayed history grows.

CREATE TABLE IF NOT EXISTS task_events (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  task_id    BIGINT UNSIGNED NOT NULL,
  from_state VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NULL,
  to_state   VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  version    BIGINT UNSIGNED NOT NULL,
  `at`       BIGINT NOT NULL,
  relayed_at DATETIME(3) NULL,
  PRIMARY KEY (id),
  KEY task_events_unrelayed (relayed_at, id),
  KEY task_events_task (task_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS task_events_writer (
  id     TINYINT UNSIGNED NOT NULL,
  events BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

INSERT IGNORE INTO task_events_writer (id, events) VALUES (1, 0);

DELIMITER $$

CREATE TRIGGER IF NOT EXISTS tasks_outbox_created AFTER INSERT ON tasks
FOR EACH ROW
BEGIN
  UPDATE task_events_writer SET events = events + 1 WHERE id = 1;
  INSERT INTO task_events (task_id, from_state, to_state, version, `at`)
  VALUES (NEW.id, NULL, NEW.state, NEW.version, NEW.created_at);
END$$

CREATE TRIGGER IF NOT EXISTS tasks_outbox_changed AFTER UPDATE ON tasks
FOR EACH ROW
BEGIN
  IF NOT (NEW.state <=> OLD.state) THEN
    UPDATE task_events_writer SET events = events + 1 WHERE id = 1;
    INSERT INTO task_events (task_id, from_state, to_state, version, `at`)
    VALUES (NEW.id, OLD.state, NEW.state, NEW.version, NEW.updated_at);
  END IF;
END$$

DELIMITER ;
