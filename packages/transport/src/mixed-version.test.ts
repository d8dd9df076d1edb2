/**
 * A mixed-version pair over the real transport (ZeroMQ over tcp), as during a
 * rolling upgrade: the readers (dispatchers, executors) are on this build, a
 * writer (a scheduler) is still on the previous one. The previous build's
 * frames are the committed version 1 fixtures, byte for byte what it sent;
 * this build's dispatcher inbox must take them alongside its own version 2.
 * The reverse pair, this build writing to a previous reader, is refused by
 * name: that is why docs/operations.md upgrades readers before writers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FrameError } from '@herald/core';
import * as zmq from 'zeromq';
import { createPull, createPush } from './channels';
import type { PullChannel } from './channels';
import { encodeMessageAs } from './messages';
import * as unitRunV1 from './messages/unit-run/v1';
import type { Message, PreprocessRequest, TaskHalt, UnitRun } from './messages/types';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function collect(pull: PullChannel): Message[] {
  const received: Message[] = [];
  void (async () => {
    for await (const msg of pull.messages()) received.push(msg);
  })();
  return received;
}

/** A committed fixture: the frame a build of that version sent, and what this build reads from it. */
function fixture(dir: string, name: string): { frame: Buffer; message: Message } {
  const at = join(__dirname, 'messages', dir, 'fixtures', name);
  return { frame: readFileSync(`${at}.bin`), message: JSON.parse(readFileSync(`${at}.json`, 'utf8')) as Message };
}

/** A flat message as a string that does not depend on its keys' order. */
const flatKey = (msg: Message) => JSON.stringify(Object.entries(msg).sort(([a], [b]) => a.localeCompare(b)));

const run: UnitRun = {
  kind: 'unit.run',
  taskId: 7,
  epoch: 2,
  unitNo: 1,
  filteredListId: 'f_7',
  start: 100,
  end: 200,
  from: 100,
  executorId: 'executor-1',
  realtime: true,
};
const request: PreprocessRequest = {
  kind: 'preprocess.request',
  taskId: 7,
  epoch: 2,
  listId: 'l_7',
  accountId: 'acct',
  contentCrc: 99,
  speed: 5000,
};
const closingHalt: TaskHalt = { kind: 'task.halt', taskId: 7, epoch: 2, closesEpoch: true };

let toClose: { close(): void }[] = [];
afterEach(() => {
  for (const socket of toClose) socket.close();
  toClose = [];
});

describe('a previous-version writer and a current reader, over tcp', () => {
  it("this build's inbox reads the previous build's unit.run, preprocess.request and task.halt next to its own", async () => {
    const inbox = await createPull({ name: 'dispatcher', endpoint: 'tcp://127.0.0.1:*', highWaterMark: 64 });
    toClose.push(inbox);
    const received = collect(inbox);
    const previousScheduler = new zmq.Push({ linger: 0 });
    toClose.push(previousScheduler);
    previousScheduler.connect(inbox.endpoint);
    const currentScheduler = await createPush({ name: 'scheduler', endpoints: [inbox.endpoint], highWaterMark: 64 });
    toClose.push(currentScheduler);

    // Every version 1 shape a previous build sent: the committed fixtures, and the messages above as it would write them.
    const previous = [
      fixture('unit-run', 'v1-before-realtime'),
      fixture('unit-run', 'v1'),
      fixture('preprocess-request', 'v1-before-speed'),
      fixture('preprocess-request', 'v1'),
      fixture('task-halt', 'v1'),
      fixture('task-halt', 'v1-closes-epoch'),
      ...[run, request, closingHalt].map((message) => ({ frame: encodeMessageAs(message, 1), message })),
    ];
    expect(previous.map((p) => p.frame[1])).toEqual(previous.map(() => 1));
    for (const { frame } of previous) await previousScheduler.send(frame);
    for (const message of [run, request, closingHalt]) await currentScheduler.send(message);

    await waitFor(() => received.length === previous.length + 3, 'every frame of both schedulers');
    expect(inbox.malformed).toBe(0);
    expect(received.map(flatKey).sort()).toEqual(
      [...previous.map((p) => p.message), run, request, closingHalt].map(flatKey).sort(),
    );
    // The defaults a previous build's frame gets where it had no field: not real-time, no speed.
    expect(received).toContainEqual({ ...fixture('unit-run', 'v1').message, realtime: false });
    expect(received).toContainEqual({ ...fixture('preprocess-request', 'v1').message, speed: 0 });
  });

  it("a previous build's reader refuses this build's unit.run as version 2, by name: readers upgrade first", async () => {
    const previousInbox = new zmq.Pull({ linger: 0 });
    toClose.push(previousInbox);
    await previousInbox.bind('tcp://127.0.0.1:*');
    const currentScheduler = await createPush({
      name: 'scheduler',
      endpoints: [previousInbox.lastEndpoint!],
      highWaterMark: 64,
    });
    toClose.push(currentScheduler);

    await currentScheduler.send(run);
    const [frame] = await previousInbox.receive();
    let refused: unknown;
    try {
      unitRunV1.decode(frame!); // what the previous build decodes unit.run with: version 1 only
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(FrameError);
    expect([(refused as FrameError).code, (refused as FrameError).details.version]).toEqual([
      'FRAME_UNSUPPORTED_VERSION',
      2,
    ]);
  });
});
