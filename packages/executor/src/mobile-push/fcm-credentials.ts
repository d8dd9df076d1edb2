import type { KeyObject } from 'node:crypto';
import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import { Http2Origin } from './http2-origin';
import { readPrivateKey, signJwt } from './jwt';

/** The OAuth2 scope FCM HTTP v1 asks for. */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** An access token is refreshed this long before it expires, so no request goes out with one about to lapse. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/** The assertion's lifetime: Google accepts at most an hour. */
const ASSERTION_SECONDS = 3600;

/** What Herald reads of a Google service-account key file (the JSON the Firebase console downloads). */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  privateKeyId?: string;
  projectId: string;
}

/**
 * Reads a service-account key file's text; a file that is not one throws
 * CONFIG_INVALID naming `setting` and what is wrong (never the key itself).
 */
export function parseServiceAccount(text: string, setting: string): ServiceAccount {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(setting, 'is not a service-account key file: not JSON');
  }
  const file = (parsed ?? {}) as Record<string, unknown>;
  if (file.type !== 'service_account')
    throw new ConfigError(setting, `is not a service-account key file: "type" is not "service_account"`);
  for (const field of ['client_email', 'private_key', 'project_id'])
    if (typeof file[field] !== 'string' || file[field] === '')
      throw new ConfigError(setting, `is not a service-account key file: no "${field}"`);
  let privateKey: KeyObject;
  try {
    privateKey = readPrivateKey(file.private_key as string, 'rsa');
  } catch (error) {
    throw new ConfigError(setting, `has an unreadable "private_key": ${(error as Error).message}`);
  }
  return {
    clientEmail: file.client_email as string,
    privateKey,
    ...(typeof file.private_key_id === 'string' ? { privateKeyId: file.private_key_id } : {}),
    projectId: file.project_id as string,
  };
}

export interface AccessTokenSourceOptions {
  account: ServiceAccount;
  /** Where the signed assertion is exchanged for an access token (Google's: https://oauth2.googleapis.com/token). */
  tokenUrl: string;
  timeoutMs: number;
  ca?: string;
  now?: () => number;
}

/**
 * The OAuth2 service-account flow (RFC 7523 JWT bearer grant): a JWT signed
 * RS256 with the account's key, exchanged at the token endpoint for an
 * access token, which is kept until TOKEN_REFRESH_MARGIN_MS before it
 * expires. Concurrent callers share one exchange. Nothing happens until the
 * first `token()`: starting Herald makes no network call.
 */
export class AccessTokenSource {
  private cached: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly origin: Http2Origin;
  private readonly path: string;
  private readonly now: () => number;

  constructor(private readonly options: AccessTokenSourceOptions) {
    const url = new URL(options.tokenUrl);
    this.origin = new Http2Origin(url.origin, {
      timeoutMs: options.timeoutMs,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    this.path = `${url.pathname}${url.search}`;
    this.now = options.now ?? Date.now;
  }

  /** A valid access token: the cached one, or a fresh exchange. UNAVAILABLE (retriable) when the endpoint does not give one. */
  async token(): Promise<string> {
    if (this.cached !== undefined && this.now() < this.cached.refreshAt) return this.cached.token;
    this.pending ??= this.exchange().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the cached token (FCM answered 401 with it): the next `token()` exchanges again. */
  invalidate(): void {
    this.cached = undefined;
  }

  close(): void {
    this.origin.close();
  }

  private async exchange(): Promise<string> {
    const { account, tokenUrl } = this.options;
    const iat = Math.floor(this.now() / 1000);
    const assertion = signJwt(
      'RS256',
      account.privateKey,
      { iss: account.clientEmail, scope: FCM_SCOPE, aud: tokenUrl, iat, exp: iat + ASSERTION_SECONDS },
      account.privateKeyId === undefined ? {} : { kid: account.privateKeyId },
    );
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const answer = await this.origin.request(
      this.path,
      { 'content-type': 'application/x-www-form-urlencoded' },
      form.toString(),
    );
    const failed = (why: string) =>
      new HeraldError(ErrorCodes.UNAVAILABLE, `FCM OAuth2 token endpoint ${tokenUrl}: ${why}`, { retriable: true });
    if ('unanswered' in answer) throw failed(answer.unanswered);
    if (answer.status !== 200) throw failed(`HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(answer.body) as typeof parsed;
    } catch {
      throw failed('the answer is not JSON');
    }
    if (typeof parsed.access_token !== 'string' || typeof parsed.expires_in !== 'number')
      throw failed('the answer has no access_token and expires_in');
    const expiresAt = this.now() + parsed.expires_in * 1000;
    this.cached = { token: parsed.access_token, refreshAt: expiresAt - TOKEN_REFRESH_MARGIN_MS };
    return parsed.access_token;
  }
}
