import { freemem } from 'node:os';
import type { FunnelStage } from '@herald/core/fate';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { makeTempDir, ProcessCluster, waitFor, type TempDir } from '@herald/testing';
import { expectedOutcome } from './outcome';
import { api, lookup as lookupIn, mapPooled, reportRows as reportRowsOf, type Answer } from './recipient-lookups';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * Per-recipient truth on the production profile (docs/recipient-truth.md,
 * "Where"): each executor process keeps its own delivery records and serves
 * them on its management endpoint; the interface assembles a recipient's
 * answer from the shared list storage and the executor that confirmed its
 * position. Every uin of a broadcast (duplicates, blacklisted, online,
 * offline, and uins outside it) is checked against the truth the test knows;
 * then one executor process is stopped, and every recipient of its units
 * must be answered unknown naming it, never "not reached" or delivered.
 */
jest.setTimeout(300_000);

describe('recipient truth on the production profile', () => {
  const names = uniqueNames('fate');
  const audience = syntheticAudience({
    recipients: 10_000,
    onlineFraction: 0.4,
    duplicateFraction: 0.03,
    blacklistFraction: 0.05,
    uinLimit: 2 ** 24,
    seed: 47,
  });
  const truth = expectedOutcome(audience);
  const online = new Set(truth.online);
  const kept = new Set(truth.kept);
  const blacklisted = new Set(audience.blacklist);
  const copies = new Map<number, number>();
  for (const uin of audience.list) copies.set(uin, (copies.get(uin) ?? 0) + 1);
  // Uins outside the audience: blacklisted ones never listed, and free uins between listed ones.
  const outside = [...audience.blacklist.filter((uin) => !copies.has(uin))];
  for (let i = 0; outside.length < 300 && i < audience.distinct.length; i += 30)
    if (!copies.has(audience.distinct[i]! + 1)) outside.push(audience.distinct[i]! + 1);
  const asked = [...audience.distinct, ...outside];

  let dir: TempDir;
  let cluster: ProcessCluster;
  let task: Task;
  const before = new Map<number, Answer>();

  const lookup = (uin: number) => lookupIn(cluster, task.id, uin);
  const funnel = async () => (await api<{ stages: FunnelStage[] }>(cluster, `/api/v1/tasks/${task.id}/funnel`)).stages;
  const reportRows = () => reportRowsOf(cluster, task.id);

  beforeAll(async () => {
    dir = await makeTempDir('herald-fate-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 1 },
      names,
    );
    // Small batches and units. The task "needs" about 0.6 of a host's available memory, so the dispatcher
    // splits it over both executors (docs/scheduling.md, "Placement"), unless their reports say otherwise.
    const memoryBytesPerRecipient = Math.min(2 ** 20, Math.floor((freemem() * 0.6) / truth.kept.length));
    await startWithAudience(cluster, audience, {
      dispatcher: { batchSize: 250, unitSize: 1_000 },
      load: { memoryBytesPerRecipient },
    });
    const binary = { 'content-type': 'application/octet-stream' };
    await api(cluster, '/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const list = await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(audience.list),
    });
    const created = await api<Task>(cluster, '/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'fate' } }),
    });
    await waitFor(
      async () => {
        task = await api<Task>(cluster, `/api/v1/tasks/${created.id}`);
        return task.state === 'COMPLETED';
      },
      { timeoutMs: 120_000, intervalMs: 200, message: `the broadcast did not complete\n${cluster.logs()}` },
    );
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  it('answers every uin as the test knows it, from the executor that confirmed it', async () => {
    expect(task.report.kept).toBe(truth.kept.length);
    const started = performance.now();
    const answers = await mapPooled(asked, 8, lookup);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`recipient-truth: ${asked.length} lookups in ${seconds.toFixed(1)} s, 8 at a time\n`);
    const wrong: Array<{ uin: number; expected: string; answer: Answer }> = [];
    answers.forEach((answer, i) => {
      const uin = asked[i]!;
      before.set(uin, answer);
      const listed = copies.get(uin) ?? 0;
      const expected = !copies.has(uin)
        ? 'not_in_audience'
        : blacklisted.has(uin)
          ? 'removed'
          : online.has(uin)
            ? 'delivered_online'
            : 'queued_offline';
      const ok =
        answer.uin === uin &&
        answer.fate === expected &&
        (expected !== 'removed' || (answer as { link?: string }).link === 'blacklisted') &&
        (expected !== 'queued_offline' || answer.then?.outcome === 'waiting') &&
        (!kept.has(uin) || ['executor-1', 'executor-2'].includes(answer.executor!)) &&
        (answer.duplicateCopiesRemoved ?? 0) === Math.max(0, listed - 1);
      if (!ok) wrong.push({ uin, expected, answer });
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    const byExecutor = new Set(answers.map((a) => a.executor).filter((e) => e !== undefined));
    if (byExecutor.size < 2) process.stdout.write(`recipient-truth: every unit on ${[...byExecutor].join()}\n`);
  });

  it('reports and counts every recipient as the per-recipient answers do', async () => {
    const started = performance.now();
    const rows = await reportRows();
    const ms = performance.now() - started;
    process.stdout.write(`recipient-truth: report of ${rows.length} rows in ${ms.toFixed(0)} ms\n`);
    expect(rows.map((r) => r.uin)).toEqual([...audience.distinct]);
    expect(rows.filter((r) => r.fate !== before.get(r.uin)!.fate)).toEqual([]);
    const stages = await funnel();
    const count = (stage: string) => stages.find((s) => s.stage === stage)?.count;
    expect({ online: count('delivered_online'), offline: count('queued_offline') }).toEqual({
      online: truth.online.length,
      offline: truth.offline.length,
    });
  });

  it('answers unknown naming the host for the recipients of an executor that is stopped', async () => {
    // executor-2, unless the dispatcher placed every unit on executor-1.
    const victim = [...before.values()].some((a) => a.executor === 'executor-2') ? 'executor-2' : 'executor-1';
    const reason = `host ${victim} unreachable`;
    await cluster.stop(cluster.processes.find((p) => p.id === victim)!);
    const answers = await mapPooled([...audience.distinct], 8, lookup);
    const wrong = answers.filter((answer) => {
      const earlier = before.get(answer.uin)!;
      if (earlier.executor !== victim) return answer.fate !== earlier.fate;
      return answer.fate !== 'unknown' || answer.reason !== reason;
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    const onStopped = answers.filter((a) => before.get(a.uin)!.executor === victim).length;
    expect(onStopped).toBeGreaterThan(0);

    const rows = await reportRows();
    expect(rows.length).toBe(audience.distinct.length);
    const unknownRows = rows.filter((r) => r.fate === 'unknown');
    expect(unknownRows.length).toBe(onStopped);
    expect(unknownRows.filter((r) => !r.row.includes(reason))).toEqual([]);

    // The funnel counts what the other executor recorded, and the stopped one's part unknown, as the rows do.
    const stages = await funnel();
    const rowsOf = (fate: string) => rows.filter((r) => r.fate === fate).length;
    expect(stages.find((s) => s.stage === 'unknown')).toMatchObject({ count: unknownRows.length, reason });
    for (const stage of ['delivered_online', 'queued_offline'])
      expect(stages.find((s) => s.stage === stage)).toMatchObject({
        count: rowsOf(stage),
        reason: expect.stringContaining(reason) as unknown,
      });
  });
});
