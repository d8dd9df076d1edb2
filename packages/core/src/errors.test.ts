import {
  AccessDeniedError,
  AccountQuotaError,
  AudienceSourceError,
  ConfigError,
  ErrorCodes,
  FencedError,
  FrameError,
  HeraldError,
  IllegalTransitionError,
  isHeraldError,
  ListFormatError,
  NotFoundError,
  QueryError,
  TemplateError,
  RateLimitedError,
  ValidationError,
} from './errors';

describe('ErrorCodes', () => {
  it('maps every code to itself, so codes are stable strings', () => {
    for (const [key, value] of Object.entries(ErrorCodes)) expect(value).toBe(key);
  });

  it('holds the codes callers branch on', () => {
    expect(Object.keys(ErrorCodes).sort()).toEqual(
      [
        'CONFIG_INVALID',
        'VALIDATION_FAILED',
        'MALFORMED_JSON',
        'BODY_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'HEADERS_TOO_LARGE',
        'REQUEST_TIMEOUT',
        'MALFORMED_REQUEST',
        'NOT_FOUND',
        'TASK_NOT_FOUND',
        'TASK_NOT_PREPROCESSED',
        'LIST_NOT_FOUND',
        'ACCOUNT_NOT_FOUND',
        'TOKEN_NOT_FOUND',
        'TOKEN_EXISTS',
        'UNAUTHENTICATED',
        'FORBIDDEN',
        'SESSION_ENDED',
        'CONSOLE_HEADER_REQUIRED',
        'RATE_LIMITED',
        'LIST_EMPTY',
        'LIST_BAD_MAGIC',
        'LIST_UNSUPPORTED_VERSION',
        'LIST_BAD_HEADER',
        'LIST_TRUNCATED',
        'LIST_TRAILING_BYTES',
        'LIST_CHECKSUM_MISMATCH',
        'LIST_UIN_OUT_OF_RANGE',
        'LIST_TOO_MANY_BAD_LINES',
        'CAMPAIGN_NOT_FOUND',
        'IDEMPOTENCY_KEY_REUSED',
        'ACCOUNT_QUOTA_EXCEEDED',
        'CONFIRMATION_REQUIRED',
        'QUERY_INVALID',
        'TEMPLATE_INVALID',
        'AUDIENCE_SOURCE_FAILED',
        'AUDIENCE_JOB_NOT_FOUND',
        'TASK_NOT_OVER',
        'ILLEGAL_TRANSITION',
        'FENCED',
        'VERSION_CONFLICT',
        'FRAME_MALFORMED',
        'FRAME_UNKNOWN_KIND',
        'FRAME_UNSUPPORTED_VERSION',
        'STORE_CLOSED',
        'MIGRATION_FAILED',
        'DELIVERY_REJECTED',
        'DELIVERY_THROTTLED',
        'CANARY_FAILED',
        'UNAVAILABLE',
        'INTERNAL',
      ].sort(),
    );
  });
});

describe('HeraldError', () => {
  it('carries a code and a message, is not retriable and has no details by default', () => {
    const error = new HeraldError('INTERNAL', 'boom');
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toBe('boom');
    expect(error.retriable).toBe(false);
    expect(error.details).toEqual({});
    expect(error.name).toBe('HeraldError');
    expect(error.cause).toBeUndefined();
    expect(error.stack).toContain('boom');
  });

  it('takes retriable, details and cause from its options', () => {
    const cause = new Error('socket closed');
    const error = new HeraldError('UNAVAILABLE', 'store down', { retriable: true, details: { store: 'level' }, cause });
    expect(error.retriable).toBe(true);
    expect(error.details).toEqual({ store: 'level' });
    expect(error.cause).toBe(cause);
    expect(new HeraldError('UNAVAILABLE', 'x', { retriable: false }).retriable).toBe(false);
  });

  it('serialises to { code, message } without details when there are none', () => {
    const error = new HeraldError('INTERNAL', 'boom', { retriable: true });
    expect(error.toJSON()).toStrictEqual({ code: 'INTERNAL', message: 'boom' });
    expect(JSON.parse(JSON.stringify(error))).toStrictEqual({ code: 'INTERNAL', message: 'boom' });
  });

  it('serialises details when there are some, and never the stack or cause', () => {
    const error = new HeraldError('NOT_FOUND', 'no such task', { details: { id: 7 }, cause: new Error('inner') });
    expect(error.toJSON()).toStrictEqual({ code: 'NOT_FOUND', message: 'no such task', details: { id: 7 } });
    expect(JSON.parse(JSON.stringify({ error }))).toStrictEqual({
      error: { code: 'NOT_FOUND', message: 'no such task', details: { id: 7 } },
    });
  });
});

