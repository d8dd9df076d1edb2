/**
 * Deletes every key of one baseline run (SCAN MATCH its pattern, UNLINK in
 * pipelined batches) and counts them by kind on the way: the per-user offline lists and
 * cap counters left in Redis are an independent check of the run's counts.
 */
async function deleteRunKeys(redis, keys) {
  const found = { total: 0, offlineLists: 0, capCounters: 0 };
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', keys.pattern, 'COUNT', 10_000);
    cursor = next;
    if (batch.length === 0) continue;
    // One UNLINK per key: its reply (1 = removed) counts each key once, even
    // when SCAN returns a key twice (it may, while the table shrinks).
    const unlinking = redis.pipeline();
    for (const key of batch) unlinking.unlink(key);
    const replies = await unlinking.exec();
    batch.forEach((key, i) => {
      const [error, removed] = replies[i];
      if (error) throw error;
      if (removed !== 1) return;
      found.total++;
      if (key.startsWith(keys.offlineMarker)) found.offlineLists++;
      else if (key.startsWith(keys.capMarker)) found.capCounters++;
    });
  } while (cursor !== '0');
  return found;
}

/** Keys of the run still present (0 after deleteRunKeys). */
async function countRunKeys(redis, keys) {
  let count = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', keys.pattern, 'COUNT', 10_000);
    cursor = next;
    count += batch.length;
  } while (cursor !== '0');
  return count;
}

module.exports = { deleteRunKeys, countRunKeys };
