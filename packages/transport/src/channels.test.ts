import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameError, HeraldError } from '@herald/core';
import type { Counter, Logger, Meter } from '@herald/core/ports';
import * as zmq from 'zeromq';
import { createPull, createPush, inprocEndpoint } from './channels';
import type { PullChannel, PushChannel } from './channels';
import { encodeMessage } from './messages';
import type { Message, TaskHalt, UnitBatch } from './messages/types';

/** Polls `condition` until it holds; fails with `what` once the deadline passes. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Reads messages in the background into `received` until the channel closes. */
function collect(pull: PullChannel): { received: Message[]; done: Promise<void> } {
  const received: Message[] = [];
  const done = (async () => {
    for await (const msg of pull.messages()) received.push(msg);
  })();
  return { received, done };
}

const halt = (taskId: number): TaskHalt => ({ kind: 'task.halt', taskId, epoch: 1 });
const BATCH = 64;
const batch = (i: number): UnitBatch => ({
  kind: 'unit.batch',
  taskId: 9,
  epoch: 1,
  unitNo: 0,
  offset: i * BATCH,
  last: false,
  uins: Uint32Array.from({ length: BATCH }, (_, j) => i * BATCH + j),
});

let toClose: { close(): void }[] = [];
const track = <T extends { close(): void }>(channel: T): T => {
  toClose.push(channel);
  return channel;
};
afterEach(() => {
  for (const channel of toClose) channel.close();
  toClose = [];
});

async function pair(endpoint: string, highWaterMark = 1000): Promise<{ push: PushChannel; pull: PullChannel }> {
  const pull = track(await createPull({ name: 'test-pull', endpoint, highWaterMark }));
  const push = track(await createPush({ name: 'test-push', endpoints: [pull.endpoint], highWaterMark }));
  return { push, pull };
}

async function sendTenThousandBatches(endpoint: string): Promise<void> {
  const { push, pull } = await pair(endpoint);
  const { received, done } = collect(pull);
  const count = 10_000;
  await Promise.all(Array.from({ length: count }, (_, i) => push.send(batch(i))));
  await waitFor(() => received.length === count, `${count} batches`);
  received.forEach((msg, i) => {
    expect(msg.kind).toBe('unit.batch');
    const { offset, uins } = msg as UnitBatch;
    if (offset !== i * BATCH || uins[0] !== i * BATCH || uins[BATCH - 1] !== i * BATCH + BATCH - 1) {
      throw new Error(`batch ${i} arrived out of order or damaged (offset ${offset})`);
    }
  });
  pull.close();
  await done;
}

