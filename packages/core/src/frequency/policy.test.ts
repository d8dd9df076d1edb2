import { ConfigError, ErrorCodes } from '../errors';
import { compileFrequencyPolicy, type FrequencyOptions } from './policy';

const H = 3_600_000;

function configErrorOf(options: unknown): ConfigError {
  try {
    compileFrequencyPolicy(options as FrequencyOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe(ErrorCodes.CONFIG_INVALID);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(options)}`);
}

describe('compileFrequencyPolicy', () => {
  it('defaults to 6 a day: 2 competition windows of 6 h in the morning, 4 of 3 h in the afternoon, UTC days', () => {
    const policy = compileFrequencyPolicy();
    expect(policy.dailyLimit).toBe(6);
    expect(policy.utcOffsetMinutes).toBe(0);
    expect(policy.offsetMs).toBe(0);
    expect(policy.windows.map((w) => [w.slot, w.fromMs / H, w.toMs / H])).toEqual([
      [0, 0, 6],
      [1, 6, 12],
      [2, 12, 15],
      [3, 15, 18],
      [4, 18, 21],
      [5, 21, 24],
    ]);
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.windows)).toBe(true);
  });

  it('takes windows with gaps, derives dailyLimit from them, and cuts uneven lengths at whole ms', () => {
    const policy = compileFrequencyPolicy({
      windows: [
        { fromMinute: 480, toMinute: 481, slots: 1 },
        { fromMinute: 600, toMinute: 607, slots: 3 },
      ],
      utcOffsetMinutes: 480,
    });
    expect(policy.dailyLimit).toBe(4);
    expect(policy.offsetMs).toBe(8 * H);
    const m = 60_000;
    expect(policy.windows.map((w) => [w.fromMs, w.toMs])).toEqual([
      [480 * m, 481 * m],
      [600 * m, 600 * m + 140_000],
      [600 * m + 140_000, 600 * m + 280_000],
      [600 * m + 280_000, 607 * m],
    ]);
  });

  it('accepts an explicit dailyLimit equal to the slot total', () => {
    expect(compileFrequencyPolicy({ dailyLimit: 6 }).dailyLimit).toBe(6);
    expect(
      compileFrequencyPolicy({ dailyLimit: 1, windows: [{ fromMinute: 0, toMinute: 1440, slots: 1 }] }).windows,
    ).toEqual([{ slot: 0, fromMs: 0, toMs: 24 * H }]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'frequency'],
    ['an unknown key', { daily: 6 }, 'frequency.daily'],
    ['a dailyLimit the default windows do not add up to', { dailyLimit: 3 }, 'frequency.windows'],
    [
      'a dailyLimit the windows do not add up to',
      { dailyLimit: 5, windows: [{ fromMinute: 0, toMinute: 60, slots: 2 }] },
      'frequency.windows',
    ],
    ['a dailyLimit of 0', { dailyLimit: 0 }, 'frequency.dailyLimit'],
    ['empty windows', { windows: [] }, 'frequency.windows'],
    ['a window that is not an object', { windows: [3] }, 'frequency.windows[0]'],
    [
      'a window with an unknown key',
      { windows: [{ fromMinute: 0, toMinute: 60, slots: 1, seed: 1 }] },
      'frequency.windows[0].seed',
    ],
    ['a window without slots', { windows: [{ fromMinute: 0, toMinute: 60 }] }, 'frequency.windows[0].slots'],
    [
      'a window ending before it starts',
      { windows: [{ fromMinute: 60, toMinute: 60, slots: 1 }] },
      'frequency.windows[0].toMinute',
    ],
    [
      'a window past midnight',
      { windows: [{ fromMinute: 0, toMinute: 1441, slots: 1 }] },
      'frequency.windows[0].toMinute',
    ],
    [
      'a fractional minute',
      { windows: [{ fromMinute: 0.5, toMinute: 60, slots: 1 }] },
      'frequency.windows[0].fromMinute',
    ],
    ['more slots than minutes', { windows: [{ fromMinute: 0, toMinute: 2, slots: 3 }] }, 'frequency.windows[0].slots'],
    [
      'overlapping windows',
      {
        windows: [
          { fromMinute: 0, toMinute: 720, slots: 2 },
          { fromMinute: 700, toMinute: 1440, slots: 4 },
        ],
      },
      'frequency.windows[1].fromMinute',
    ],
    [
      'windows out of order',
      {
        windows: [
          { fromMinute: 720, toMinute: 1440, slots: 4 },
          { fromMinute: 0, toMinute: 720, slots: 2 },
        ],
      },
      'frequency.windows[1].fromMinute',
    ],
    ['an offset beyond UTC-12', { utcOffsetMinutes: -721 }, 'frequency.utcOffsetMinutes'],
    ['an offset beyond UTC+14', { utcOffsetMinutes: 841 }, 'frequency.utcOffsetMinutes'],
  ])('rejects %s, naming the setting', (_, options, setting) => {
    expect(configErrorOf(options).setting).toBe(setting);
  });

  it('names the setting under the path the caller nests it in', () => {
    try {
      compileFrequencyPolicy({ dailyLimit: -1 }, 'executor.frequency');
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).setting).toBe('executor.frequency.dailyLimit');
    }
  });
});
