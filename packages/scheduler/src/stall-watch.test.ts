import { StallWatch } from './stall-watch';

describe('StallWatch', () => {
  it('calls a unit stalled once its checkpoint has not moved for stallMs, then gives a re-run a whole stallMs', () => {
    const watch = new StallWatch(1000);
    expect(watch.isStalled(1, 0, 500, 0)).toBe(false); // first sight starts the clock
    expect(watch.isStalled(1, 0, 500, 999)).toBe(false);
    expect(watch.isStalled(1, 0, 500, 1000)).toBe(true);
    expect(watch.isStalled(1, 0, 500, 1500)).toBe(false); // the re-run's own clock
    expect(watch.isStalled(1, 0, 500, 2000)).toBe(true);
  });

  it('restarts the clock whenever the checkpoint moves', () => {
    const watch = new StallWatch(1000);
    watch.isStalled(1, 0, 0, 0);
    expect(watch.isStalled(1, 0, 4096, 900)).toBe(false);
    expect(watch.isStalled(1, 0, 4096, 1800)).toBe(false);
    expect(watch.isStalled(1, 0, 4096, 1900)).toBe(true);
  });

  it('keeps each unit apart and forgets a task as a whole', () => {
    const watch = new StallWatch(10);
    watch.isStalled(1, 0, 0, 0);
    watch.isStalled(1, 1, 0, 5);
    watch.isStalled(12, 0, 0, 0);
    expect(watch.isStalled(1, 0, 0, 10)).toBe(true);
    expect(watch.isStalled(1, 1, 0, 10)).toBe(false);
    watch.forget(1);
    expect(watch.size).toBe(1); // task 12 is not task 1's prefix match
    expect(watch.isStalled(1, 1, 0, 100)).toBe(false); // seen afresh
  });
});
