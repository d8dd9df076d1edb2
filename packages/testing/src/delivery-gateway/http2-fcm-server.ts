import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { Http2PushServer, type Http2Reply, type Http2Request } from './http2-push-server';

/** One FCM message as the server took it: the device token and the message object of the request body. */
export interface FcmRequest {
  token: string;
  message: {
    token: string;
    notification?: { title?: string; body?: string };
    data?: Record<string, string>;
    android?: { collapse_key?: string; ttl?: string };
    apns?: { headers?: Record<string, string> };
  };
  headers: Http2Request['headers'];
}

/**
 * How the server answers one message, in FCM HTTP v1's documented error
 * format: `ok` (200 with the message name); `error` a google.rpc.Status
 * with an FcmError `errorCode` and, with `badToken`, a BadRequest field
 * violation on message.token; `raw` any status and body (malformed answers);
 * `hang` no answer.
 */
export type FcmAnswer =
  | { kind: 'ok' }
  | { kind: 'error'; status: number; errorCode?: string; message?: string; retryAfter?: string; badToken?: boolean }
  | { kind: 'raw'; status: number; body: string }
  | 'hang';

export const FCM_ERRORS = {
  unregistered: (): FcmAnswer => ({ kind: 'error', status: 404, errorCode: 'UNREGISTERED' }),
  invalidToken: (): FcmAnswer => ({ kind: 'error', status: 400, errorCode: 'INVALID_ARGUMENT', badToken: true }),
  quotaExceeded: (retryAfterSeconds: number): FcmAnswer => ({
    kind: 'error',
    status: 429,
    errorCode: 'QUOTA_EXCEEDED',
    retryAfter: String(retryAfterSeconds),
  }),
  internal: (): FcmAnswer => ({ kind: 'error', status: 500, errorCode: 'INTERNAL' }),
  invalidArgument: (message: string): FcmAnswer => ({
    kind: 'error',
    status: 400,
    errorCode: 'INVALID_ARGUMENT',
    message,
  }),
};

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * A local FCM HTTP v1 for tests (TLS HTTP/2 on 127.0.0.1, `ca` its
 * certificate): the OAuth2 token endpoint (`tokenUrl`), which checks the
 * RS256 assertion against the service account it made (`serviceAccountJson`),
 * and `POST /v1/projects/<projectId>/messages:send`, which checks the bearer
 * token it issued and answers each message with the next scripted answer,
 * then per token (`answerToken`), then as its policy says (ok). Only
 * messages answered 200 are in `accepted`.
 */
export class Http2FcmServer {
  readonly requests: FcmRequest[] = [];
  readonly accepted: FcmRequest[] = [];
  /** Access tokens issued, in order. */
  readonly issued: string[] = [];
  readonly projectId = 'herald-test';
  readonly serviceAccountJson: string;
  private readonly publicKey: KeyObject;
  private readonly clientEmail = 'herald@herald-test.iam.gserviceaccount.com';
  private readonly valid = new Set<string>();
  private readonly script: FcmAnswer[] = [];
  private readonly byToken = new Map<string, FcmAnswer>();
  private readonly tokenScript: Http2Reply[] = [];
  private policy: (request: FcmRequest) => FcmAnswer = () => ({ kind: 'ok' });
  private server!: Http2PushServer;
  private expiresIn = 3600;

