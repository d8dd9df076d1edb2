import { join } from 'node:path';
import type { RecipientFate } from '@herald/core/fate';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, listBytes, sinkUins, upload, waitForEnd, waitForState } from './helpers';

/**
 * Quiet hours held at the moment of sending (docs/local-time.md, "Held, or
 * queued offline"), on an embedded cluster whose every tier reads one
 * injected clock. 90 users, all online: 30 in Berlin, 30 in New York, 30
 * without a tz (UTC). The task is planned at 19:59 UTC on 1 June 2026, 21:59
 * in Berlin, just before its quiet hours '22:00-08:00', so every zone is
 * released at once; the clock then moves into Berlin's quiet hours (20:30
 * UTC, 22:30 in Berlin) with part of Berlin sent. New York (16:30) and UTC
 * (20:30) stay outside them. A gate in front of the file sink stops Berlin's
 * sending at a known batch, so nothing races the clock.
 */
const PLANNED = Date.UTC(2026, 5, 1, 19, 59);
const INSIDE = Date.UTC(2026, 5, 1, 20, 30);
/** 08:00 in Berlin (CEST) the next morning: the quiet hours' end. */
const BERLIN_MORNING = Date.UTC(2026, 5, 2, 6);
const BATCH = 5;

const uins = Uint32Array.from({ length: 90 }, (_, i) => i + 1);
const zoneOf = (uin: number) => ['Europe/Berlin', 'America/New_York', undefined][uin % 3];
const isBerlin = (uin: number) => zoneOf(uin) === 'Europe/Berlin';
const berlin = [...uins].filter(isBerlin);
const elsewhere = [...uins].filter((uin) => !isBerlin(uin));

/** Lets the first `passing` batches holding a Berlin user through, then holds the next ones until `release()`. */
class BerlinGate implements DeliveryGateway {
  passed = 0;
  waiting = 0;
  private open: (() => void) | undefined;
  private readonly shut: Promise<void>;

