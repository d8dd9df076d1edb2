import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';

const TOKEN = `hrd_boot1234_${'S3cret-_'.repeat(5)}`;

function settingOf(options: unknown): { setting: string; message: string } {
  try {
    compileConfig(options as HeraldOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { setting: (error as ConfigError).setting, message: (error as ConfigError).message };
  }
  throw new Error(`compileConfig accepted ${JSON.stringify(options)}`);
}

describe('compileConfig auth', () => {
  it('fills the defaults: 100 requests/s, bursts of 200, tokens trusted for 5 s, 7-day sessions, no bootstrap token', () => {
    expect(compileConfig().auth).toEqual({
      rateLimit: { perSecond: 100, burst: 200 },
      tokenCacheMs: 5000,
      sessionMaxAgeMs: 604_800_000,
      bootstrapAdminToken: null,
    });
  });

  it('takes a bootstrap admin token, a fractional rate and 0 (limiting off, no cache)', () => {
    expect(
      compileConfig({
        auth: {
          bootstrapAdminToken: TOKEN,
          rateLimit: { perSecond: 0.5 },
          tokenCacheMs: 0,
          sessionMaxAgeMs: 3_600_000,
        },
      }).auth,
    ).toEqual({
      rateLimit: { perSecond: 0.5, burst: 200 },
      tokenCacheMs: 0,
      sessionMaxAgeMs: 3_600_000,
      bootstrapAdminToken: TOKEN,
    });
    expect(compileConfig({ auth: { rateLimit: { perSecond: 0 } } }).auth.rateLimit.perSecond).toBe(0);
  });

  it.each<[string, unknown, string]>([
    ['a section that is no object', { auth: 'on' }, 'auth'],
    ['an unknown key', { auth: { tokens: [] } }, 'auth.tokens'],
    ['an unknown rate limit key', { auth: { rateLimit: { perMinute: 5 } } }, 'auth.rateLimit.perMinute'],
    ['a rate limit that is no object', { auth: { rateLimit: 5 } }, 'auth.rateLimit'],
    ['a negative rate', { auth: { rateLimit: { perSecond: -1 } } }, 'auth.rateLimit.perSecond'],
    ['a rate that is no number', { auth: { rateLimit: { perSecond: '5' } } }, 'auth.rateLimit.perSecond'],
    ['a burst of 0', { auth: { rateLimit: { burst: 0 } } }, 'auth.rateLimit.burst'],
    ['a negative cache time', { auth: { tokenCacheMs: -1 } }, 'auth.tokenCacheMs'],
    ['a cache time over an hour', { auth: { tokenCacheMs: 3_600_001 } }, 'auth.tokenCacheMs'],
    ['a session under a minute', { auth: { sessionMaxAgeMs: 59_999 } }, 'auth.sessionMaxAgeMs'],
    ['a session over 30 days', { auth: { sessionMaxAgeMs: 2_592_000_001 } }, 'auth.sessionMaxAgeMs'],
    ['a session age that is no integer', { auth: { sessionMaxAgeMs: '7d' } }, 'auth.sessionMaxAgeMs'],
  ])('refuses %s, naming the setting', (_name, options, setting) => {
    expect(settingOf(options).setting).toBe(setting);
  });

  it('refuses a malformed bootstrap token without echoing it', () => {
    for (const bad of ['hrd_boot1234_short-secret-value', `x${TOKEN}`, 42, '']) {
      const { setting, message } = settingOf({ auth: { bootstrapAdminToken: bad } });
      expect(setting).toBe('auth.bootstrapAdminToken');
      if (typeof bad === 'string' && bad !== '') expect(message).not.toContain(bad);
    }
  });
});