  private constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.publicKey = publicKey;
    this.serviceAccountJson = JSON.stringify({
      type: 'service_account',
      project_id: this.projectId,
      private_key_id: 'k1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: this.clientEmail,
      token_uri: 'https://oauth2.googleapis.com/token',
    });
  }

  static async start(): Promise<Http2FcmServer> {
    const fcm = new Http2FcmServer();
    fcm.server = await Http2PushServer.start((request) => fcm.handle(request));
    return fcm;
  }

  get ca(): string {
    return this.server.ca;
  }
  get endpoint(): string {
    return this.server.origin;
  }
  get tokenUrl(): string {
    return `${this.server.origin}/token`;
  }
  /** How many access tokens were exchanged. */
  get exchanges(): number {
    return this.issued.length;
  }

  /** Answers the next messages with these, in order. */
  answer(...answers: FcmAnswer[]): void {
    this.script.push(...answers);
  }
  /** Answers every message to `token` so (after the script): a dead device. */
  answerToken(token: string, answer: FcmAnswer): void {
    this.byToken.set(token, answer);
  }
  answerBy(policy: (request: FcmRequest) => FcmAnswer): void {
    this.policy = policy;
  }
  /** Answers the next token exchanges with these (a token endpoint that fails). */
  answerExchange(...replies: Http2Reply[]): void {
    this.tokenScript.push(...replies);
  }
  /** The lifetime of the access tokens issued from now on, in seconds. */
  issueFor(seconds: number): void {
    this.expiresIn = seconds;
  }
  /** Revokes every access token issued so far: messages carrying one are answered 401. */
  revokeTokens(): void {
    this.valid.clear();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private handle(request: Http2Request): Http2Reply {
    if (request.path === '/token') return this.exchange(request.body);
    if (request.path !== `/v1/projects/${this.projectId}/messages:send`)
      return errorReply({ kind: 'error', status: 404, message: 'Requested entity was not found.' });
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (bearer === undefined || !this.valid.has(bearer))
      return errorReply({ kind: 'error', status: 401, message: 'Request had invalid authentication credentials.' });
    let message: FcmRequest['message'];
    try {
      message = (JSON.parse(request.body) as { message: FcmRequest['message'] }).message;
      if (typeof message?.token !== 'string') throw new Error('no token');
    } catch {
      return errorReply({ kind: 'error', status: 400, message: 'Invalid JSON payload received.' });
    }
    const entry: FcmRequest = { token: message.token, message, headers: request.headers };
    this.requests.push(entry);
    const answer = this.script.shift() ?? this.byToken.get(entry.token) ?? this.policy(entry);
    if (answer === 'hang') return 'hang';
    if (answer.kind === 'ok') {
      this.accepted.push(entry);
      return {
        status: 200,
        body: JSON.stringify({ name: `projects/${this.projectId}/messages/${randomBytes(8).toString('hex')}` }),
      };
    }
    return errorReply(answer);
  }

  /** The JWT bearer grant: the assertion must be signed by the service account's key, for this endpoint and scope. */
  private exchange(body: string): Http2Reply {
    const scripted = this.tokenScript.shift();
    if (scripted !== undefined) return scripted;
    const form = new URLSearchParams(body);
    const refuse = (description: string): Http2Reply => ({
      status: 400,
      body: JSON.stringify({ error: 'invalid_grant', error_description: description }),
    });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('bad grant_type');
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (header === undefined || claims === undefined || signature === undefined) return refuse('not a JWT');
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      this.publicKey,
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) return refuse('Invalid JWT Signature.');
    const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
    const now = Date.now() / 1000;
    if (parsed.iss !== this.clientEmail || parsed.aud !== this.tokenUrl || parsed.scope !== SCOPE)
      return refuse('Invalid JWT: iss, aud or scope');
    // exp against the real clock, iat only against exp: a test may run the gateway on a clock of its own, ahead.
    if (
      typeof parsed.exp !== 'number' ||
      parsed.exp < now ||
      typeof parsed.iat !== 'number' ||
      parsed.exp - parsed.iat > 3600
    )
      return refuse('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.');
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    this.valid.add(token);
    this.issued.push(token);
    return {
      status: 200,
      body: JSON.stringify({ access_token: token, expires_in: this.expiresIn, token_type: 'Bearer' }),
    };
  }
}

function errorReply(answer: Exclude<FcmAnswer, 'hang' | { kind: 'ok' }>): Http2Reply {
  if (answer.kind === 'raw') return { status: answer.status, body: answer.body };
  const details: unknown[] = [];
  if (answer.errorCode !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: answer.errorCode });
  if (answer.badToken === true)
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [
        { field: 'message.token', description: 'The registration token is not a valid FCM registration token' },
      ],
    });
  return {
    status: answer.status,
    ...(answer.retryAfter === undefined ? {} : { headers: { 'retry-after': answer.retryAfter } }),
    body: JSON.stringify({
      error: {
        code: answer.status,
        message: answer.message ?? STATUS_NAMES[answer.status] ?? 'error',
        status: STATUS_NAMES[answer.status] ?? 'UNKNOWN',
        details,
      },
    }),
  };
}
