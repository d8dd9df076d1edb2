import { isHeraldError } from '@herald/core';
import type { Delivery, DeliveryGateway, RecipientRejection } from '@herald/core/ports';

/** One delivery as downstream saw it. */
export interface ReceivedDelivery {
  taskId: number;
  uins: number[];
  atLogin: boolean;
  content: Delivery['content'];
  /** null: no display time (shown on arrival). */
  displayAt: number | null;
  /** A personalised batch: each recipient's content, parallel to uins; absent otherwise. */
  contents?: Delivery['content'][];
}

/** What downstream answers the next batch with, for the outcome tests (docs/delivery.md, "Outcomes"). */
export type DownstreamAnswer =
  | { kind: 'throttle'; retryAfterSeconds: number }
  | { kind: 'fail' }
  | { kind: 'refuse'; reason: string }
  | { kind: 'reject'; recipients: RecipientRejection[] };

/** A gateway under test and a view of what reached its downstream. */
export interface DeliveryGatewayHarness {
  gateway: DeliveryGateway;
  /**
   * Makes downstream answer the next batch so: required with the suite's
   * `outcomes` option (a channel that throttles, fails or rejects); a
   * downstream that only ever accepts (the file sink) leaves both out.
   */
  answerNext?(answer: DownstreamAnswer): void;
  /** Every delivery downstream received so far, batch by batch, in arrival order. */
  received(): Promise<ReceivedDelivery[]>;
  /** Releases what the harness holds (servers, directories); the gateway may already be closed. */
  dispose(): Promise<void>;
}

const content = { body: 'Hello from Herald', title: 'Greeting' };

/**
 * The DeliveryGateway contract (core/src/ports/delivery-gateway.ts), run by
 * every adapter's tests: what a resolved `deliver` accepted reaches
 * downstream whole (uins, content, atLogin, display time); a batch delivered
 * again arrives again with the same keys; an empty batch sends nothing;
 * `close` makes `deliver` reject with a HeraldError; an accepted batch
 * rejects no recipient. With `answerNext`, the outcomes: throttled rejects
 * DELIVERY_THROTTLED with `retryAfterMs`, failed UNAVAILABLE, refused whole
 * DELIVERY_REJECTED (none of them counts as received), and recipients
 * rejected for good come back in `rejected` while the rest are received.
 */
