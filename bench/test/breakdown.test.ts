/**
 * The breakdown's arithmetic (bench/breakdown.js): a hand-made CPU profile cut
 * at stage boundaries, and a stage recorder fed known counters. The benches
 * run it for real with --breakdown (figures in RESULTS.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Ranked {
  name: string;
  s: number;
}
interface ThreadSummary {
  process: string;
  thread: string;
  busyS: number;
  components: Ranked[];
  functions: Ranked[];
  herald: Ranked[];
}
interface StageRow {
  name: string;
  cpuS?: number;
  gcS?: number;
  lagP99S?: number;
  queues: Record<string, number>;
}
interface Stage {
  stage: string;
  fromUs: number;
  toUs: number;
  wallS: number;
  rows: StageRow[];
}
// The bench modules are plain JavaScript without types: required, typed here as far as the test uses them.
const { summariseProfiles, StageRecorder, parseExposition, queueDepths } = require('../breakdown') as {
  summariseProfiles(
    dir: string,
    stages: { fromUs: number; toUs: number }[],
    processes: { name: string; pid: number }[],
  ): ThreadSummary[][];
  StageRecorder: new (
    processes: { name: string; pid: number }[],
    read: (p: { name: string; pid: number }) => Promise<Record<string, unknown> | undefined>,
  ) => { mark(stage: string): Promise<void>; sample(): Promise<void>; stages(): Stage[] };
  parseExposition(text: string): Map<string, number>;
  queueDepths(values: Map<string, number>): Record<string, number>;
};

const frame = (functionName: string, url = '', lineNumber = 0) => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
  scriptId: '0',
});

describe('bench breakdown', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'herald-breakdown-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('cuts a profile at the stage boundaries and charges a dependency to the Herald function that called it', () => {
    // root -> appendLocked (store-level) -> _put (classic-level); root -> (idle); root -> (garbage collector)
    const nodes = [
      { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
      {
        id: 2,
        callFrame: frame('appendLocked', 'file:///x/packages/store-level/dist/level-offline-store.js', 9),
        children: [3],
      },
      { id: 3, callFrame: frame('_put', 'file:///x/node_modules/classic-level/index.js', 60) },
      { id: 4, callFrame: frame('(idle)') },
      { id: 5, callFrame: frame('(garbage collector)') },
    ];
    // Samples every 1,000 µs from t = 1,000,000: stage A holds the first four, stage B the next four.
    const samples = [3, 3, 2, 4, 5, 3, 4, 4];
    const profile = {
      nodes,
      startTime: 999_000,
      endTime: 1_008_000,
      samples,
      timeDeltas: samples.map(() => 1000),
    };
    writeFileSync(join(dir, 'CPU.20261127.091000.4242.0.001.cpuprofile'), JSON.stringify(profile));
    writeFileSync(join(dir, 'CPU.20261127.091000.9999.0.001.cpuprofile'), JSON.stringify(profile)); // not ours
    const stages = [
      { fromUs: 1_000_000, toUs: 1_004_000 },
      { fromUs: 1_004_000, toUs: 1_008_000 },
    ];
    const [a, b] = summariseProfiles(dir, stages, [{ name: 'executor e1', pid: 4242 }]);
    expect(a).toHaveLength(1);
    expect(a![0]).toMatchObject({ process: 'executor e1', thread: 'main' });
    expect(a![0]!.busyS).toBeCloseTo(0.003); // three busy samples, the idle one not counted
    expect(a![0]!.components).toEqual([
      { name: 'classic-level', s: 0.002 },
      { name: 'store-level/level-offline-store', s: 0.001 },
    ]);
    expect(a![0]!.herald).toEqual([{ name: 'appendLocked store-level/level-offline-store', s: 0.003 }]);
    // The last sample has no following delta: it counts 0.
    expect(b![0]!.busyS).toBeCloseTo(0.002);
    expect(b![0]!.herald).toEqual([
      { name: '(no Herald frame)', s: 0.001 },
      { name: 'appendLocked store-level/level-offline-store', s: 0.001 },
    ]);
  });

  it('gives each stage the differences of its two marks and the maxima sampled in between', async () => {
    const readings = [
      { cpuS: 1, gcS: 0.5, lagP99S: 0.01, queues: { herald_executor_prefetched_batches: 1 } },
      { cpuS: 1.5, gcS: 0.6, lagP99S: 0.09, queues: { herald_executor_prefetched_batches: 7 } }, // a sample
      { cpuS: 3, gcS: 0.7, lagP99S: 0.02, queues: { herald_executor_prefetched_batches: 2 } }, // mark: end of stage 1
      { cpuS: 4, gcS: 0.7, lagP99S: 0.03, queues: {} }, // mark: end of stage 2
    ];
    let next = 0;
    const recorder = new StageRecorder([{ name: 'p', pid: 1 }], async () => readings[next++]);
    await recorder.mark('sending');
    await recorder.sample();
    await recorder.mark('after');
    await recorder.mark('end');
    const [sending, after] = recorder.stages();
    expect(sending).toMatchObject({ stage: 'sending' });
    expect(sending!.rows[0]).toMatchObject({
      name: 'p',
      cpuS: 2,
      lagP99S: 0.09,
      queues: { herald_executor_prefetched_batches: 7 },
    });
    expect(sending!.rows[0]!.gcS).toBeCloseTo(0.2);
    expect(after!.rows[0]).toMatchObject({ cpuS: 1, gcS: 0, lagP99S: 0.03, queues: {} });
  });

  it('sums every series of a queue gauge from a Prometheus exposition', () => {
    const values = parseExposition(
      [
        '# HELP herald_executor_login_queue Users waiting',
        'herald_executor_login_queue{executor="e1"} 3',
        'herald_executor_login_queue{executor="e2"} 4',
        'herald_executor_delivered_total 99',
        '',
      ].join('\n'),
    );
    expect(queueDepths(values)).toEqual({ herald_executor_login_queue: 7 });
  });
});
