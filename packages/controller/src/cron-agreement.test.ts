/**
 * Core's cron engine (parseCron, nextFireTimes: pure, used by the API and the
 * misfire policy) against node-cron 4 (the controller's wake-ups): every
 * expression core accepts node-cron accepts too, and both give the same fire
 * times, except at DST changes, where the differences are the documented
 * ones (docs/campaigns.md, "Time zones and DST").
 */
import * as fc from 'fast-check';
import { nextFireTimes, offsetAt, parseCron } from '@herald/core/campaign';
import { ValidationError } from '@herald/core';
import { createTask, validate } from 'node-cron';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 200;
const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);
const iso = (times: number[]) => times.map((t) => new Date(t).toISOString());

/** node-cron's next `n` fire times after `after`: it starts from the current time, so the clock is set there. */
function nodeCronNext(cron: string, timeZone: string, after: number, n: number): number[] {
  jest.useFakeTimers({ now: after });
  const task = createTask(cron, () => undefined, { timezone: timeZone });
  try {
    return task.getNextRuns(n).map((d) => d.getTime());
  } finally {
    void task.destroy();
    jest.useRealTimers();
  }
}

function coreAccepts(cron: string): boolean {
  try {
    parseCron(cron);
    return true;
  } catch (error) {
    if (error instanceof ValidationError) return false;
    throw error;
  }
}

const value = (max: number) => fc.integer({ min: 0, max }).map(String);
const validCron = fc
  .tuple(
    fc.constantFrom('', '0 ', '*/20 ', '5,35 '),
    fc.oneof(value(59), fc.constantFrom('*', '*/7', '10-40/15', '50-10')),
    fc.oneof(value(23), fc.constantFrom('*', '8-18', '22-2', '*/6')),
    fc.oneof(fc.integer({ min: 1, max: 28 }).map(String), fc.constantFrom('*', '?', '1,15', '*/10')),
    fc.oneof(fc.integer({ min: 1, max: 12 }).map(String), fc.constantFrom('*', 'jan-jun', 'mar,sep', '*/3')),
    fc.oneof(value(7), fc.constantFrom('*', 'mon-fri', 'sat,sun', '5-1', '?')),
  )
  .map(([second, ...rest]) => second + rest.join(' '));
const anyCron = fc.oneof(
  validCron,
  fc
    .array(fc.oneof(value(70), fc.constantFrom('*', '?', '-', '/', ',', 'mon', 'jan', 'L', '5W', '1#2', '*/0', ' ')), {
      minLength: 1,
      maxLength: 14,
    })
    .map((parts) => parts.join('')),
);
const instant = fc
  .integer({ min: at('2001-01-01T00:00:00Z') / 1000, max: at('2040-01-01T00:00:00Z') / 1000 })
  .map((s) => s * 1000);

describe('core and node-cron agree', () => {
  it('every expression core accepts, node-cron accepts', () => {
    fc.assert(
      fc.property(anyCron, (cron) => !coreAccepts(cron) || validate(cron)),
      { numRuns: RUNS * 5 },
    );
  });

  it('on fire times in zones without DST', () => {
    fc.assert(
      fc.property(
        validCron,
        fc.constantFrom('UTC', 'Asia/Kolkata', 'Asia/Tokyo', 'Asia/Kathmandu', 'America/Bogota'),
        instant,
        (cron, timeZone, after) => {
          expect(iso(nextFireTimes({ cron, timeZone }, after, 5))).toEqual(iso(nodeCronNext(cron, timeZone, after, 5)));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('on the next fire time in DST zones, away from a change', () => {
    fc.assert(
      fc.property(
        validCron,
        fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'America/Santiago'),
        instant,
        (cron, timeZone, after) => {
          const [core] = nextFireTimes({ cron, timeZone }, after, 1);
          // Judged on core's answer before asking node-cron: near a change
          // node-cron may skip a gap's fire to one years away, and it gives up
          // on those ("Could not find next matching date"), e.g. a Sunday the
          // 5th of September in Santiago, where that midnight is the gap.
          const offsets = new Set([after - DAY, after, core!, core! + DAY].map((t) => offsetAt(timeZone, t)));
          fc.pre(offsets.size === 1 && core! - after < 20 * DAY);
          const [cron4] = nodeCronNext(cron, timeZone, after, 1);
          expect(core).toBe(cron4);
        },
      ),
      { numRuns: RUNS, examples: [['* 0 5 9 0', 'America/Santiago', at('2010-09-05T04:59:00Z')]] },
    );
  });
});

describe('core and node-cron differ only at DST changes, as documented', () => {
  it.each([
    // Spring gap: core fires the missing 02:30 at 03:30 CEST; node-cron skips that day.
    ['Europe/Berlin', '30 2 * * *', '2025-03-29T12:00:00Z', '2025-03-30T01:30:00.000Z', '2025-03-31T00:30:00.000Z'],
    ['America/New_York', '30 2 * * *', '2025-03-08T12:00:00Z', '2025-03-09T07:30:00.000Z', '2025-03-10T06:30:00.000Z'],
    // Autumn overlap: core fires the first 02:30 (CEST); node-cron the second (CET) in Berlin.
    ['Europe/Berlin', '30 2 * * *', '2025-10-25T12:00:00Z', '2025-10-26T00:30:00.000Z', '2025-10-26T01:30:00.000Z'],
  ])('%s %s after %s: core %s, node-cron %s', (timeZone, cron, after, core, cron4) => {
    expect(iso(nextFireTimes({ cron, timeZone }, at(after), 1))).toEqual([core]);
    expect(iso(nodeCronNext(cron, timeZone, at(after), 1))).toEqual([cron4]);
  });

  it('in New York, both fire the first 01:30 of the repeated hour', () => {
    expect(
      iso(nextFireTimes({ cron: '30 1 * * *', timeZone: 'America/New_York' }, at('2025-11-01T12:00:00Z'), 1)),
    ).toEqual(['2025-11-02T05:30:00.000Z']);
    expect(iso(nodeCronNext('30 1 * * *', 'America/New_York', at('2025-11-01T12:00:00Z'), 1))).toEqual([
      '2025-11-02T05:30:00.000Z',
    ]);
  });
});