describe('HeraldError subclasses', () => {
  const cases: [string, HeraldError, new (...args: never[]) => HeraldError, string, Record<string, unknown>][] = [
    [
      'ConfigError',
      new ConfigError('http.port', 'must be an integer'),
      ConfigError,
      'CONFIG_INVALID',
      { setting: 'http.port' },
    ],
    [
      'ValidationError',
      new ValidationError('body too long', { max: 4096 }),
      ValidationError,
      'VALIDATION_FAILED',
      { max: 4096 },
    ],
    [
      'NotFoundError',
      new NotFoundError('TASK_NOT_FOUND', 'task 9 not found', { id: 9 }),
      NotFoundError,
      'TASK_NOT_FOUND',
      { id: 9 },
    ],
    [
      'ListFormatError',
      new ListFormatError('LIST_TRUNCATED', 'short', { declared: 3 }),
      ListFormatError,
      'LIST_TRUNCATED',
      { declared: 3 },
    ],
    [
      'IllegalTransitionError',
      new IllegalTransitionError('task', 'COMPLETED', 'cancel'),
      IllegalTransitionError,
      'ILLEGAL_TRANSITION',
      { machine: 'task', from: 'COMPLETED', event: 'cancel' },
    ],
    ['FencedError', new FencedError(12, 3, 4), FencedError, 'FENCED', { taskId: 12, heldEpoch: 3, storedEpoch: 4 }],
    [
      'FrameError',
      new FrameError('FRAME_UNKNOWN_KIND', 'kind 99', { kind: 99 }),
      FrameError,
      'FRAME_UNKNOWN_KIND',
      { kind: 99 },
    ],
    [
      'QueryError',
      new QueryError("unknown attribute 'x'", 3, { found: 'x' }),
      QueryError,
      'QUERY_INVALID',
      { position: 3, found: 'x' },
    ],
    [
      'TemplateError',
      new TemplateError('content.body', "unknown variable 'x'", 2, { found: 'x' }),
      TemplateError,
      'TEMPLATE_INVALID',
      { field: 'content.body', position: 2, found: 'x' },
    ],
    [
      'AudienceSourceError',
      new AudienceSourceError('table', 'lost', { details: { read: 5 } }),
      AudienceSourceError,
      'AUDIENCE_SOURCE_FAILED',
      { source: 'table', read: 5 },
    ],
  ];
  const classes = cases.map(([, , cls]) => cls);

  describe.each(cases)('%s', (name, error, cls, code, details) => {
    it('is an instance of its class, HeraldError and Error, and of no sibling class', () => {
      expect(error).toBeInstanceOf(cls);
      expect(error).toBeInstanceOf(HeraldError);
      expect(error).toBeInstanceOf(Error);
      for (const other of classes) if (other !== cls) expect(error).not.toBeInstanceOf(other);
      expect(isHeraldError(error)).toBe(true);
    });

    it('has its name, code and details, and is not retriable', () => {
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(error.details).toEqual(details);
      expect(error.retriable).toBe(false);
      expect(error.toJSON()).toStrictEqual({ code, message: error.message, details });
    });

    it('is caught by class through a throw', () => {
      expect(() => {
        throw error;
      }).toThrow(cls as new (...args: never[]) => Error);
    });
  });

  it('ConfigError names the setting in a readonly field and in the message', () => {
    const error = new ConfigError('scheduler.slots', 'must be at least 1');
    expect(error.setting).toBe('scheduler.slots');
    expect(error.message).toBe('config scheduler.slots: must be at least 1');
  });

  it('messages name the facts of the failure', () => {
    expect(new IllegalTransitionError('unit', 'DONE', 'start').message).toContain("'start'");
    expect(new IllegalTransitionError('unit', 'DONE', 'start').message).toContain("'DONE'");
    expect(new FencedError(12, 3, 4).message).toContain('12');
  });
});

describe('audience errors', () => {
  it('QueryError carries the position in a field, in details and in the message', () => {
    const error = new QueryError('expected a value', 7, { found: 'AND', expected: ['value'] });
    expect(error.position).toBe(7);
    expect(error.details).toEqual({ position: 7, found: 'AND', expected: ['value'] });
    expect(error.message).toBe('targeting query, position 7: expected a value');
  });

  it('AudienceSourceError is retriable only when told, and keeps its cause', () => {
    const cause = new Error('connection lost');
    const error = new AudienceSourceError('followers', 'page 3 failed', { cause, retriable: true });
    expect(error.retriable).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('audience source followers: page 3 failed');
  });
});

describe('access errors', () => {
  it('AccessDeniedError carries its code (UNAUTHENTICATED, FORBIDDEN, SESSION_ENDED, CONSOLE_HEADER_REQUIRED), no details, and is not retriable', () => {
    for (const code of ['UNAUTHENTICATED', 'FORBIDDEN', 'SESSION_ENDED', 'CONSOLE_HEADER_REQUIRED'] as const) {
      const error = new AccessDeniedError(code, 'no');
      expect(error).toBeInstanceOf(HeraldError);
      expect(error.name).toBe('AccessDeniedError');
      expect(error.toJSON()).toStrictEqual({ code, message: 'no' });
      expect(error.retriable).toBe(false);
    }
  });

  it('RateLimitedError is retriable and says when to try again, in ms and in the message (whole seconds)', () => {
    const error = new RateLimitedError(1200);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retriable).toBe(true);
    expect(error.retryAfterMs).toBe(1200);
    expect(error.toJSON()).toStrictEqual({
      code: 'RATE_LIMITED',
      message: 'too many requests for this token: try again in 2 s',
      details: { retryAfterMs: 1200 },
    });
  });
});

describe('quota errors', () => {
  it('AccountQuotaError names the account, keeps the refusal as details and is not retriable', () => {
    const error = new AccountQuotaError('acme', 'daily quota used up', {
      limit: 'dailyBroadcasts',
      max: 3,
      used: 3,
      retryAt: 86_400_000,
    });
    expect(error).toBeInstanceOf(HeraldError);
    expect(error.retriable).toBe(false);
    expect(error.toJSON()).toStrictEqual({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      message: 'account acme: daily quota used up',
      details: { accountId: 'acme', limit: 'dailyBroadcasts', max: 3, used: 3, retryAt: 86_400_000 },
    });
  });
});

describe('isHeraldError', () => {
  it('is false for anything that is not a HeraldError', () => {
    expect(isHeraldError(new Error('plain'))).toBe(false);
    expect(isHeraldError({ code: 'INTERNAL', message: 'looks like one', retriable: false })).toBe(false);
    expect(isHeraldError(null)).toBe(false);
    expect(isHeraldError(undefined)).toBe(false);
    expect(isHeraldError('INTERNAL')).toBe(false);
  });
});
