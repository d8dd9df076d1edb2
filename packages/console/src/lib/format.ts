/** Display helpers: every number and time the console shows goes through these, so pages agree. */

const integer = new Intl.NumberFormat('en-US');

export const fmtInt = (n: number): string => integer.format(Math.round(n));

export function fmtPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  return fmtShare(part / whole);
}

/**
 * A share (0..1) as the percentage its bar shows, one decimal: never
 * 100.0% short of the whole (99.96% reads 99.9%) nor 0.0% past nothing
 * (a sliver of a bar reads <0.1%), so the number and the bar agree.
 */
export function fmtShare(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–';
  const p = Math.min(1, Math.max(0, fraction)) * 100;
  if (p < 100 && p >= 99.95) return '99.9%';
  if (p > 0 && p < 0.05) return '<0.1%';
  return p.toFixed(1) + '%';
}

/**
 * A share (0..1) as an operator sets it, in percent up to four decimals and
 * no trailing zeros: a threshold, a variant's share, a holdout ("2%",
 * "0.35%", "33.3333%"). Not for measured shares: those are fmtShare's.
 */
export const fmtSetShare = (share: number): string => `${+(share * 100).toFixed(4)}%`;

/** A bar's aria-valuenow (whole percent): 100 only when it is full, like fmtShare. */
export function barValueNow(fraction: number): number {
  const p = Math.min(1, Math.max(0, fraction)) * 100;
  return p < 100 ? Math.min(99, Math.round(p)) : 100;
}

/** 1.2k, 3.4M: for rates and chart axes. */
export function fmtCompact(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (abs >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (abs >= 1e4) return (n / 1e3).toFixed(0) + 'k';
  if (abs >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(Math.round(n));
}

/** 45 s, 3 min 12 s, 2 h 05 min. */
export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** A timestamp in the operator's time zone, to the second: 2026-11-23 08:00:05. */
export function fmtTime(epochMs: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/** "in 3 min", "5 s ago". */
export function fmtRelative(epochMs: number, now: number): string {
  const delta = epochMs - now;
  if (Math.abs(delta) < 1000) return 'now';
  return delta > 0 ? `in ${fmtDuration(delta)}` : `${fmtDuration(-delta)} ago`;
}

export function fmtBytes(n: number): string {
  if (n >= 1 << 30) return (n / (1 << 30)).toFixed(2) + ' GiB';
  if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MiB';
  if (n >= 1 << 10) return (n / (1 << 10)).toFixed(1) + ' KiB';
  return `${n} B`;
}

/** An offset in minutes east of UTC as UTC+09:00, UTC−05:00 (a local-time group's zone). */
export function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `UTC${minutes < 0 ? '−' : '+'}${hhmm}`;
}
