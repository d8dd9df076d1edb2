import { generateKeyPairSync, randomUUID, verify, type KeyObject } from 'node:crypto';
import { Http2PushServer, type Http2Reply, type Http2Request } from './http2-push-server';

/** One notification as the server took it: the device token, the apns-* headers, the JSON payload. */
export interface ApnsRequest {
  token: string;
  headers: Http2Request['headers'];
  payload: {
    aps?: { alert?: { title?: string; body?: string }; 'content-available'?: number };
    herald?: Record<string, string>;
  };
}

/**
 * How the server answers one notification, in APNs' documented format:
 * `ok` (200 with an apns-id); `error` a status with `{"reason": ...}` (410
 * adds a timestamp), with Retry-After if given; `raw` any status and body;
 * `hang` no answer.
 */
export type ApnsAnswer =
  | { kind: 'ok' }
  | { kind: 'error'; status: number; reason: string; retryAfter?: string }
  | { kind: 'raw'; status: number; body: string }
  | 'hang';

/** An APNs error answer. */
export type ApnsError = Extract<ApnsAnswer, { kind: 'error' }>;

export const APNS_ERRORS = {
  unregistered: (): ApnsError => ({ kind: 'error', status: 410, reason: 'Unregistered' }),
  badDeviceToken: (): ApnsError => ({ kind: 'error', status: 400, reason: 'BadDeviceToken' }),
  tooManyRequests: (retryAfterSeconds?: number): ApnsError => ({
    kind: 'error',
    status: 429,
    reason: 'TooManyRequests',
    ...(retryAfterSeconds === undefined ? {} : { retryAfter: String(retryAfterSeconds) }),
  }),
  internal: (): ApnsError => ({ kind: 'error', status: 500, reason: 'InternalServerError' }),
  payloadTooLarge: (): ApnsError => ({ kind: 'error', status: 413, reason: 'PayloadTooLarge' }),
};

const PUSH_TYPES = ['alert', 'background', 'voip', 'complication', 'fileprovider', 'mdm', 'location', 'liveactivity'];
/** A provider token older than this is refused ExpiredProviderToken, as APNs does after an hour. */
const PROVIDER_TOKEN_MAX_AGE_S = 3600;

/**
 * A local APNs for tests (TLS HTTP/2 on 127.0.0.1, `ca` its certificate):
 * `POST /3/device/<token>` checks what APNs checks before anything else (a
 * provider token signed ES256 by the key it made, `keyPem`, with its key id
 * and team id, not older than an hour; apns-topic; apns-push-type; a hex
 * token; a JSON payload of at most 4096 bytes) and answers each
 * notification with the next scripted answer, then per token, then as its
 * policy says (ok). Only notifications answered 200 are in `accepted`.
 */
export class Http2ApnsServer {
  readonly requests: ApnsRequest[] = [];
  readonly accepted: ApnsRequest[] = [];
  /** Distinct provider tokens seen, in order. */
  readonly providerTokens: string[] = [];
  readonly keyId = 'KEY1234567';
  readonly teamId = 'TEAM123456';
  readonly topic = 'com.example.herald';
  /** The .p8 signing key (PKCS#8 PEM, EC P-256), as Apple hands it out. */
  readonly keyPem: string;
  private readonly publicKey: KeyObject;
  private readonly script: ApnsAnswer[] = [];
  private readonly byToken = new Map<string, ApnsAnswer>();
  private policy: (request: ApnsRequest) => ApnsAnswer = () => ({ kind: 'ok' });
  private server!: Http2PushServer;
  private revokedBefore = 0;

