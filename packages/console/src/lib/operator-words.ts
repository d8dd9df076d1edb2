/**
 * API refusals in the operator's words. The server's messages are written
 * for API callers: they name request fields (ttlSeconds, maxBadRatio, uin),
 * JSON pointers (body/content/body), regular expressions and config keys.
 * A console form knows its fields by their labels, so every message an
 * operator may read (a field's error, the error banner) goes through here.
 * Pure: the unit tests feed it the refusals the API documents for the forms.
 */
import { durationTooLong } from './broadcast-form';
import { cronRefusalText } from './campaign-reach';
import { fmtInt, fmtSetShare, fmtTime } from './format';

/** The parts of an API error read here (the console's ApiError has them; this file stays free of the browser client). */
export interface Refusal {
  code: string;
  message: string;
  field?: string;
  details: Record<string, unknown>;
}

/** Request fields by the label the forms give them (a campaign's template.* fields are the task form's). */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  accountId: 'Account',
  accountIds: 'Accounts',
  listId: 'Recipient list',
  list: 'Recipient list',
  content: 'Message',
  'content.body': 'Message',
  'content.title': 'Title',
  'content.template': 'Personalised',
  ttlSeconds: 'Duration',
  speed: 'Speed',
  sendAt: 'Send at',
  displayAt: 'Show at',
  priority: 'Priority',
  targeting: 'Targeting query',
  collapseKey: 'Collapse key',
  confirm: 'Confirmation',
  noResend: 'Resend',
  'noResend.scope': 'Resend',
  'noResend.window': 'Window in days',
  noResendSince: 'Resend',
  name: 'Name',
  cron: 'Cron',
  timeZone: 'Time zone',
  enabled: 'Enabled',
  after: 'Preview from',
  uin: 'recipient id',
  uins: 'recipient ids',
  column: 'Column',
  maxBadRatio: 'Bad lines allowed',
  format: 'File format',
  source: 'Audience',
  'source.kind': 'Audience',
  'source.query': 'Targeting query',
  query: 'Targeting query',
  publisher: 'Publisher',
  q: 'Search',
  state: 'State',
  createdFrom: 'Created from',
  createdBefore: 'Created to',
  cursor: 'Page',
  limit: 'Rows',
  order: 'Order',
  role: 'Role',
  accounts: 'Accounts',
  tokenId: 'Token',
  dailyBroadcasts: 'Daily broadcasts',
  dailyRecipients: 'Daily recipients',
  minIntervalMs: 'Minimum interval',
  maxSpeed: 'Maximum speed',
  clickThroughRate: 'Click-through',
  deliverAt: 'Local time',
  'deliverAt.localTime': 'Local time',
  'deliverAt.window': 'Window',
  'deliverAt.missed': 'Zones past it',
  'deliverAt.defaultTimeZone': 'Default zone',
  quietHours: 'Quiet hours',
  'quietHours.hours': 'Quiet hours',
  'quietHours.during': 'Inside quiet hours',
  defaultTimeZone: 'Default zone',
  loginDelivery: 'A login inside quiet hours',
  canary: 'Canary',
  'canary.sample': 'Sample',
  'canary.holdSeconds': 'Hold',
  'canary.thresholds': 'Stop above',
  'canary.thresholds.rejectedRatio': 'Rejected threshold',
  'canary.thresholds.failedRatio': 'Failed threshold',
  variants: 'Variants',
  'variants.name': 'Variant name',
  'variants.share': 'Share',
  'variants.content': 'Variant message',
  'variants.content.body': 'Variant message',
  'variants.content.title': 'Variant title',
  holdout: 'Holdout',
  'Idempotency-Key': 'Retry key',
  'idempotency-key': 'Retry key',
};