export function deliveryGatewayConformance(
  name: string,
  open: () => Promise<DeliveryGatewayHarness>,
  {
    outcomes = false,
    renderedOnly = false,
  }: {
    outcomes?: boolean;
    /**
     * Downstream sees each recipient's rendered content only, never the
     * template (a mobile-push channel: a device gets its own notification):
     * the personalised test then checks `contents` and leaves `content` be.
     */
    renderedOnly?: boolean;
  } = {},
): void {
  describe(`DeliveryGateway conformance: ${name}`, () => {
    let harness: DeliveryGatewayHarness;
    beforeEach(async () => {
      harness = await open();
    });
    afterEach(async () => {
      await harness.gateway.close();
      await harness.dispose();
    });

    /** Per task, the (uin, atLogin) pairs received, sorted: arrival order across tasks is not part of the contract. */
    async function receivedByTask(): Promise<Map<number, ReceivedDelivery[]>> {
      const byTask = new Map<number, ReceivedDelivery[]>();
      for (const delivery of await harness.received())
        byTask.set(delivery.taskId, [...(byTask.get(delivery.taskId) ?? []), delivery]);
      return byTask;
    }

    it('hands every recipient of an accepted batch downstream, with its content, flag and display time', async () => {
      await harness.gateway.deliver({ taskId: 1, uins: Uint32Array.of(3, 5, 0xffffffff), content, atLogin: false });
      await harness.gateway.deliver({
        taskId: 2,
        uins: Uint32Array.of(7),
        content: { body: 'later' },
        atLogin: true,
        displayAt: 1_800_000_000_000,
      });
      const byTask = await receivedByTask();
      expect(byTask.get(1)).toEqual([
        { taskId: 1, uins: [3, 5, 0xffffffff], atLogin: false, content, displayAt: null },
      ]);
      expect(byTask.get(2)).toEqual([
        { taskId: 2, uins: [7], atLogin: true, content: { body: 'later' }, displayAt: 1_800_000_000_000 },
      ]);
    });

    it('hands each recipient of a personalised batch its own content', async () => {
      const template = { body: 'Hello {{region|default:"there"}}', template: true as const };
      const contents = [{ body: 'Hello gd' }, { body: 'Hello there' }];
      await harness.gateway.deliver({
        taskId: 3,
        uins: Uint32Array.of(10, 11),
        content: template,
        contents,
        atLogin: false,
      });
      const received = (await receivedByTask()).get(3);
      if (renderedOnly) expect(received?.map((d) => [d.uins, d.contents])).toEqual([[[10, 11], contents]]);
      else
        expect(received).toEqual([
          { taskId: 3, uins: [10, 11], atLogin: false, content: template, contents, displayAt: null },
        ]);
    });

    it('delivers a batch sent again again, with the same keys (downstream deduplicates on taskId, uin)', async () => {
      const batch = { taskId: 9, uins: Uint32Array.of(1, 2), content, atLogin: false };
      await harness.gateway.deliver(batch);
      await harness.gateway.deliver(batch);
      const uins = (await receivedByTask()).get(9)!.flatMap((d) => d.uins);
      expect(uins).toEqual([1, 2, 1, 2]);
    });

    it('keeps every recipient of concurrent batches', async () => {
      const batches = Array.from({ length: 20 }, (_, i) => ({
        taskId: 4,
        uins: Uint32Array.of(2 * i, 2 * i + 1),
        content,
        atLogin: i % 2 === 0,
      }));
      await Promise.all(batches.map((b) => harness.gateway.deliver(b)));
      const got = (await receivedByTask()).get(4)!.flatMap((d) => d.uins.map((uin) => `${uin}:${d.atLogin}`));
      expect(got.sort()).toEqual(batches.flatMap((b) => [...b.uins].map((uin) => `${uin}:${b.atLogin}`)).sort());
    });

    it('resolves an accepted batch with no recipient rejected', async () => {
      const result = await harness.gateway.deliver({ taskId: 5, uins: Uint32Array.of(1, 2), content, atLogin: false });
      expect(result?.rejected ?? []).toEqual([]);
    });

    if (outcomes) outcomeTests(() => harness, receivedByTask);

    it('sends nothing for an empty batch', async () => {
      await harness.gateway.deliver({ taskId: 6, uins: new Uint32Array(0), content, atLogin: false });
      expect((await receivedByTask()).get(6)).toBeUndefined();
    });

    it('rejects with a HeraldError after close', async () => {
      await harness.gateway.close();
      const failure = await harness.gateway
        .deliver({ taskId: 1, uins: Uint32Array.of(1), content, atLogin: false })
        .catch((error: unknown) => error);
      expect(isHeraldError(failure)).toBe(true);
    });
  });
}

/** The outcomes a channel reports (docs/delivery.md, "Outcomes"), for adapters whose downstream can be told how to answer. */
function outcomeTests(
  harnessOf: () => DeliveryGatewayHarness,
  receivedByTask: () => Promise<Map<number, ReceivedDelivery[]>>,
): void {
  const batch = { taskId: 8, uins: Uint32Array.of(1, 2, 3), content, atLogin: false };
  function answerNext(answer: DownstreamAnswer): void {
    const harness = harnessOf();
    if (harness.answerNext === undefined) throw new Error('the outcome tests need a harness with answerNext');
    harness.answerNext(answer);
  }
  const gateway = () => harnessOf().gateway;

  it('rejects a throttled batch DELIVERY_THROTTLED, retriable, with how long to wait', async () => {
    answerNext({ kind: 'throttle', retryAfterSeconds: 2 });
    const error = await gateway()
      .deliver(batch)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DELIVERY_THROTTLED', retriable: true, details: { retryAfterMs: 2000 } });
    expect((await receivedByTask()).get(8)).toBeUndefined();
  });

  it('rejects a failed batch UNAVAILABLE, retriable', async () => {
    answerNext({ kind: 'fail' });
    const error = await gateway()
      .deliver(batch)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retriable: true });
    expect((await receivedByTask()).get(8)).toBeUndefined();
  });

  it('rejects a batch refused whole DELIVERY_REJECTED, not retriable, with the reason', async () => {
    answerNext({ kind: 'refuse', reason: 'payload too large' });
    const error = await gateway()
      .deliver(batch)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DELIVERY_REJECTED', retriable: false });
    expect((error as Error).message).toContain('payload too large');
    expect((await receivedByTask()).get(8)).toBeUndefined();
  });

  it('resolves with the recipients rejected for good, by reason', async () => {
    const recipients = [{ uin: 2, reason: 'unregistered' }];
    answerNext({ kind: 'reject', recipients });
    const result = await gateway().deliver(batch);
    expect(result?.rejected).toEqual(recipients);
  });
}