  private constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    this.keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    this.publicKey = publicKey;
  }

  static async start(): Promise<Http2ApnsServer> {
    const apns = new Http2ApnsServer();
    apns.server = await Http2PushServer.start((request) => apns.handle(request));
    return apns;
  }

  get ca(): string {
    return this.server.ca;
  }
  get endpoint(): string {
    return this.server.origin;
  }

  answer(...answers: ApnsAnswer[]): void {
    this.script.push(...answers);
  }
  answerToken(token: string, answer: ApnsAnswer): void {
    this.byToken.set(token, answer);
  }
  answerBy(policy: (request: ApnsRequest) => ApnsAnswer): void {
    this.policy = policy;
  }
  /** Refuses every provider token seen so far (403 ExpiredProviderToken), as APNs does with one past its hour. */
  expireProviderTokens(): void {
    this.revokedBefore = this.providerTokens.length;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private handle(request: Http2Request): Http2Reply {
    const token = /^\/3\/device\/([^/?]+)$/.exec(request.path)?.[1];
    if (token === undefined) return reply({ kind: 'error', status: 404, reason: 'BadPath' });
    const refused = this.checkProviderToken(String(request.headers.authorization ?? ''));
    if (refused !== undefined) return reply({ kind: 'error', status: 403, reason: refused });
    if (request.headers['apns-topic'] === undefined)
      return reply({ kind: 'error', status: 400, reason: 'MissingTopic' });
    if (!PUSH_TYPES.includes(String(request.headers['apns-push-type'])))
      return reply({ kind: 'error', status: 400, reason: 'InvalidPushType' });
    if (Buffer.byteLength(request.body) > 4096) return reply(APNS_ERRORS.payloadTooLarge());
    let payload: ApnsRequest['payload'];
    try {
      payload = JSON.parse(request.body) as ApnsRequest['payload'];
    } catch {
      return reply({ kind: 'error', status: 400, reason: 'PayloadEmpty' });
    }
    const entry: ApnsRequest = { token, headers: request.headers, payload };
    this.requests.push(entry);
    const answer = this.script.shift() ?? this.byToken.get(token) ?? this.policy(entry);
    if (answer === 'hang') return 'hang';
    if (answer.kind === 'ok') {
      if (!/^[0-9a-f]{64,200}$/i.test(token)) return reply(APNS_ERRORS.badDeviceToken());
      this.accepted.push(entry);
      return { status: 200, headers: { 'apns-id': randomUUID() } };
    }
    return reply(answer);
  }

  /** Why a provider token is refused (APNs' reason), or undefined when it is good. */
  private checkProviderToken(authorization: string): string | undefined {
    const jwt = /^bearer (.+)$/.exec(authorization)?.[1];
    if (jwt === undefined) return 'MissingProviderToken';
    const [header, claims, signature] = jwt.split('.');
    if (header === undefined || claims === undefined || signature === undefined) return 'InvalidProviderToken';
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      {
        key: this.publicKey,
        dsaEncoding: 'ieee-p1363',
      },
      Buffer.from(signature, 'base64url'),
    );
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string; kid?: string };
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { iss?: string; iat?: number };
    if (!signed || head.alg !== 'ES256' || head.kid !== this.keyId || body.iss !== this.teamId)
      return 'InvalidProviderToken';
    if (typeof body.iat !== 'number' || body.iat < Date.now() / 1000 - PROVIDER_TOKEN_MAX_AGE_S)
      return 'ExpiredProviderToken';
    let seen = this.providerTokens.indexOf(jwt);
    if (seen === -1) seen = this.providerTokens.push(jwt) - 1;
    return seen < this.revokedBefore ? 'ExpiredProviderToken' : undefined;
  }
}

function reply(answer: Exclude<ApnsAnswer, 'hang' | { kind: 'ok' }>): Http2Reply {
  if (answer.kind === 'raw') return { status: answer.status, body: answer.body };
  return {
    status: answer.status,
    ...(answer.retryAfter === undefined ? {} : { headers: { 'retry-after': answer.retryAfter } }),
    body: JSON.stringify({
      reason: answer.reason,
      ...(answer.status === 410 ? { timestamp: Date.now() } : {}),
    }),
  };
}
