import { operatorMessage, plainWords, type Refusal } from '../src/lib/operator-words';

/**
 * Every refusal the API documents for the console's forms (new broadcast,
 * list upload, campaigns, audiences, the lists' filters, account limits), as
 * the server words it (collected from a running server: docs/api.md and the
 * OpenAPI error tables name these codes and fields), goes through the mapper;
 * none may reach the operator with a request field name, a JSON pointer, a
 * regular expression or a config key.
 */
const refusal = (code: string, message: string, details: Record<string, unknown> = {}): Refusal => ({
  code,
  message,
  field: typeof details.field === 'string' ? details.field : undefined,
  details,
});

const V = 'VALIDATION_FAILED';
const PATTERN = '"^[a-z0-9_]{1,64}$"';
const DOCUMENTED: [string, Refusal][] = [
  // POST /api/v1/tasks (the new-broadcast form)
  ['bad account', refusal(V, `body/accountId must match pattern ${PATTERN}`, { field: 'accountId' })],
  [
    'duration too long',
    refusal(V, 'ttlSeconds exceeds the maximum of 2592000', { field: 'ttlSeconds', maximum: 2592000 }),
  ],
  ['duration zero', refusal(V, 'body/ttlSeconds must be >= 1', { field: 'ttlSeconds' })],
  ['speed zero', refusal(V, 'body/speed must be >= 1', { field: 'speed' })],
  ['speed fraction', refusal(V, 'body/speed must be integer', { field: 'speed' })],
  ['speed too high', refusal(V, 'body/speed must be <= 100000000', { field: 'speed' })],
  [
    'speed not allowed',
    refusal(
      'ACCOUNT_QUOTA_EXCEEDED',
      'account acme: the account may not set a speed (its maxSpeed is 0): leave speed out and the task is sent at the speed global load gives it',
      { accountId: 'acme', limit: 'maxSpeed', field: 'speed', max: 0, used: 0, requested: 50 },
    ),
  ],
  [
    'speed over the maximum',
    refusal('ACCOUNT_QUOTA_EXCEEDED', 'account acme: speed 500 exceeds its maxSpeed 100', {
      limit: 'maxSpeed',
      field: 'speed',
      max: 100,
      requested: 500,
    }),
  ],
  [
    'daily broadcasts',
    refusal(
      'ACCOUNT_QUOTA_EXCEEDED',
      "account acme: the account's daily quota of 5 broadcasts is used up for the day of the send time (5 from 2026-11-27T00:00:00.000Z); a send time from 2026-11-28T00:00:00.000Z on counts on the next day",
      { limit: 'dailyBroadcasts', field: 'sendAt', max: 5, used: 5, retryAt: 1_795_824_000_000 },
    ),
  ],
  [
    'daily recipients',
    refusal(
      'ACCOUNT_QUOTA_EXCEEDED',
      "account acme: the list's 900 recipients exceed the account's daily quota of 500 recipients on any day",
      { limit: 'dailyRecipients', field: 'listId', max: 500, requested: 900 },
    ),
  ],
  [
    'min interval',
    refusal(
      'ACCOUNT_QUOTA_EXCEEDED',
      'account acme: the account may broadcast at most once every 3600000 ms: another of its broadcasts sends at 2026-11-27T06:00:00.000Z, 60000 ms from this one; send from 2026-11-27T07:00:00.000Z on',
      { limit: 'minIntervalMs', field: 'sendAt', max: 3_600_000, used: 60_000, retryAt: 1_795_762_800_000 },
    ),
  ],
  [
    'send at not a date',
    refusal(
      V,
      'sendAt "tomorrow" is not an RFC 3339 date-time with an offset, e.g. 2027-06-01T12:00:00Z or 2027-06-01T14:00:00+02:00',
      { field: 'sendAt' },
    ),
  ],
  [
    'send at in the past',
    refusal(V, 'sendAt "2001-01-01T00:00:00Z" is in the past: omit sendAt to send now', { field: 'sendAt' }),
  ],
  [
    'send at too far',
    refusal(V, 'sendAt "2099-01-01T00:00:00Z" is more than 365 days ahead (tasks.maxScheduleAheadMs)', {
      field: 'sendAt',
    }),
  ],
  [
    'show at not a date',
    refusal(V, 'displayAt "x" is not an RFC 3339 date-time with an offset, e.g. 2027-06-01T12:00:00Z', {
      field: 'displayAt',
    }),
  ],
  ['empty message', refusal(V, 'body/content/body must NOT have fewer than 1 characters', { field: 'content.body' })],
  ['long message', refusal(V, 'content.body is longer than 4096 characters', { field: 'content.body' })],
  ['long title', refusal(V, 'body/content/title must NOT have more than 200 characters', { field: 'content.title' })],
  [
    'unknown variable',
    refusal('TEMPLATE_INVALID', "content.body template, position 2: unknown variable 'nope'", {
      field: 'content.body',
      position: 2,
    }),
  ],
  [
    'template unfinished',
    refusal('TEMPLATE_INVALID', 'content.title template, position 2: unexpected end, expected a variable name', {
      field: 'content.title',
      position: 2,
    }),
  ],
  [
    'bad targeting',
    refusal(
      'QUERY_INVALID',
      "targeting: targeting query, position 7: expected a value right after 'region:', found the end of the query",
      { field: 'targeting', position: 7 },
    ),
  ],
  ['no list', refusal('LIST_NOT_FOUND', 'recipient list nope does not exist for account acme', { field: 'listId' })],
  ['missing list', refusal(V, "body must have required property 'listId'", { field: 'listId' })],
  ['bad priority', refusal(V, 'body/priority must be equal to one of the allowed values', { field: 'priority' })],
  ['collapse key', refusal(V, 'collapseKey may use only letters, digits and . _ : -', { field: 'collapseKey' })],
  [
    'unknown field',
    refusal(
      V,
      "the body has an unknown field 'noResendSince': refused, not ignored (a typo? the API reference lists each route's fields)",
      { field: 'noResendSince' },
    ),
  ],
  [
    'confirmation',
    refusal(
      'CONFIRMATION_REQUIRED',
      'this broadcast reaches 250000 recipients and starts within 60 minutes: send it again with "confirm": 250000',
      { field: 'confirm', recipients: 250_000 },
    ),
  ],
  // POST /api/v1/lists (the list upload)
  ['upload account', refusal(V, `querystring/accountId must match pattern ${PATTERN}`, { field: 'accountId' })],
  ['bad ratio', refusal(V, 'querystring/maxBadRatio must be <= 1', { field: 'maxBadRatio' })],
  ['no column', refusal(V, "column 'uid' is not in the header (line 1)", { column: 'uid', line: 1 })],
  [
    'no valid line',
    refusal('LIST_TOO_MANY_BAD_LINES', 'text recipient list rejected: no line holds a valid uin', {
      maxBadRatio: 0.01,
      valid: 0,
    }),
  ],
  [
    'too many bad lines',
    refusal(
      'LIST_TOO_MANY_BAD_LINES',
      'text recipient list rejected: 40 of 100 lines are not a uin (maxBadRatio 0.01)',
      {
        maxBadRatio: 0.01,
        valid: 60,
      },
    ),
  ],
  ['empty list', refusal('LIST_EMPTY', 'recipient list holds no uins', { lines: 0 })],
  ['uin out of range', refusal('LIST_UIN_OUT_OF_RANGE', 'recipient list uin 4294967295 is outside the uin space')],
  ['bad header', refusal('LIST_BAD_HEADER', 'recipient list count 7 is not plausible')],
  // Campaigns (new campaign, the campaign editor, the preview)
  ['cron syntax', refusal(V, "cron: minute field '61': 61 is outside 0-59", { field: 'cron', cronField: 'minute' })],
  ['cron fields', refusal(V, 'cron: expected 5 or 6 fields (an optional second first), got 1', { field: 'cron' })],
  [
    'cron too often',
    refusal(
      V,
      "cron '* * * * *' fires 1 minute apart (at 2026-11-27T05:42:00.000Z): campaigns fire at most every 60 minutes (campaigns.minPeriodMs)",
      { field: 'cron', smallestGapMs: 60_000, minPeriodMs: 3_600_000 },
    ),
  ],
  ['time zone', refusal(V, "timeZone 'Mars/Base' is not a known IANA time zone", { field: 'timeZone' })],
  ['empty name', refusal(V, 'body/name must NOT have fewer than 1 characters', { field: 'name' })],
  [
    'campaign duration',
    refusal(V, 'template.ttlSeconds exceeds the maximum of 2592000', {
      field: 'template.ttlSeconds',
      maximum: 2592000,
    }),
  ],
  [
    'resend scope',
    refusal(V, 'body/template/noResend/scope must be equal to one of the allowed values', {
      field: 'template.noResend.scope',
    }),
  ],
  // Advanced delivery: local time, quiet hours, canary, variants (docs/local-time.md, docs/rollouts.md)
  [
    'unknown default zone',
    refusal(V, "deliverAt.defaultTimeZone 'Mars/Base' is not a known IANA time zone", {
      field: 'deliverAt.defaultTimeZone',
    }),
  ],
  [
    'window out of range',
    refusal(V, 'deliverAt.window must be from 1 minute to 12 hours', { field: 'deliverAt.window' }),
  ],
  [
    'window past the lifetime',
    refusal(V, 'deliverAt.window is longer than the task lives (ttlSeconds)', {
      field: 'deliverAt.window',
      lifetimeSeconds: 3600,
    }),
  ],
  [
    'quiet all day',
    refusal(V, "quietHours '08:00-08:00' would cover the whole day: no push could ever land", {
      field: 'quietHours',
    }),
  ],
  [
    'account quiet hours during',
    refusal(V, 'quietHours.during must be one of hold, offline', { field: 'quietHours.during' }),
  ],
  [
    'account quiet hours all day',
    refusal(V, "quietHours.hours '08:00-08:00' would cover the whole day: no push could ever land", {
      field: 'quietHours.hours',
    }),
  ],
  [
    'account default zone',
    refusal(V, "defaultTimeZone 'Mars/Base' is not a known IANA time zone", { field: 'defaultTimeZone' }),
  ],
  ['account login rule', refusal(V, 'loginDelivery must be one of deliver, hold', { field: 'loginDelivery' })],
  [
    'canary with quiet hours',
    refusal(V, 'canary cannot be combined with local-time delivery (deliverAt or quietHours)', { field: 'canary' }),
  ],
  [
    'canary hold',
    refusal(V, 'canary.holdSeconds must be a whole number of seconds in 0..86400', { field: 'canary.holdSeconds' }),
  ],
  [
    'canary threshold',
    refusal(V, 'canary.thresholds.failedRatio must be a number in [0, 1]', {
      field: 'canary.thresholds.failedRatio',
    }),
  ],
  [
    'canary sample',
    refusal(V, 'canary.sample must be a percent in (0, 50] like "1%", or a recipient count', {
      field: 'canary.sample',
    }),
  ],
  [
    'shares do not add up',
    refusal(V, 'variants shares add up to 0.8, not 1 - holdout (0.9)', { field: 'variants', value: 0.8 }),
  ],
  ['share out of range', refusal(V, 'variants[1].share must be a number in (0, 1)', { field: 'variants[1].share' })],
  ['holdout out of range', refusal(V, 'holdout must be a number in [0, 1)', { field: 'holdout' })],
  [
    'variant name',
    refusal(V, 'variants[0].name must be 1..32 characters of [a-z0-9_-]', { field: 'variants[0].name' }),
  ],
  // Audiences, the lists' filters, account limits
  ['no source', refusal(V, "body must have required property 'source'", { field: 'source' })],
  ['filter account', refusal(V, `querystring/accountId must match pattern ${PATTERN}`, { field: 'accountId' })],
  ['empty search', refusal(V, 'querystring/q must NOT have fewer than 1 characters', { field: 'q' })],
  ['max speed', refusal(V, 'body/maxSpeed must be >= 0', { field: 'maxSpeed' })],
  ['daily broadcasts kind', refusal(V, 'body/dailyBroadcasts must be integer', { field: 'dailyBroadcasts' })],
];