  constructor(
    private readonly inner: DeliveryGateway,
    private readonly passing: number,
  ) {
    this.shut = new Promise<void>((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
  }

  async deliver(delivery: Delivery): Promise<void> {
    if (delivery.uins.some(isBerlin)) {
      if (this.passed >= this.passing) {
        this.waiting++;
        await this.shut;
        this.waiting--;
      }
      this.passed++;
    }
    await this.inner.deliver(delivery);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('quiet hours held at the moment of sending, end to end', () => {
  const clock = {
    at: PLANNED,
    now() {
      return this.at;
    },
  };
  let dir: TempDir;
  let gate: BerlinGate;
  let cluster: EmbeddedCluster;
  const online = new TypedArrayBitmap(2 ** 20);
  for (const uin of uins) online.setOnline(uin, true);

  async function start(passing: number): Promise<void> {
    gate = new BerlinGate(new FileDeliverySink(join(dir.path, 'deliveries')), passing);
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 20,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 20 },
        dispatcher: { batchSize: BATCH, unitSize: 10 },
        executor: { ids: ['executor-1'] },
      },
      { clock, gateway: gate, online },
    );
  }

  beforeEach(async () => {
    clock.at = PLANNED;
    dir = await makeTempDir('herald-quiet-hold-');
  });

  afterEach(async () => {
    gate.release();
    await cluster?.stop();
    await dir?.remove();
  });

  async function create(): Promise<Task> {
    await cluster.attributes.putUsers(
      [...uins].map((uin) => (zoneOf(uin) === undefined ? { uin } : { uin, tz: zoneOf(uin)! })),
    );
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'good night' },
      ttlSeconds: 2 * 86_400,
      quietHours: '22:00-08:00',
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  interface Progress {
    state: string;
    quietHold?: { until: number; recipients: number; message: string };
    localGroups: { offsetMinutes: number; heldUntil?: number }[];
  }
  const progressOf = async (taskId: number) =>
    (await call<Progress>(cluster, 'GET', `/api/v1/tasks/${taskId}/progress`)).body;

  /** Waits until the sending outside Berlin is done and Berlin's group is held, then checks what is shown. */
  async function expectBerlinHeld(taskId: number, berlinSent: number): Promise<void> {
    await waitFor(
      async () => {
        const sent = await sinkUins(cluster, taskId).catch(() => new Uint32Array());
        const progress = await progressOf(taskId);
        return sent.length === elsewhere.length + berlinSent && progress.quietHold !== undefined;
      },
      { timeoutMs: 60_000, message: 'the zones outside quiet hours were not sent, or Berlin was not held' },
    );
    const sent = [...(await sinkUins(cluster, taskId))];
    expect(sent.filter((uin) => !isBerlin(uin))).toEqual(elsewhere);
    expect(sent.filter(isBerlin).length).toBe(berlinSent);
    const progress = await progressOf(taskId);
    expect(progress.state).toBe('SENDING');
    expect(progress.quietHold).toEqual({
      until: BERLIN_MORNING,
      recipients: berlin.length - berlinSent,
      message: `held for quiet hours until 06:00 UTC on 2026-06-02 for ${berlin.length - berlinSent} recipients`,
    });
    expect(progress.localGroups.filter((g) => g.heldUntil !== undefined)).toEqual([
      expect.objectContaining({ offsetMinutes: 120, heldUntil: BERLIN_MORNING }),
    ]);
    const unsent = berlin.find((uin) => !sent.includes(uin))!;
    const fate = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${taskId}/recipients/${unsent}`);
    expect(fate.body).toMatchObject({
      fate: 'not_reached',
      why: 'held for its quiet hours until 2026-06-02T06:00:00.000Z',
      localGroup: { offsetMinutes: 120, heldUntil: BERLIN_MORNING },
    });
  }

  /** Moves the clock to the end of Berlin's quiet hours: the task completes with every user sent exactly once. */
  async function expectMorningDelivery(taskId: number): Promise<void> {
    clock.at = BERLIN_MORNING;
    const done = await waitForEnd(cluster, taskId);
    expect(done.state).toBe('COMPLETED');
    expect(done.report.delivered).toBe(uins.length);
    expect([...(await sinkUins(cluster, taskId))]).toEqual([...uins]);
  }

  it("holds a zone's remaining recipients when its quiet hours begin mid-sending, across a restart", async () => {
    await start(1);
    const task = await create();
    // One batch of Berlin went at 21:59; the next is in hand (judged before 22:00) when the clock moves on.
    await waitFor(() => gate.waiting > 0, { timeoutMs: 30_000, message: 'no second Berlin batch reached the gate' });
    clock.at = INSIDE;
    gate.release();
    await expectBerlinHeld(task.id, 2 * BATCH);

    // The hold is in the task's report and its units' checkpoints: a restarted cluster keeps it.
    await cluster.stop();
    await start(Infinity);
    await waitFor(async () => (await progressOf(task.id)).quietHold !== undefined, {
      timeoutMs: 30_000,
      message: 'the restarted cluster lost the hold',
    });
    expect((await cluster.store.getTask(task.id))!.state).toBe('SENDING');
    expect((await sinkUins(cluster, task.id)).filter(isBerlin).length).toBe(2 * BATCH);
    await expectMorningDelivery(task.id);
  }, 120_000);

  it('holds a task paused before quiet hours and resumed inside them', async () => {
    await start(0);
    const task = await create();
    await waitFor(() => gate.waiting > 0, { timeoutMs: 30_000, message: 'no Berlin batch reached the gate' });
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/pause`)).status).toBe(202);
    await waitForState(cluster, task.id, ['PAUSED']);
    // Into the quiet hours before the batch in hand lands: the executor may take the next batch while the first
    // is confirmed, before it reads the halt, and that one must be held, not sent, whichever comes first.
    clock.at = INSIDE;
    gate.release();
    await waitFor(async () => (await sinkUins(cluster, task.id)).filter(isBerlin).length === BATCH, {
      timeoutMs: 30_000,
      message: 'the Berlin batch in hand at the pause did not land',
    });

    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/resume`)).status).toBe(202);
    await expectBerlinHeld(task.id, BATCH);
    await expectMorningDelivery(task.id);
  }, 120_000);
});
