import { ErrorCodes, HeraldError } from '@herald/core';
import {
  noopLogger,
  type Delivery,
  type DeliveryGateway,
  type DeliveryResult,
  type DeviceRegistry,
  type Logger,
} from '@herald/core/ports';
import { AccessTokenSource, type ServiceAccount } from './fcm-credentials';
import { fcmOutcome } from './fcm-answer';
import { fanOut, type DeviceMessage, type DeviceOutcome } from './fan-out';
import { Http2Origin } from './http2-origin';
import { MessageSlots } from './message-slots';
import { batchKey, collapseIdOf, heraldFields, ttlSecondsOf } from './push-message';

export interface FcmGatewayOptions {
  account: ServiceAccount;
  /** The Firebase project messages are sent as. Default: the service account's project_id. */
  projectId?: string;
  /** FCM's origin: https://fcm.googleapis.com, or a local server in tests. */
  endpoint: string;
  /** The OAuth2 token endpoint: https://oauth2.googleapis.com/token, or a local server in tests. */
  tokenUrl: string;
  /** Messages in flight at most, across every batch sent at once. */
  concurrency: number;
  /** Per request (a message, a token exchange). */
  timeoutMs: number;
  /** Trusted CAs (PEM) for both endpoints instead of the system's. */
  ca?: string;
  registry: DeviceRegistry;
  logger?: Logger;
  now?: () => number;
}

/** The FCM HTTP v1 request body of one message. */
export interface FcmMessageBody {
  message: {
    token: string;
    notification: { title?: string; body: string };
    data: Record<string, string>;
    android: { collapse_key: string; ttl?: string };
    apns: { headers: Record<string, string> };
  };
}

/**
 * A DeliveryGateway to Firebase Cloud Messaging's HTTP v1 API
 * (docs/delivery.md, "FCM"): each batch's recipients are looked up in the
 * device registry and each FCM device gets one
 * `POST /v1/projects/<project>/messages:send` over one HTTP/2 connection,
 * `concurrency` at a time, authorised by an OAuth2 access token from the
 * service-account flow (AccessTokenSource). Answers are classified per device
 * (fcm-answer.ts) and joined into the batch's outcome (fan-out.ts); dead
 * tokens leave the registry. Connects on the first batch, not at start.
 */
export class FcmDeliveryGateway implements DeliveryGateway {
  private readonly origin: Http2Origin;
  private readonly tokens: AccessTokenSource;
  private readonly path: string;
  private readonly now: () => number;
  private readonly logger: Logger;
  private closed = false;
  private readonly slots: MessageSlots;

  constructor(private readonly options: FcmGatewayOptions) {
    const ca = options.ca === undefined ? {} : { ca: options.ca };
    this.origin = new Http2Origin(new URL(options.endpoint).origin, { timeoutMs: options.timeoutMs, ...ca });
    this.now = options.now ?? Date.now;
    this.tokens = new AccessTokenSource({
      account: options.account,
      tokenUrl: options.tokenUrl,
      timeoutMs: options.timeoutMs,
      now: this.now,
      ...ca,
    });
    const project = options.projectId ?? options.account.projectId;
    this.path = `/v1/projects/${encodeURIComponent(project)}/messages:send`;
    this.logger = options.logger ?? noopLogger;
    this.slots = new MessageSlots(options.concurrency);
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the FCM delivery gateway is closed');
    if (delivery.uins.length === 0) return { rejected: [] };
    const key = batchKey(delivery);
    const ttl = ttlSecondsOf(delivery, this.now());
    const collapseId = collapseIdOf(delivery);
    return fanOut(
      delivery,
      {
        registry: this.options.registry,
        platform: 'fcm',
        slots: this.slots,
        logger: this.logger,
        what: `FCM, task ${delivery.taskId}'s batch of ${delivery.uins.length}`,
      },
      (message) => this.send(this.bodyOf(delivery, message, key, collapseId, ttl)),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.origin.close();
    this.tokens.close();
  }

  private bodyOf(
    delivery: Delivery,
    { device, content, uin }: DeviceMessage,
    key: string,
    collapseId: string,
    ttl: number | undefined,
  ): FcmMessageBody {
    const expiration = ttl === undefined ? undefined : Math.floor(this.now() / 1000) + ttl;
    return {
      message: {
        token: device.token,
        notification: { ...(content.title === undefined ? {} : { title: content.title }), body: content.body },
        data: heraldFields(delivery, uin, key),
        android: { collapse_key: collapseId, ...(ttl === undefined ? {} : { ttl: `${ttl}s` }) },
        apns: {
          headers: {
            'apns-collapse-id': collapseId,
            ...(expiration === undefined ? {} : { 'apns-expiration': String(expiration) }),
          },
        },
      },
    };
  }

  private async send(body: FcmMessageBody): Promise<DeviceOutcome> {
    let token: string;
    try {
      token = await this.tokens.token();
    } catch (error) {
      return { kind: 'failed', said: (error as Error).message };
    }
    const answer = await this.origin.request(
      this.path,
      { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=UTF-8' },
      JSON.stringify(body),
    );
    if ('unanswered' in answer) return { kind: 'failed', said: answer.unanswered };
    // A token FCM no longer takes (revoked, expired early): the next message exchanges a new one.
    if (answer.status === 401) this.tokens.invalidate();
    return fcmOutcome(answer, this.now());
  }
}
