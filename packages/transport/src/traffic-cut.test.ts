import type { Meter } from '@herald/core/ports';
import * as zmq from 'zeromq';
import { createPull, createPush, inprocEndpoint, isTrafficCut, setTrafficCut } from './channels';
import type { PullChannel } from './channels';
import { encodeMessage } from './messages';
import type { Message, TaskHalt } from './messages/types';

const halt = (taskId: number): TaskHalt => ({ kind: 'task.halt', taskId, epoch: 1 });

/** The next message the channel yields; fails once the deadline passes. */
async function next(iterator: AsyncIterator<Message>, timeoutMs = 5000): Promise<Message> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no message within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([iterator.next(), deadline]);
    if (result.done === true) throw new Error('the channel closed');
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let cutFrames = 0;
const meter: Meter = {
  counter: (name) => ({
    inc: (_labels, value = 1) => {
      if (name === 'herald_transport_cut_frames_total') cutFrames += value;
    },
  }),
  gauge: () => ({ set() {} }),
  histogram: () => ({ observe() {} }),
};

let pull: PullChannel;
const closers: { close(): void }[] = [];

beforeEach(async () => {
  cutFrames = 0;
  pull = await createPull({ name: 'cut-pull', endpoint: inprocEndpoint('cut'), highWaterMark: 100, meter });
  closers.push(pull);
});

afterEach(() => {
  setTrafficCut(false);
  for (const c of closers.splice(0)) c.close();
});

describe('setTrafficCut (fault injection)', () => {
  it('makes pushes drop what they are given; the link carries on once restored', async () => {
    const push = await createPush({ name: 'cut-push', endpoints: [pull.endpoint], highWaterMark: 100 });
    closers.push(push);
    const messages = pull.messages()[Symbol.asyncIterator]();
    setTrafficCut(true);
    expect(isTrafficCut()).toBe(true);
    for (let i = 1; i <= 5; i++) await push.send(halt(i)); // resolves at once: dropped, never waiting
    await expect(push.send({ kind: 'task.halt', taskId: -1, epoch: 1 })).rejects.toMatchObject({
      code: 'FRAME_MALFORMED',
    });
    setTrafficCut(false);
    await push.send(halt(100));
    // One link keeps its order: had anything sent under the cut gone out, it would come first.
    expect(await next(messages)).toEqual(halt(100));
    expect(cutFrames).toBe(0);
  });

  it('makes pulls drop (and count) the frames they receive', async () => {
    // A raw socket, so that the frames really reach the PULL while the cut is on.
    const raw = new zmq.Push({ linger: 0 });
    closers.push(raw);
    raw.connect(pull.endpoint);
    const messages = pull.messages()[Symbol.asyncIterator]();
    const first = next(messages);
    setTrafficCut(true);
    for (let i = 1; i <= 5; i++) await raw.send(encodeMessage(halt(i)));
    await until(() => cutFrames === 5, 'five frames dropped by the cut');
    setTrafficCut(false);
    await raw.send(encodeMessage(halt(100)));
    expect(await first).toEqual(halt(100));
    expect(pull.malformed).toBe(0);
  });
});
