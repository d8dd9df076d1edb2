import type { Message, PullChannel } from '@herald/transport';
import { createUnitSlots, UNIT_IDLE_MS } from './unit-slots';

function inboxOf(messages: Message[]): PullChannel {
  return {
    endpoint: 'inproc://test',
    malformed: 0,
    close: () => undefined,
    async *messages() {
      yield* messages;
    },
  };
}

const batch = (taskId: number, unitNo: number, last = false): Message => ({
  kind: 'unit.batch',
  taskId,
  epoch: 1,
  unitNo,
  offset: 0,
  last,
  uins: Uint32Array.of(1),
});

async function drain(inbox: PullChannel): Promise<Message[]> {
  const seen: Message[] = [];
  for await (const message of inbox.messages()) seen.push(message);
  return seen;
}

describe('createUnitSlots', () => {
  it('passes every message through and holds a slot per unit from its first batch to its last, over every inbox watched', async () => {
    const slots = createUnitSlots(4, () => 0);
    const main = [
      batch(1, 0),
      batch(1, 0),
      batch(1, 1),
      batch(2, 0),
      { kind: 'user.logins', uins: Uint32Array.of(5) } as Message,
    ];
    expect(await drain(slots.watch(inboxOf(main)))).toEqual(main);
    expect(slots.free()).toBe(1);
    await drain(slots.watch(inboxOf([batch(1, 0, true), batch(3, 0)]))); // the real-time inbox
    expect(slots.free()).toBe(1);
    await drain(slots.watch(inboxOf([batch(9, 9), batch(9, 8)])));
    expect(slots.free()).toBe(0); // 5 units on 4 slots: none free, never negative
  });

  it('frees the slot of a unit quiet for UNIT_IDLE_MS (halted, or its stream gone)', async () => {
    let now = 0;
    const slots = createUnitSlots(2, () => now);
    await drain(slots.watch(inboxOf([batch(1, 0), batch(2, 0)])));
    expect(slots.free()).toBe(0);
    now = UNIT_IDLE_MS;
    expect(slots.free()).toBe(0);
    now = UNIT_IDLE_MS + 1;
    expect(slots.free()).toBe(2);
  });
});
