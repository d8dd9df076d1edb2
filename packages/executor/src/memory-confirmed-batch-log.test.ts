import { confirmedBatchLogConformance } from '@herald/testing';
import { MemoryConfirmedBatchLog } from './memory-confirmed-batch-log';

confirmedBatchLogConformance('MemoryConfirmedBatchLog', async () => ({
  store: new MemoryConfirmedBatchLog(),
  cleanup: async () => {},
}));

describe('MemoryConfirmedBatchLog', () => {
  it('forgets the oldest unit past its bound, and keeps the newer ones', async () => {
    const log = new MemoryConfirmedBatchLog(2);
    await log.record(1, 0, 0, { to: 1, delivered: 1, offline: 0 }, Infinity);
    await log.record(1, 1, 0, { to: 1, delivered: 1, offline: 0 }, Infinity);
    await log.record(2, 0, 0, { to: 1, delivered: 1, offline: 0 }, Infinity);
    expect(await log.get(1, 0, 0)).toBeUndefined();
    expect(await log.get(1, 1, 0)).toEqual({ to: 1, delivered: 1, offline: 0 });
    expect(await log.get(2, 0, 0)).toEqual({ to: 1, delivered: 1, offline: 0 });
  });
});
