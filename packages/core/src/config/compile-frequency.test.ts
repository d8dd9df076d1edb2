import { compileFrequencyPolicy } from '../frequency/policy';
import { compileConfig } from './compile';

describe('frequency configuration', () => {
  it('is off by default, with the seed policy compiled: 6 a day, 2 morning and 4 afternoon competition windows', () => {
    const { frequency } = compileConfig({});
    expect(frequency.enabled).toBe(false);
    expect(frequency.policy.dailyLimit).toBe(6);
    expect(frequency.policy.windows.map((w) => [w.fromMs / 3_600_000, w.toMs / 3_600_000])).toEqual([
      [0, 6],
      [6, 12],
      [12, 15],
      [15, 18],
      [18, 21],
      [21, 24],
    ]);
  });

  it('turns on with enabled, keeping the default policy', () => {
    expect(compileConfig({ frequency: { enabled: true } }).frequency).toEqual({
      enabled: true,
      policy: compileFrequencyPolicy(),
    });
  });

  it('takes the policy settings beside enabled', () => {
    const policy = { dailyLimit: 3, windows: [{ fromMinute: 480, toMinute: 1320, slots: 3 }], utcOffsetMinutes: 480 };
    expect(compileConfig({ frequency: { enabled: true, ...policy } }).frequency).toEqual({
      enabled: true,
      policy: compileFrequencyPolicy(policy),
    });
  });

  it('checks the policy even while off, so turning it on cannot reveal a bad window later', () => {
    expect(() => compileConfig({ frequency: { dailyLimit: 5 } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting: 'frequency.windows' }),
    );
  });

  it.each([
    [{ enabled: 'yes' }, 'frequency.enabled'],
    [{ enabled: 1 }, 'frequency.enabled'],
    [{ limit: 6 }, 'frequency.limit'],
    [{ utcOffsetMinutes: 900 }, 'frequency.utcOffsetMinutes'],
    [
      {
        windows: [
          { fromMinute: 0, toMinute: 60, slots: 1 },
          { fromMinute: 30, toMinute: 90, slots: 1 },
        ],
        dailyLimit: 2,
      },
      'frequency.windows[1].fromMinute',
    ],
    [[], 'frequency'],
    [null, 'frequency'],
  ])('refuses %j naming %s', (frequency, setting) => {
    expect(() => compileConfig({ frequency } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting }),
    );
  });
});