describe('channels over zeromq', () => {
  it("sends the release's version unless told to send the newest it reads", async () => {
    const pull = track(
      await createPull({ name: 'versions-pull', endpoint: inprocEndpoint('versions'), highWaterMark: 10 }),
    );
    const { received } = collect(pull);
    const release = track(await createPush({ name: 'release', endpoints: [pull.endpoint], highWaterMark: 10 }));
    const newest = track(
      await createPush({ name: 'newest', endpoints: [pull.endpoint], highWaterMark: 10, sendNewest: true }),
    );
    const progress: Message = {
      kind: 'unit.progress',
      taskId: 3,
      epoch: 1,
      unitNo: 0,
      from: 0,
      to: 4,
      delivered: 3,
      offline: 0,
      done: true,
      deadLetters: { unregistered: 1 },
    };
    await release.send(progress);
    await waitFor(() => received.length === 1, 'the release-version report');
    await newest.send(progress);
    await waitFor(() => received.length === 2, 'the newest-version report');
    // Version 1 (what this release sends between builds) has no dead letters; version 2 carries them.
    expect(received).toEqual([{ ...progress, deadLetters: undefined }, progress]);
  });

  it('inprocEndpoint returns unique inproc addresses', () => {
    const a = inprocEndpoint('x');
    expect(a).toMatch(/^inproc:\/\/herald-x-\d+-\d+-[0-9a-f]{8}$/);
    expect(inprocEndpoint('x')).not.toBe(a);
  });

  it('inprocEndpoint stays unique when the module is loaded again in the same process (one zeromq context)', () => {
    const firstOf = () => {
      let endpoint = '';
      jest.isolateModules(() => {
        endpoint = (require('./channels') as typeof import('./channels')).inprocEndpoint('x');
      });
      return endpoint;
    };
    // Each load's counter starts again at 1: only the load's own random part tells them apart.
    expect(firstOf()).not.toBe(firstOf());
  });

  it('carries 10,000 unit.batch messages in order over inproc', () =>
    sendTenThousandBatches(inprocEndpoint('batches')));

  it('carries 10,000 unit.batch messages in order over ipc', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-transport-'));
    try {
      await sendTenThousandBatches(`ipc://${join(dir, 'pull.sock')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('works over tcp with a wildcard port', async () => {
    const { push, pull } = await pair('tcp://127.0.0.1:*');
    expect(pull.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const { received } = collect(pull);
    await push.send(halt(1));
    await waitFor(() => received.length === 1, 'one message over tcp');
    expect(received).toEqual([halt(1)]);
  });

  it('counts, logs and skips malformed frames, then keeps receiving', async () => {
    const incs: Record<string, string>[] = [];
    const counter: Counter = { inc: (labels) => incs.push(labels ?? {}) };
    const meter: Meter = {
      counter: (name) => (name === 'herald_transport_malformed_frames_total' ? counter : { inc() {} }),
      gauge: () => ({ set() {} }),
      histogram: () => ({ observe() {} }),
    };
    const warnings: Record<string, unknown>[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_m, fields) => warnings.push(fields ?? {}) };
    const endpoint = inprocEndpoint('malformed');
    const pull = track(await createPull({ name: 'exec-1', endpoint, highWaterMark: 10, meter, logger }));
    const raw = new zmq.Push({ linger: 0 });
    track(raw);
    raw.connect(endpoint);
    const { received } = collect(pull);

    await raw.send(Buffer.from([99, 1, 0, 0]));
    await raw.send(encodeMessage(halt(1)));
    await waitFor(() => received.length === 1, 'the valid message after the malformed one');
    expect(received).toEqual([halt(1)]);
    expect(pull.malformed).toBe(1);
    expect(incs).toEqual([{ channel: 'exec-1' }]);
    expect(warnings).toEqual([expect.objectContaining({ channel: 'exec-1', code: 'FRAME_UNKNOWN_KIND' })]);

    await raw.send([encodeMessage(halt(2)), encodeMessage(halt(3))]); // multipart: not one of ours
    await raw.send(encodeMessage(halt(4)).subarray(0, 5)); // truncated
    await raw.send(encodeMessage(halt(5)));
    await waitFor(() => received.length === 2, 'the next valid message');
    expect(received).toEqual([halt(1), halt(5)]);
    expect(pull.malformed).toBe(3);
    expect(warnings.map((w) => w.code)).toEqual(['FRAME_UNKNOWN_KIND', 'FRAME_MALFORMED', 'FRAME_MALFORMED']);
  });

  it('ends the iteration cleanly when the pull channel closes', async () => {
    const { pull } = await pair(inprocEndpoint('close'));
    let ended = false;
    const { done } = collect(pull);
    void done.then(() => (ended = true));
    pull.close();
    await waitFor(() => ended, 'the iteration to end');
    await expect(done).resolves.toBeUndefined();
  });

  it('allows one consumer at a time', async () => {
    const { pull } = await pair(inprocEndpoint('consumers'));
    const { done } = collect(pull);
    await expect(pull.messages()[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'INTERNAL' });
    pull.close();
    await done;
  });

  it('applies backpressure: send stays pending at the high-water mark until the receiver reads', async () => {
    const { push, pull } = await pair(inprocEndpoint('backpressure'), 1); // createPull resolved: the receiver is bound
    const count = 50;
    const settled: boolean[] = Array(count).fill(false);
    const sends = Array.from({ length: count }, (_, i) => push.send(halt(i)).then(() => (settled[i] = true)));
    const settledCount = () => settled.filter(Boolean).length;

    await waitFor(() => settledCount() >= 1, 'the first sends to settle');
    // Nothing reads, so the queue cannot drain: trying to observe the last send settling must time out.
    await expect(waitFor(() => settled[count - 1]!, 'the last send', 300)).rejects.toThrow(/timed out/);
    expect(settled[0]).toBe(true);
    expect(settled[count - 1]).toBe(false);
    expect(settledCount()).toBeLessThan(10);

    const { received } = collect(pull);
    await waitFor(() => settledCount() === count, 'every send to settle once reading starts');
    await Promise.all(sends);
    await waitFor(() => received.length === count, 'every message');
    expect(received).toEqual(Array.from({ length: count }, (_, i) => halt(i)));
  });

  it('rejects sends it cannot encode without blocking the ones after', async () => {
    const { push, pull } = await pair(inprocEndpoint('encode'));
    const { received } = collect(pull);
    await expect(push.send({ kind: 'task.halt', taskId: -1, epoch: 1 })).rejects.toBeInstanceOf(FrameError);
    await push.send(halt(2));
    await waitFor(() => received.length === 1, 'the valid message');
    expect(received).toEqual([halt(2)]);
  });

  it('rejects sends after close, and pending sends on close, with UNAVAILABLE', async () => {
    const { push } = await pair(inprocEndpoint('closed'), 1);
    const sends = Array.from({ length: 10 }, (_, i) => push.send(halt(i)).catch((error: unknown) => error));
    push.close();
    const outcomes = await Promise.all(sends);
    const errors = outcomes.filter((o) => o instanceof Error);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    await expect(push.send(halt(99))).rejects.toBeInstanceOf(HeraldError);
  });

  it('gives up a send its peer does not take within sendTimeoutMs, saying it timed out, and goes on', async () => {
    // Nothing binds this endpoint: the push queues up to its high-water mark, then cannot queue more.
    const push = await createPush({
      name: 'to-nobody',
      endpoints: [inprocEndpoint('nobody')],
      highWaterMark: 1,
      sendTimeoutMs: 50,
    });
    const outcomes = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        push.send(halt(i)).then(
          () => 'queued',
          (error: unknown) => error,
        ),
      ),
    );
    const timedOut = outcomes.filter((o) => o instanceof HeraldError);
    expect(timedOut.length).toBeGreaterThan(0);
    for (const error of timedOut) expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { timedOut: true } });
    push.close();
  });
});
