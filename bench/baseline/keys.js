/**
 * The Redis keys of one peer-baseline run. Every key of a run, BullMQ's own
 * included (its prefix is the run's root), starts with `herald-baseline:<run>:`,
 * so a run can be deleted by that pattern alone: the Redis may be shared with
 * other work, so nothing outside it is ever touched (no FLUSHALL).
 */
function baselineKeys(runId) {
  const root = `herald-baseline:${runId}`;
  return {
    root,
    /** Everything this run wrote, for SCAN MATCH. */
    pattern: `${root}:*`,
    /** BullMQ `prefix` option: its keys become `<root>:<queue>:...`. */
    bullPrefix: root,
    queueName: `broadcast-${runId}`,
    /** The task's dedupe set: SADD answers 1 for a uin seen for the first time. */
    seen: `${root}:seen`,
    blacklist: `${root}:blacklist`,
    /** Online bitmap, bit = uin. */
    online: `${root}:online`,
    /** Per-user daily message counter. */
    cap: (day, uin) => `${root}:cap:${day}:${uin}`,
    capMarker: `${root}:cap:`,
    /** Per-user offline list (RPUSH on send, LPOP at login). */
    offline: (uin) => `${root}:offline:${uin}`,
    offlineMarker: `${root}:offline:`,
  };
}

module.exports = { baselineKeys };
