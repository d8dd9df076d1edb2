import { ErrorCodes, HeraldError, isHeraldError } from '../errors';
import type { CheckedSubscribeOptions, Subscription } from '../ports/event-bus';
import type { CheckedEvent } from '../ports/event-bus-rules';
import { AbstractEventBus, type EventHandler } from './abstract-event-bus';

/** A bus that records what reaches its hooks; `_subscribe` can be held to close the bus meanwhile. */
class RecordingBus extends AbstractEventBus {
  readonly published: [string, readonly CheckedEvent[]][] = [];
  readonly closedSubscriptions: string[] = [];
  hold: Promise<void> = Promise.resolve();
  released = 0;

  constructor() {
    super({
      name: 'RecordingBus',
      noun: 'bus',
      translate: (error, op) =>
        isHeraldError(error) ? error : new HeraldError(ErrorCodes.INTERNAL, `${op}: ${String(error)}`),
    });
  }

  protected async _publish(topic: string, events: readonly CheckedEvent[]): Promise<void> {
    this.published.push([topic, events]);
  }

  protected async _subscribe(
    topic: string,
    group: string,
    _handler: EventHandler,
    _options: CheckedSubscribeOptions,
  ): Promise<Subscription> {
    await this.hold;
    return { close: async () => void this.closedSubscriptions.push(`${topic}/${group}`) };
  }

  protected async _close(): Promise<void> {
    this.released++;
  }
}

describe('AbstractEventBus', () => {
  it('checks topics and events once, and skips an empty publish', async () => {
    const bus = new RecordingBus();
    await expect(bus.publish('bad topic', [])).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    await expect(bus.publish('t', [{ key: 'k', value: 1, timestamp: -1 }])).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
    await bus.publish('t', []);
    await bus.publish('t', [{ key: 'k', value: { a: 1 }, timestamp: 5 }]);
    expect(bus.published).toEqual([['t', [{ key: 'k', timestamp: 5, json: '{"a":1}' }]]]);
    await expect(bus.subscribe('t', '', async () => undefined)).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
  });

  it('closes a subscription that came up while the bus was closing, and fails the call STORE_CLOSED', async () => {
    const bus = new RecordingBus();
    let release!: () => void;
    bus.hold = new Promise((resolve) => (release = resolve));
    const subscribing = bus.subscribe('t', 'g', async () => undefined);
    const closing = bus.close();
    release();
    await expect(subscribing).rejects.toMatchObject({
      code: ErrorCodes.STORE_CLOSED,
      message: 'RecordingBus.subscribe: the bus is closed',
    });
    await closing;
    expect(bus.closedSubscriptions).toEqual(['t/g']);
    expect(bus.released).toBe(1);
    await expect(bus.publish('t', [])).rejects.toMatchObject({ code: ErrorCodes.STORE_CLOSED });
  });
});
