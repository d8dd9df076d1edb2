/**
 * 24 time zones for local-time tests and benches: one per whole offset from
 * UTC+14 to UTC-10 as they stand on most days, and a fixed 45-minute offset,
 * as a user's `tz` may be. Some keep daylight saving (Europe, the Americas,
 * Sydney, Auckland), so a test across a DST change sees offsets move.
 */
export const LOCAL_TIME_ZONES: readonly string[] = [
  'Pacific/Kiritimati',
  'Pacific/Auckland',
  'Australia/Sydney',
  'Asia/Tokyo',
  'Asia/Shanghai',
  'Asia/Bangkok',
  'Asia/Dhaka',
  'Asia/Kolkata',
  'Asia/Karachi',
  'Asia/Dubai',
  'Europe/Moscow',
  'Europe/Athens',
  'Europe/Berlin',
  'Europe/London',
  'Atlantic/Azores',
  'America/Noronha',
  'America/Sao_Paulo',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Anchorage',
  'Pacific/Honolulu',
  '+05:45', // a fixed offset, as a user's tz may be
];
