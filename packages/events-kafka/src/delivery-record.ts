import type { Delivery } from '@herald/core/ports';

/**
 * The records of the Kafka delivery channel (docs/delivery.md, "The Kafka
 * topic"; the value's JSON Schema is docs/schemas/delivery-record.schema.json).
 * A batch becomes one record per uin range it touches: the uins of one record
 * share `uin >>> keyShiftBits`, which is its key, so a consumer that shards
 * by uin range (a partition per range, or a key per shard) gets each
 * recipient on the partition its range hashes to, and a batch sent again
 * lands on the same partitions as the first time. A record larger than the
 * limit is halved until it fits.
 */

/** Version of the record value's grammar, its `"v"` (docs/architecture.md, "Wire versions"). */
export const DELIVERY_RECORD_VERSION = 1;

/** The headers of every record. */
export const DELIVERY_HEADERS = {
  /** The batch's idempotency key (the webhook's `Idempotency-Key`): the same on every record of a batch and when sent again. */
  idempotencyKey: 'idempotency-key',
  /** Always `application/json`. */
  contentType: 'content-type',
} as const;

/** The JSON value of one record. */
export interface DeliveryRecordValue {
  v: typeof DELIVERY_RECORD_VERSION;
  taskId: number;
  atLogin: boolean;
  /** Pre-delivery: when the client shows the message (epoch ms); null: on arrival. */
  displayAt: number | null;
  content: Delivery['content'];
  /** Ascending, all with the record's key as `uin >>> keyShiftBits`. */
  uins: number[];
  /** A personalised (template) task: `contents[i]` for `uins[i]`; absent otherwise. */
  contents?: Delivery['content'][];
}

export interface DeliveryRecord {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/** The idempotency key of a batch: `<taskId>:<P|L>:<first uin>:<last uin>:<count>`, as the webhook's. */
export function batchIdempotencyKey(delivery: Delivery): string {
  const { uins } = delivery;
  return `${delivery.taskId}:${delivery.atLogin ? 'L' : 'P'}:${uins[0]}:${uins[uins.length - 1]}:${uins.length}`;
}

/** A record a single recipient needs is over the limit: the batch cannot be sent as it is. */
export class RecordTooLarge extends Error {
  constructor(
    readonly uin: number,
    readonly bytes: number,
  ) {
    super(`the record for uin ${uin} is ${bytes} bytes`);
  }
}

/** A non-empty batch's records, each value at most `maxRecordBytes`; throws RecordTooLarge when one recipient's alone is not. */
export function deliveryRecords(delivery: Delivery, keyShiftBits: number, maxRecordBytes: number): DeliveryRecord[] {
  const headers = {
    [DELIVERY_HEADERS.idempotencyKey]: batchIdempotencyKey(delivery),
    [DELIVERY_HEADERS.contentType]: 'application/json',
  };
  const records: DeliveryRecord[] = [];
  for (const [key, start, end] of shardRuns(delivery.uins, keyShiftBits))
    for (const value of fitted(delivery, start, end, maxRecordBytes)) records.push({ key, value, headers });
  return records;
}

/** Runs [start, end) of the sorted uins sharing `uin >>> shift`, with that shard as a decimal key. */
function* shardRuns(uins: Uint32Array, shift: number): Generator<[string, number, number]> {
  const shardOf = (uin: number) => (shift >= 32 ? 0 : uin >>> shift);
  let start = 0;
  for (let i = 1; i <= uins.length; i++) {
    if (i < uins.length && shardOf(uins[i]!) === shardOf(uins[start]!)) continue;
    yield [String(shardOf(uins[start]!)), start, i];
    start = i;
  }
}

/** The values of uins [start, end), halved until each fits in `max` bytes. */
function fitted(delivery: Delivery, start: number, end: number, max: number): Buffer[] {
  const value = Buffer.from(JSON.stringify(recordValue(delivery, start, end)));
  if (value.length <= max) return [value];
  if (end - start === 1) throw new RecordTooLarge(delivery.uins[start]!, value.length);
  const middle = start + Math.floor((end - start) / 2);
  return [...fitted(delivery, start, middle, max), ...fitted(delivery, middle, end, max)];
}

function recordValue(delivery: Delivery, start: number, end: number): DeliveryRecordValue {
  return {
    v: DELIVERY_RECORD_VERSION,
    taskId: delivery.taskId,
    atLogin: delivery.atLogin,
    displayAt: delivery.displayAt ?? null,
    content: delivery.content,
    uins: Array.from(delivery.uins.subarray(start, end)),
    ...(delivery.contents === undefined ? {} : { contents: delivery.contents.slice(start, end) }),
  };
}