/** What an operator must never read: the API's own names and syntax. */
const RAW = [
  /\buins?\b/,
  /\b(?:maxBadRatio|ttlSeconds|sendAt|displayAt|accountId|listId|collapseKey|timeZone|maxSpeed|noResend\w*|dailyBroadcasts|dailyRecipients|minIntervalMs|minPeriodMs|maxScheduleAheadMs|confirmAbove)\b/,
  /\b(?:body|querystring)\//,
  /content\.(?:body|title)/,
  /[\^$]|\{1,64\}|\[a-z/,
  /\b[a-z]+\.[a-z]+[A-Z]\w*/,
  /RFC 3339|IANA/,
  /\b(?:deliverAt|quietHours|holdSeconds|rejectedRatio|failedRatio|defaultTimeZone|loginDelivery)\b|variants\[/,
];

describe('operatorMessage', () => {
  it.each(DOCUMENTED)('%s: no field name, pointer, pattern or config key', (_name, r) => {
    const said = operatorMessage(r);
    for (const raw of RAW) expect({ said, raw: raw.test(said) }).toEqual({ said, raw: false });
    expect(said).toMatch(/^[A-Z“]/);
  });

  it('speaks the form: hours, labels, sentences for patterns', () => {
    const said = (name: string) => operatorMessage(DOCUMENTED.find(([n]) => n === name)![1]);
    expect(said('duration too long')).toBe('At most 720 hours (30 days).');
    expect(said('campaign duration')).toBe('At most 720 hours (30 days).');
    expect(said('duration zero')).toBe('Duration must be longer than zero.');
    expect(said('bad account')).toBe('An account id is 1 to 64 lowercase letters, digits or _.');
    expect(said('speed fraction')).toBe('Speed must be a whole number.');
    expect(said('speed too high')).toBe('Speed must be at most 100,000,000.');
    expect(said('speed over the maximum')).toBe("Speed is above this account's maximum of 100 recipients a second.");
    expect(said('bad ratio')).toBe('Bad lines allowed must be at most 100%.');
    expect(said('empty message')).toBe('Message cannot be empty.');
    expect(said('long message')).toBe('Message is at most 4096 characters.');
    expect(said('missing list')).toBe('Recipient list is required.');
    expect(said('unknown variable')).toBe("Message, at character 3: unknown variable 'nope'");
    expect(said('send at in the past')).toBe('Send at is in the past: choose a later time.');
    expect(said('send at too far')).toBe('Send at is more than 365 days ahead.');
    expect(said('no valid line')).toBe('No line holds a recipient id: is it the right column?');
    expect(said('empty list')).toBe('The file holds no recipient ids.');
    expect(said('no column')).toBe("The file's first line has no column named “uid”.");
    expect(said('cron too often')).toMatch(/^This schedule fires too often/);
    expect(said('cron syntax')).toBe("Cron: minute field '61': 61 is outside 0-59");
    expect(said('resend scope')).toBe('Resend is not one of the choices.');
    expect(said('empty search')).toBe('Search cannot be empty.');
  });

  it('speaks the advanced delivery fields in percent, minutes and their labels', () => {
    const said = (name: string) => operatorMessage(DOCUMENTED.find(([n]) => n === name)![1]);
    expect(said('unknown default zone')).toBe(
      'Default zone: “Mars/Base” is not a time zone (a zone name like Europe/Berlin, or an offset like +05:30).',
    );
    expect(said('window out of range')).toBe('Window must be from 1 minute to 12 hours');
    expect(said('window past the lifetime')).toMatch(/^The window must be shorter than the duration/);
    expect(said('quiet all day')).toBe('Quiet from and until are equal: that is the whole day, nothing could land.');
    expect(said('canary with quiet hours')).toMatch(
      /^A canary cannot be combined with local-time delivery or quiet hours/,
    );
    expect(said('canary hold')).toBe('Hold is a whole number of minutes, 0 to 1,440 (a day).');
    expect(said('canary threshold')).toBe('Failed threshold: a percent from 0 to 100.');
    expect(said('shares do not add up')).toBe(
      'The shares add up to 80%; with the holdout they must make 100% (the holdout leaves 90%).',
    );
    expect(said('share out of range')).toBe('Share: a percent above 0 and below 100.');
    expect(said('holdout out of range')).toBe('Holdout: a percent from 0 to below 100.');
    expect(said('variant name')).toBe('Variant name: 1 to 32 of a-z 0-9 _ -');
  });

  it("uses a form's own labels before the shared ones", () => {
    const r = refusal(V, 'body/name must NOT have fewer than 1 characters', { field: 'name' });
    expect(operatorMessage(r, { name: 'Token name' })).toBe('Token name cannot be empty.');
  });
});

describe('plainWords', () => {
  it('turns pointers and field names into labels and drops config keys', () => {
    expect(plainWords('body/content/title is bad')).toBe('Title is bad');
    expect(plainWords('template.ttlSeconds is odd (tasks.maxTtlSeconds)')).toBe('Duration is odd');
    expect(plainWords('uin 5 of listId x')).toBe('Recipient id 5 of Recipient list x');
  });
});