/** The label of a request field; a campaign's `template.` prefix and array indexes are the form's business, not the operator's. */
export function labelOf(field: string, labels: Readonly<Record<string, string>> = {}): string {
  const plain = field
    .replace(/^template\./, '')
    .replace(/\.\d+(?=\.|$)/g, '')
    .replace(/\[\d+\]/g, '');
  return labels[field] ?? labels[plain] ?? FIELD_LABELS[field] ?? FIELD_LABELS[plain] ?? 'A field';
}

/** What a pattern asks for, said as a sentence (by the field the pattern guards). */
const PATTERN_SENTENCES: Readonly<Record<string, string>> = {
  accountId: 'An account id is 1 to 64 lowercase letters, digits or _.',
  accountIds: 'An account id is 1 to 64 lowercase letters, digits or _.',
  accounts: 'An account id is 1 to 64 lowercase letters, digits or _.',
  collapseKey: 'A collapse key is 1 to 128 letters, digits or . _ : -',
};

type Rule = (r: Refusal, label: string, field: string) => string | undefined;

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Local time, quiet hours, canary and variants (docs/local-time.md, docs/rollouts.md): the form speaks percent and minutes. */
const ROLLOUT_RULES: Rule[] = [
  (r) =>
    /canary cannot be combined/.test(r.message)
      ? "A canary cannot be combined with local-time delivery or quiet hours, the account's default quiet hours included: turn those off, or the canary."
      : undefined,
  (r, label) => {
    const zone = /[dD]efaultTimeZone '([^']*)' is not/.exec(r.message);
    return zone
      ? `${label}: “${zone[1]}” is not a time zone (a zone name like Europe/Berlin, or an offset like +05:30).`
      : undefined;
  },
  (r) =>
    /would cover the whole day/.test(r.message)
      ? 'Quiet from and until are equal: that is the whole day, nothing could land.'
      : undefined,
  (r) =>
    /deliverAt\.window is longer than the task lives/.test(r.message)
      ? 'The window must be shorter than the duration: the broadcast would expire inside it.'
      : undefined,
  (_r, _label, field) =>
    /(^|\.)canary\.holdSeconds$/.test(field) ? 'Hold is a whole number of minutes, 0 to 1,440 (a day).' : undefined,
  (r, label, field) =>
    /(^|\.)canary\.thresholds\./.test(field) && /\[0, 1\]/.test(r.message)
      ? `${label}: a percent from 0 to 100.`
      : undefined,
  (_r, _label, field) =>
    /(^|\.)canary\.sample$/.test(field)
      ? 'Sample: a percent above 0 and at most 50, or a whole number of recipients.'
      : undefined,
  (r) => {
    const sum = /shares add up to ([\d.e-]+), not 1 - holdout \(([\d.e-]+)\)/.exec(r.message);
    return sum
      ? `The shares add up to ${fmtSetShare(Number(sum[1]))}; with the holdout they must make 100% (the holdout leaves ${fmtSetShare(Number(sum[2]))}).`
      : undefined;
  },
  (r, _label, field) =>
    /^variants\[\d+\]\.share$/.test(field) && /\(0, 1\)/.test(r.message)
      ? 'Share: a percent above 0 and below 100.'
      : undefined,
  (r, _label, field) =>
    field === 'holdout' && /\[0, 1\)/.test(r.message) ? 'Holdout: a percent from 0 to below 100.' : undefined,
  (r, _label, field) => {
    if (!/^variants\[\d+\]\.name$/.test(field)) return undefined;
    return /another variant/.test(r.message)
      ? 'Variant name: another variant has this name.'
      : 'Variant name: 1 to 32 of a-z 0-9 _ -';
  },
];

