import { mulberry32, seededRandom } from './random';

describe('mulberry32', () => {
  it('gives the same sequence for the same seed (fixture: seed 1)', () => {
    const next = mulberry32(1);
    expect([next(), next(), next()]).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('gives different sequences for different seeds', () => {
    expect(mulberry32(1)()).not.toBe(mulberry32(2)());
  });

  it('seededRandom maps onto [0, 1)', () => {
    const random = seededRandom(1);
    expect(random()).toBe(2693262067 / 4294967296);
    for (let i = 0; i < 10_000; i++) {
      const x = random();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});
