import { ErrorCodes, FencedError, HeraldError } from '@herald/core';
import { JobLoop, SLOW_JOB_MS } from './job-loop';
import type { SchedulerMetrics, SchedulerView } from './scheduler-metrics';
import { openHarness, ownedTask, TO_SENDING, type Harness } from './test-harness';

describe('JobLoop', () => {
  let h: Harness;
  let loop: JobLoop;
  let failures: unknown[];
  let views: SchedulerView[];
  beforeEach(async () => {
    h = await openHarness();
    failures = [];
    views = [];
    const metrics: SchedulerMetrics = {
      firstDelivery() {},
      completed() {},
      failed: (error) => void failures.push(error),
      publish: (view) => void views.push(view),
    };
    loop = new JobLoop(h.tasks, metrics, h.ctx.logger);
  });
  afterEach(() => h.close());

  it('runs jobs one at a time in the order they were queued', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = loop.run(undefined, async () => {
      order.push('first starts');
      started();
      await held;
      order.push('first ends');
    });
    const second = loop.run(undefined, async () => void order.push('second'));
    await running;
    expect([loop.serial.pending, order]).toEqual([2, ['first starts']]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second']);
  });

  it('drops the task a job was for when the store answers FENCED, and goes on', async () => {
    const task = await ownedTask(h, ['enqueue']);
    h.tasks.enqueue(task.id, 1);
    const fenced = new FencedError(task.id, 1, 2);
    await expect(loop.run(task.id, async () => Promise.reject(fenced), 'unit.progress')).resolves.toBeUndefined();
    expect([h.tasks.has(task.id), h.tasks.queued, failures]).toEqual([false, 0, [fenced]]);
    expect(h.logs).toContain('warn: lost ownership of a task; dropping it');
  });

  it('logs any other failure and keeps the task', async () => {
    const task = await ownedTask(h, ['enqueue']);
    await loop.run(
      task.id,
      async () => Promise.reject(new HeraldError(ErrorCodes.UNAVAILABLE, 'store down (test)')),
      'task.command',
    );
    expect([h.tasks.has(task.id), failures.length]).toEqual([true, 1]);
    expect(h.logs).toContain('error: scheduler job failed');
  });

  it('logs a slow job: every message behind it waited as long', async () => {
    await loop.run(undefined, () => new Promise((resolve) => setTimeout(resolve, SLOW_JOB_MS + 20)), 'tick');
    expect(h.logs).toContain('warn: slow scheduler job');
  });

  it('publishes the gauges after a job, with the running units by executor', async () => {
    const task = await ownedTask(h, TO_SENDING);
    const entry = h.tasks.hold(task);
    h.tasks.takeSlot(entry);
    entry.units = [await h.store.transitionUnit(task.id, 0, { epoch: task.epoch }, 'assign', h.clock.now(), 'e7')];
    await loop.run(undefined, async () => {});
    expect(views).toEqual([
      { queued: 0, active: 1, scheduled: 0, owned: 1, pendingJobs: 0, unitsByExecutor: new Map([['e7', 1]]) },
    ]);
  });
});