/** Rules by refusal, most specific first; the first that answers wins. */
const RULES: Rule[] = [
  ...ROLLOUT_RULES,
  // The duration: the form speaks hours, the API seconds.
  (r, _label, field) => {
    if (!/(^|\.)ttlSeconds$/.test(field)) return undefined;
    const schemaMax = /must be <= (\d+)/.exec(r.message);
    const max = num(r.details.maximum) ?? (schemaMax ? Number(schemaMax[1]) : undefined);
    if (max !== undefined && /maximum|<=/.test(r.message)) return durationTooLong(max);
    if (/>=|minimum/.test(r.message)) return 'Duration must be longer than zero.';
    return undefined;
  },
  (r, _label, field) => (field === 'cron' && num(r.details.minPeriodMs) ? cronRefusalText(r) : undefined),
  (r) => {
    if (r.code !== 'ACCOUNT_QUOTA_EXCEEDED' || r.details.limit !== 'maxSpeed') return undefined;
    const max = num(r.details.max);
    return max === 0
      ? 'This account may not set a speed: leave Speed empty and the broadcast goes as fast as the load allows.'
      : `Speed is above this account's maximum of ${max ?? '?'} recipients a second.`;
  },
  (r) => {
    if (r.code !== 'ACCOUNT_QUOTA_EXCEEDED') return undefined;
    const { max, requested, retryAt } = {
      max: num(r.details.max),
      requested: num(r.details.requested),
      retryAt: num(r.details.retryAt),
    };
    const later = retryAt === undefined ? '' : ` Send from ${fmtTime(retryAt)} on.`;
    switch (r.details.limit) {
      case 'dailyBroadcasts':
        return `This account's ${fmtInt(max ?? 0)} broadcasts a day are used up for that day.${later}`;
      case 'dailyRecipients':
        return `${requested === undefined ? 'This list' : `This list's ${fmtInt(requested)} recipients`} do not fit this account's ${fmtInt(max ?? 0)} recipients a day.${later}`;
      case 'minIntervalMs':
        return `This account may send at most once every ${fmtInt((max ?? 0) / 60_000)} minutes and another of its broadcasts is too close.${later}`;
      default:
        return undefined;
    }
  },
  (r) =>
    r.code === 'LIST_NOT_FOUND' ? 'That recipient list does not exist for this account: upload it again.' : undefined,
  (r) => (r.code === 'LIST_EMPTY' ? 'The file holds no recipient ids.' : undefined),
  (r) => {
    if (r.code !== 'LIST_TOO_MANY_BAD_LINES') return undefined;
    const ratio = num(r.details.maxBadRatio);
    if (/no line holds/.test(r.message)) return 'No line holds a recipient id: is it the right column?';
    return `Too many lines are not recipient ids${ratio === undefined ? '' : ` (more than ${100 * ratio}% of them)`}.`;
  },
  (r) => {
    const column = /^column '([^']*)' is not in the header/.exec(r.message);
    return column ? `The file's first line has no column named “${column[1]}”.` : undefined;
  },
  (r, label) => {
    const zone = /^timeZone '([^']*)' is not a known/.exec(r.message);
    return zone ? `${label}: “${zone[1]}” is not a time zone (e.g. Europe/Berlin, UTC).` : undefined;
  },
  (r, label) => (/is not an RFC 3339 date-time/.test(r.message) ? `${label} is not a date and time.` : undefined),
  (r, label) => (/is in the past/.test(r.message) ? `${label} is in the past: choose a later time.` : undefined),
  (r, label) => {
    const ahead = /is more than (\d+) days ahead/.exec(r.message);
    return ahead ? `${label} is more than ${ahead[1]} days ahead.` : undefined;
  },
  (r, label) =>
    /the body has an unknown field|must NOT have additional properties/.test(r.message)
      ? `The console sent something the server does not know (${label}): reload the page and try again.`
      : undefined,
  (r, label, field) =>
    /must match pattern/.test(r.message)
      ? (PATTERN_SENTENCES[field] ?? `${label} holds characters it may not.`)
      : undefined,
  (r, label) => (/must have required property/.test(r.message) ? `${label} is required.` : undefined),
  (r, label) => {
    const few = /must NOT have fewer than (\d+) (characters|items)/.exec(r.message);
    if (!few) return undefined;
    return few[1] === '1' ? `${label} cannot be empty.` : `${label} needs at least ${few[1]} ${few[2]}.`;
  },
  (r, label) => {
    const many = /must NOT have more than (\d+) (characters|items)|is longer than (\d+) characters/.exec(r.message);
    return many ? `${label} is at most ${many[1] ?? many[3]} ${many[2] ?? 'characters'}.` : undefined;
  },
  (r, label) => (/must be integer/.test(r.message) ? `${label} must be a whole number.` : undefined),
  (r, label) =>
    /must be (number|string|boolean)/.test(r.message) ? `${label} has the wrong kind of value.` : undefined,
  (r, label, field) => {
    const bound = /must be (<=|>=|<|>) (-?[\d.]+)/.exec(r.message);
    if (!bound) return undefined;
    const n = Number(bound[2]);
    const shown = field === 'maxBadRatio' ? `${100 * n}%` : n.toLocaleString('en-US');
    const words = { '<=': 'at most', '>=': 'at least', '<': 'below', '>': 'above' }[bound[1]!];
    return `${label} must be ${words} ${shown}.`;
  },
  (r, label) =>
    /must be equal to one of the allowed values/.test(r.message) ? `${label} is not one of the choices.` : undefined,
  // A template or query that does not parse: where, and what was expected, under the field's label.
  (r, label) => {
    const at = /^[\w.]+:? (?:template|targeting query), position (\d+): (.*)$/.exec(r.message);
    return at ? `${label}, at character ${Number(at[1]) + 1}: ${namesAsLabels(at[2]!)}` : undefined;
  },
];

