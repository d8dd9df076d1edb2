import { crc32 } from 'node:zlib';
import { FencedError } from '../errors';
import { contentCrc } from './content';
import { checkFence } from './fence';
import { emptyReport, FILTER_REASONS, localGroupAt, removedTotal, type LocalGroup } from './model';

describe('checkFence', () => {
  it('lets the current owner (same epoch) write', () => {
    expect(() => checkFence({ id: 1, epoch: 5 }, { epoch: 5 })).not.toThrow();
  });

  it('refuses a stale epoch with FencedError naming both epochs', () => {
    let thrown: unknown;
    try {
      checkFence({ id: 42, epoch: 6 }, { epoch: 5 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FencedError);
    expect((thrown as FencedError).code).toBe('FENCED');
    expect((thrown as FencedError).retriable).toBe(false);
    expect((thrown as FencedError).details).toEqual({ taskId: 42, heldEpoch: 5, storedEpoch: 6 });
    expect(() => checkFence({ id: 1, epoch: 1 }, { epoch: 0 })).toThrow(FencedError);
  });
});

describe('contentCrc', () => {
  it('is the CRC-32 of title, NUL, body', () => {
    expect(contentCrc({ title: 'Sale', body: 'Half price today' })).toBe(
      crc32(Buffer.from('Sale\u0000Half price today', 'utf8')),
    );
    expect(contentCrc({ body: 'hello' })).toBe(crc32(Buffer.from('\u0000hello')));
  });

  it('gives the same key for the same text and different keys for different text', () => {
    const a = contentCrc({ title: 't', body: 'body' });
    expect(contentCrc({ title: 't', body: 'body' })).toBe(a);
    expect(contentCrc({ title: 't', body: 'body!' })).not.toBe(a);
    expect(contentCrc({ title: 'u', body: 'body' })).not.toBe(a);
    // The separator keeps title and body apart.
    expect(contentCrc({ title: 'ab', body: 'c' })).not.toBe(contentCrc({ title: 'a', body: 'bc' }));
    expect(contentCrc({ body: 'x' })).toBe(contentCrc({ title: '', body: 'x' }));
  });

  it('hashes UTF-8 and returns an unsigned 32-bit integer', () => {
    const crc = contentCrc({ body: '周末大促 🎉' });
    expect(crc).toBe(crc32(Buffer.from('\u0000周末大促 🎉', 'utf8')));
    expect(crc).toBeGreaterThanOrEqual(0);
    expect(crc).toBeLessThan(2 ** 32);
  });
});

describe('task report helpers', () => {
  it('starts a report with the total and nothing else', () => {
    expect(emptyReport(1000)).toEqual({
      total: 1000,
      kept: 0,
      removed: {},
      delivered: 0,
      offline: 0,
      units: 0,
      unitsDone: 0,
    });
    expect(emptyReport(1).removed).not.toBe(emptyReport(1).removed);
  });

  it('sums the recipients removed by every filter', () => {
    const report = emptyReport(100);
    expect(removedTotal(report)).toBe(0);
    report.removed = { duplicate: 3, blacklisted: 4, over_frequency: 0, targeting: 10 };
    expect(removedTotal(report)).toBe(17);
    report.removed = Object.fromEntries(FILTER_REASONS.map((reason) => [reason, 1]));
    expect(removedTotal(report)).toBe(FILTER_REASONS.length);
  });
});

describe('localGroupAt', () => {
  const group = (start: number, end: number): LocalGroup => ({
    offsetMinutes: 0,
    releaseAt: 0,
    start,
    end,
    skipped: false,
    released: false,
    delivered: 0,
    offline: 0,
  });
  const report = { ...emptyReport(10), localGroups: [group(0, 4), group(4, 4), group(4, 10)] };

  it('finds the group whose positions hold a delivery-order position (an empty group holds none)', () => {
    expect([0, 3, 4, 9].map((position) => localGroupAt({ report }, position))).toEqual([0, 0, 2, 2]);
  });

  it('has none for a task without groups or a position past them', () => {
    expect(localGroupAt({ report: emptyReport(10) }, 0)).toBeUndefined();
    expect(localGroupAt({ report }, 10)).toBeUndefined();
  });
});
