-- 015_audit_at: the audit log read by time (GET /api/v1/audit?from=&to=).
--
-- What: an index on audit_log (`at`, id), the time each audited request was
-- answered and its append order.
--
-- Why: a time window over a long log would otherwise walk the primary key
-- from the newest entry down to the window. With the index the server finds
-- the window's rows directly; filters by token or account keep their own
-- indexes (004_access.sql), and the optimizer picks the narrower one.

ALTER TABLE audit_log
  ADD KEY audit_at (`at`, id);