/**
 * The refusal in the operator's words: `labels` are the form's own labels
 * for the request fields it sends (beyond FIELD_LABELS).
 */
export function operatorMessage(refusal: Refusal, labels: Readonly<Record<string, string>> = {}): string {
  const field = refusal.field ?? (typeof refusal.details.field === 'string' ? refusal.details.field : '');
  const label = labelOf(field, labels);
  for (const rule of RULES) {
    const said = rule(refusal, label, field);
    if (said !== undefined) return said;
  }
  return plainWords(refusal.message, labels);
}

/**
 * The last resort for a message no rule knows: JSON pointers and field
 * names become labels, patterns and config keys go.
 */
export function plainWords(message: string, labels: Readonly<Record<string, string>> = {}): string {
  const text = namesAsLabels(message, labels);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function namesAsLabels(message: string, labels: Readonly<Record<string, string>> = {}): string {
  let text = message
    .replace(/\b(?:body|querystring|params|headers)\/([\w/]+)/g, (_, path: string) =>
      labelOf(path.split('/').join('.'), labels),
    )
    .replace(/\bvariants\[\d+\](?:\.([\w.]+))?/g, (_, rest?: string) =>
      labelOf(rest === undefined ? 'variants' : `variants.${rest}`, labels),
    )
    .replace(/ ?(?:must )?match(?:es)? pattern "[^"]*"/g, ' has characters it may not hold')
    .replace(/\s*\((?:[a-z]+\.)+[a-zA-Z]+\)/g, '');
  const names = Object.keys({ ...FIELD_LABELS, ...labels })
    .filter((name) => /^[\w.-]+$/.test(name) && !/^[a-z]+$/.test(name))
    .sort((a, b) => b.length - a.length);
  for (const name of names) {
    const pattern = `(?<![\\w.])(?:template\\.)?${name.replace(/\./g, '\\.')}(?![\\w])`;
    text = text.replace(new RegExp(pattern, 'g'), labelOf(name, labels));
  }
  // A config key left (tasks.maxContentChars): the operator cannot change it, only an administrator.
  text = text.replace(/\b(?:[a-z]+\.)+[a-z]+[A-Z]\w*\b/g, 'a server setting');
  // Lower-case field names that are also words (uin, cron, ...) only where they stand as the API's names.
  return text.replace(/\buins\b/g, 'recipient ids').replace(/\buin\b/g, 'recipient id');
}
