import { ConfigError } from '../errors';
import { checkKnownKeys, int } from '../config/validate';

/**
 * The per-user daily frequency policy (docs/frequency.md), in the three config
 * steps: options (what an operator writes) -> defaults -> a compiled policy.
 *
 * A configured window of `slots` slots is cut into `slots` equal competition
 * windows, each releasing one slot at a pseudo-random time inside it: the
 * seed's "每隔 4 小时(竞争区间)随机释放一个", with its real-world split of 2
 * competition windows in the 12 morning hours and 4 in the 12 afternoon hours.
 */

/** One configured window of the local day, in minutes since local midnight. */
export interface FrequencyWindowOptions {
  /** Start, inclusive, 0..1439. */
  fromMinute: number;
  /** End, exclusive, fromMinute+1..1440. */
  toMinute: number;
  /** Slots released in this window, one per equal competition window; at most one per minute of the window. */
  slots: number;
}

export interface FrequencyOptions {
  /**
   * Broadcasts a user may receive per local day.
   * @defaultValue the windows' slot total (6 with the default windows)
   */
  dailyLimit?: number;
  /**
   * Ascending, non-overlapping windows of the local day; gaps release nothing.
   * Their slots must add up to dailyLimit.
   * @defaultValue [{ fromMinute: 0, toMinute: 720, slots: 2 }, { fromMinute: 720, toMinute: 1440, slots: 4 }]
   */
  windows?: FrequencyWindowOptions[];
  /**
   * Where the day starts for users without a `tz` attribute: a fixed offset
   * from UTC in minutes (480 for UTC+8), -720..840. Daylight-saving changes
   * are not followed; a zone that has them picks one offset. A user with a
   * `tz` is on their own zone's day (frequency/zoned.ts).
   * @defaultValue 0
   */
  utcOffsetMinutes?: number;
}

/**
 * One competition window of the local day, releasing exactly one slot (its
 * index in the day, `slot`), at ms offsets from local midnight: [fromMs, toMs).
 */
export interface CompetitionWindowOfDay {
  readonly slot: number;
  readonly fromMs: number;
  readonly toMs: number;
}

/** The compiled policy: pure data, the same in every process given the same options. */
export interface FrequencyPolicy {
  readonly dailyLimit: number;
  readonly utcOffsetMinutes: number;
  /** utcOffsetMinutes in ms: local time = UTC + offsetMs. */
  readonly offsetMs: number;
  /** One per slot, ascending and disjoint; length dailyLimit. */
  readonly windows: readonly CompetitionWindowOfDay[];
}

export const MINUTES_PER_DAY = 1440;
export const MS_PER_DAY = 86_400_000;
const MS_PER_MINUTE = 60_000;

export const FREQUENCY_DEFAULTS = {
  windows: [
    { fromMinute: 0, toMinute: 720, slots: 2 },
    { fromMinute: 720, toMinute: 1440, slots: 4 },
  ],
  utcOffsetMinutes: 0,
} as const;

/**
 * Defaults, then validation, then the competition windows. Throws ConfigError
 * naming the setting as `<path>.<name>` (path 'frequency' unless the caller
 * nests it elsewhere), e.g. `frequency.windows[1].fromMinute`.
 */
export function compileFrequencyPolicy(options: FrequencyOptions = {}, path = 'frequency'): FrequencyPolicy {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, options, ['dailyLimit', 'windows', 'utcOffsetMinutes']);
  const windows = checkWindows(`${path}.windows`, options.windows ?? FREQUENCY_DEFAULTS.windows);
  const total = windows.reduce((sum, w) => sum + w.slots, 0);
  const dailyLimit = int(`${path}.dailyLimit`, options.dailyLimit, total, 1, MINUTES_PER_DAY);
  if (dailyLimit !== total) {
    const whose = options.windows === undefined ? 'the default windows release' : 'the windows release';
    throw new ConfigError(
      `${path}.windows`,
      `${whose} ${total} slots a day but ${path}.dailyLimit is ${dailyLimit}: the slots must add up to the limit`,
    );
  }
  const utcOffsetMinutes = int(
    `${path}.utcOffsetMinutes`,
    options.utcOffsetMinutes,
    FREQUENCY_DEFAULTS.utcOffsetMinutes,
    -720,
    840,
  );
  return Object.freeze({
    dailyLimit,
    utcOffsetMinutes,
    offsetMs: utcOffsetMinutes * MS_PER_MINUTE,
    windows: Object.freeze(competitionWindows(windows)),
  });
}

function checkWindows(path: string, value: unknown): FrequencyWindowOptions[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(path, 'must be a non-empty array of { fromMinute, toMinute, slots }');
  const checked: FrequencyWindowOptions[] = [];
  value.forEach((raw: unknown, i) => {
    const at = `${path}[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new ConfigError(at, 'must be an object { fromMinute, toMinute, slots }');
    const w = raw as Record<string, unknown>;
    checkKnownKeys(at, w, ['fromMinute', 'toMinute', 'slots']);
    for (const key of ['fromMinute', 'toMinute', 'slots'])
      if (w[key] === undefined) throw new ConfigError(`${at}.${key}`, 'is required');
    const fromMinute = int(`${at}.fromMinute`, w.fromMinute, 0, 0, MINUTES_PER_DAY - 1);
    const toMinute = int(`${at}.toMinute`, w.toMinute, 0, fromMinute + 1, MINUTES_PER_DAY);
    const slots = int(`${at}.slots`, w.slots, 0, 1, toMinute - fromMinute);
    const previous = checked[checked.length - 1];
    if (previous !== undefined && fromMinute < previous.toMinute) {
      throw new ConfigError(
        `${at}.fromMinute`,
        `${fromMinute} overlaps or precedes ${path}[${i - 1}] (which ends at ${previous.toMinute}): windows must be ascending and must not overlap`,
      );
    }
    checked.push({ fromMinute, toMinute, slots });
  });
  return checked;
}

/** Cuts each configured window into `slots` equal competition windows (integer ms bounds). */
function competitionWindows(windows: readonly FrequencyWindowOptions[]): CompetitionWindowOfDay[] {
  const out: CompetitionWindowOfDay[] = [];
  for (const w of windows) {
    const from = w.fromMinute * MS_PER_MINUTE;
    const length = (w.toMinute - w.fromMinute) * MS_PER_MINUTE;
    for (let j = 0; j < w.slots; j++) {
      out.push(
        Object.freeze({
          slot: out.length,
          fromMs: from + Math.floor((j * length) / w.slots),
          toMs: from + Math.floor(((j + 1) * length) / w.slots),
        }),
      );
    }
  }
  return out;
}
