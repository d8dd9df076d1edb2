import { runChaos, CHAOS_DEFAULTS } from './chaos/harness';
import { FAULT_KINDS } from './chaos/schedule';

/**
 * The short chaos run of CI (docs/chaos.md): 300,000 recipients in 6 tasks on
 * real processes while a seeded nemesis kills and restarts tier processes,
 * restarts MariaDB and ZooKeeper, freezes the Kafka broker and cuts a
 * scheduler off. CI runs a fixed seed, so a red CI means a change broke what
 * passed before, not that the dice found an old bug; HERALD_CHAOS_SEED=<seed>
 * replays another, HERALD_CHAOS_SEED=random draws one (and `npm run chaos`
 * explores). Known failing seeds are in docs/chaos.md.
 */
jest.setTimeout(420_000);

/** Passed on 2026-11-24 with 0 lost and 0 repeats once the fixes docs/chaos.md lists were in (it failed the repeat bound on 2026-11-22). */
const CI_SEED = 1680484233;
const chosen = process.env.HERALD_CHAOS_SEED;
const seed = chosen === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(chosen ?? CI_SEED);

describe('chaos (production profile, real processes)', () => {
  it(`loses nobody and repeats only batches in flight at a fault (seed ${seed})`, async () => {
    const lines: string[] = [];
    const summary = await runChaos({
      ...CHAOS_DEFAULTS,
      seed,
      // Six tasks sending one after another (slots 1): the broadcast spans the schedule's first seconds.
      recipients: 300_000,
      tasks: 6,
      faults: FAULT_KINDS.length + 4,
      gapMs: [700, 1800],
      durationMs: [1500, 3000],
      finishTimeoutMs: 180_000,
      // Paced (~8 s a task, two rounds on three schedulers of one slot): the broadcast spans the whole
      // schedule (its last fault starts near t+18 s) however fast the machine; unpaced, a quiet machine
      // finished before the second fault.
      speed: 6_000,
      log: (line) => {
        lines.push(line);
        process.stdout.write(`chaos: ${line}\n`);
      },
    });
    if (summary.problems.length > 0)
      process.stdout.write(`chaos: replay with HERALD_CHAOS_SEED=${seed}\n${summary.logs ?? ''}\n`);
    expect(summary.problems).toEqual([]);
    expect(summary.faults.length).toBeGreaterThan(0);
    expect(summary.lost).toBe(0);
    // Faults really hit a running broadcast: at least one overlapped some task's sending.
    expect(summary.tasks.some((t) => t.repeatBound > 0)).toBe(true);
    for (const task of summary.tasks) {
      expect(task.state).toBe('COMPLETED');
      expect(task.delivered + task.offline + task.filtered).toBe(task.list);
      expect(task.filtered).toBeGreaterThan(0); // the audience's duplicates and blacklist
    }
  });
});
