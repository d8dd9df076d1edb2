import {
  addSample,
  checkHistory,
  emptyHistory,
  estimatedFinish,
  halveResolution,
  recentRate,
  type ProgressHistory,
} from './history';

const limits = { intervalMs: 1000, maxSamples: 8 };

function feed(points: [number, number][], lim = limits): ProgressHistory {
  let h = emptyHistory(lim);
  for (const [at, confirmed] of points) h = addSample(h, { at, confirmed }, lim);
  return h;
}

describe('addSample', () => {
  it('keeps points an interval apart and moves the head forward within one', () => {
    const h = feed([
      [0, 0],
      [300, 4096],
      [900, 8192],
      [1200, 12288],
      [1800, 16384],
    ]);
    expect(h.samples).toEqual([
      { at: 0, confirmed: 0 },
      { at: 900, confirmed: 8192 },
      { at: 1800, confirmed: 16384 },
    ]);
  });

  it('never goes back in time or count', () => {
    const h = feed([
      [5000, 100],
      [4000, 50],
    ]);
    expect(h.samples).toEqual([{ at: 5000, confirmed: 100 }]);
  });

  it('stays within maxSamples for any length, halving its resolution, and keeps the first and the newest point', () => {
    const points: [number, number][] = [];
    for (let s = 0; s <= 10_000; s++) points.push([s * 1000, s * 10]);
    const h = feed(points);
    expect(h.samples.length).toBeLessThanOrEqual(limits.maxSamples);
    expect(h.samples[0]).toEqual({ at: 0, confirmed: 0 });
    expect(h.samples[h.samples.length - 1]).toEqual({ at: 10_000_000, confirmed: 100_000 });
    expect(h.intervalMs).toBeGreaterThan(1000);
    expect(() => checkHistory(h)).not.toThrow();
  });

  it('does not change the history it is given', () => {
    const h = feed([[0, 0]]);
    addSample(h, { at: 2000, confirmed: 5 }, limits);
    expect(h.samples).toHaveLength(1);
  });
});

describe('halveResolution', () => {
  it('drops every other point and doubles the interval', () => {
    const h = feed([
      [0, 0],
      [1000, 1],
      [2000, 2],
      [3000, 3],
    ]);
    expect(halveResolution(h)).toEqual({
      intervalMs: 2000,
      samples: [
        { at: 0, confirmed: 0 },
        { at: 2000, confirmed: 2 },
        { at: 3000, confirmed: 3 },
      ],
    });
  });
});

describe('recentRate and estimatedFinish', () => {
  const h = feed([
    [0, 0],
    [1000, 0],
    [11_000, 0],
    [21_000, 100_000],
    [31_000, 200_000],
  ]);

  it('measures the rate over the window ending at the head', () => {
    expect(recentRate(h, 10_000)).toBe(10_000);
    expect(recentRate(h, 20_000)).toBe(10_000);
    expect(recentRate(h, 30_000)).toBeCloseTo(200_000 / 30);
  });

  it('answers 0 for a curve of one point', () => {
    expect(recentRate(feed([[0, 5]]), 10_000)).toBe(0);
  });

  it('estimates the finish from the head at the rate; null without a rate; the head time once done', () => {
    expect(estimatedFinish(h, 300_000, 10_000)).toBe(41_000);
    expect(estimatedFinish(h, 300_000, 0)).toBeNull();
    expect(estimatedFinish(h, 200_000, 0)).toBe(31_000);
    expect(estimatedFinish(emptyHistory(), 10, 5)).toBeNull();
  });
});

describe('checkHistory', () => {
  it.each([
    [{ intervalMs: 0, samples: [] }, 'intervalMs'],
    [{ intervalMs: 1000, samples: 'x' }, 'samples must be an array'],
    [{ intervalMs: 1000, samples: [], extra: 1 }, 'extra is not a known field'],
    [{ intervalMs: 1000, samples: [{ at: 1, confirmed: -1 }] }, 'samples[0].confirmed'],
    [
      {
        intervalMs: 1000,
        samples: [
          { at: 2, confirmed: 1 },
          { at: 1, confirmed: 1 },
        ],
      },
      'samples[1] goes back',
    ],
  ])('refuses %j naming the field', (bad, message) => {
    expect(() => checkHistory(bad as unknown as ProgressHistory)).toThrow(message);
  });
});
