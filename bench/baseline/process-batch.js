/**
 * The peer baseline's job processor: one batch of a broadcast's list, the way
 * a Node user writes it on Redis today, with each step pipelined per batch:
 *
 *   round trip 1  SADD seen uin (one per uin: the answer says whether it is new),
 *                 SMISMEMBER blacklist uins..., GETBIT online uin (one per uin)
 *   round trip 2  for the new, non-blacklisted: INCR cap:<day>:uin, EXPIRE ... NX
 *   round trip 3  for those under the cap: offline ones RPUSH offline:uin <task>;
 *                 online ones go to the delivery sink in one write, meanwhile
 *
 * Returns the batch's counts; delivered + offline + duplicate + blacklisted +
 * capped = uins.length.
 */
const DAY_SECONDS = 86_400;

async function execOrThrow(pipeline) {
  const replies = await pipeline.exec();
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

/**
 * @param redis   an ioredis client
 * @param keys    baselineKeys(run)
 * @param sink    a DeliveryGateway (FileDeliverySink)
 * @param batch   { taskId, uins: number[], dailyCap, day }
 */
async function processBatch(redis, keys, sink, batch) {
  const { taskId, uins, dailyCap, day } = batch;
  const n = uins.length;
  const counts = { delivered: 0, offline: 0, duplicate: 0, blacklisted: 0, capped: 0 };
  if (n === 0) return counts;

  const first = redis.pipeline();
  for (const uin of uins) first.sadd(keys.seen, uin);
  first.smismember(keys.blacklist, uins);
  for (const uin of uins) first.getbit(keys.online, uin);
  const replies = await execOrThrow(first);
  const blacklisted = replies[n];

  const kept = [];
  const keptOnline = [];
  for (let i = 0; i < n; i++) {
    if (replies[i] === 0) counts.duplicate++;
    else if (blacklisted[i] === 1) counts.blacklisted++;
    else {
      kept.push(uins[i]);
      keptOnline.push(replies[n + 1 + i] === 1);
    }
  }
  if (kept.length === 0) return counts;

  const capping = redis.pipeline();
  for (const uin of kept) {
    const key = keys.cap(day, uin);
    capping.incr(key);
    capping.expire(key, DAY_SECONDS, 'NX');
  }
  const sentToday = await execOrThrow(capping);

  const online = [];
  const storing = redis.pipeline();
  for (let i = 0; i < kept.length; i++) {
    if (sentToday[2 * i] > dailyCap) counts.capped++;
    else if (keptOnline[i]) online.push(kept[i]);
    else {
      storing.rpush(keys.offline(kept[i]), String(taskId));
      counts.offline++;
    }
  }
  counts.delivered = online.length;
  await Promise.all([
    counts.offline > 0 ? execOrThrow(storing) : undefined,
    online.length > 0
      ? sink.deliver({ taskId, uins: Uint32Array.from(online), content: { body: 'bench' }, atLogin: false })
      : undefined,
  ]);
  return counts;
}

module.exports = { processBatch };
