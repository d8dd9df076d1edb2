import { SentRate } from './sent-rate';

describe('SentRate', () => {
  it('is the recipients sent over the last window, per second', () => {
    const sent = new SentRate(1000);
    for (let t = 0; t <= 2000; t += 100) sent.record(500, t); // 5000/s: the window is (now - 1000, now]
    expect(sent.rate(2000, 0, 250)).toBe(5000);
    // 500 ms later, nothing more sent: half of the window's sends are gone.
    expect(sent.rate(2500, 0, 250)).toBe(2500);
  });

  it('counts from `since` when later than the window start, and says nothing under the shortest span', () => {
    const sent = new SentRate(1000);
    sent.record(1000, 0); // before the hold: not counted
    sent.record(500, 1600);
    sent.record(500, 1700);
    expect(sent.rate(1700, 1500, 250)).toBeUndefined(); // 200 ms since the hold ended
    expect(sent.rate(1750, 1500, 250)).toBe(4000); // 1000 recipients in 250 ms
  });

  it('stays exact over a long run, its forgotten sends dropped', () => {
    const sent = new SentRate(1000);
    for (let t = 0; t <= 600_000; t += 1) sent.record(1, t);
    expect(sent.rate(600_000, 0, 250)).toBe(1000);
  });
});
