import type { KeyObject } from 'node:crypto';
import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import {
  noopLogger,
  type Delivery,
  type DeliveryGateway,
  type DeliveryResult,
  type DeviceRegistry,
  type Logger,
} from '@herald/core/ports';
import { apnsOutcome, readApnsReason } from './apns-answer';
import { fanOut, type DeviceMessage, type DeviceOutcome } from './fan-out';
import { Http2Origin } from './http2-origin';
import { MessageSlots } from './message-slots';
import { readPrivateKey, signJwt } from './jwt';
import { batchKey, collapseIdOf, heraldFields } from './push-message';

/** A provider token is signed again after this long: Apple takes one for an hour and refuses a new one more often than every 20 minutes. */
export const PROVIDER_TOKEN_REFRESH_MS = 50 * 60_000;

export interface ApnsGatewayOptions {
  /** The .p8 key's PEM text (EC P-256). */
  key: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id: apns-topic. */
  topic: string;
  pushType: 'alert' | 'background';
  /** APNs' origin: https://api.push.apple.com (or the sandbox), or a local server in tests. */
  endpoint: string;
  /** Messages in flight at most, across every batch sent at once. */
  concurrency: number;
  timeoutMs: number;
  ca?: string;
  registry: DeviceRegistry;
  logger?: Logger;
  now?: () => number;
}

/** Reads the .p8 key, or throws CONFIG_INVALID naming `setting` (never the key). */
export function readApnsKey(pem: string, setting: string): KeyObject {
  try {
    return readPrivateKey(pem, 'ec');
  } catch (error) {
    throw new ConfigError(setting, `is not an APNs signing key (.p8, EC P-256): ${(error as Error).message}`);
  }
}

/**
 * A DeliveryGateway to the Apple Push Notification service (docs/delivery.md,
 * "APNs"), token-based: each APNs device of a batch's recipients gets one
 * `POST /3/device/<token>` over one HTTP/2 connection, `concurrency` at a
 * time, with a provider token (an ES256 JWT of the key id and team id)
 * signed again every PROVIDER_TOKEN_REFRESH_MS, or at once when APNs refuses
 * it. apns-expiration is the task's expiry, apns-collapse-id its collapse
 * key. Answers are classified per device (apns-answer.ts) and joined into
 * the batch's outcome (fan-out.ts); dead tokens leave the registry.
 */
export class ApnsDeliveryGateway implements DeliveryGateway {
  private readonly origin: Http2Origin;
  private readonly key: KeyObject;
  private readonly now: () => number;
  private readonly logger: Logger;
  private providerToken: { jwt: string; signedAt: number } | undefined;
  private closed = false;
  private readonly slots: MessageSlots;

  constructor(private readonly options: ApnsGatewayOptions) {
    this.key = readApnsKey(options.key, 'delivery.apns.keyFile');
    this.origin = new Http2Origin(new URL(options.endpoint).origin, {
      timeoutMs: options.timeoutMs,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? noopLogger;
    this.slots = new MessageSlots(options.concurrency);
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the APNs delivery gateway is closed');
    if (delivery.uins.length === 0) return { rejected: [] };
    const key = batchKey(delivery);
    const headers = this.headersOf(delivery);
    return fanOut(
      delivery,
      {
        registry: this.options.registry,
        platform: 'apns',
        slots: this.slots,
        logger: this.logger,
        what: `APNs, task ${delivery.taskId}'s batch of ${delivery.uins.length}`,
      },
      (message) => this.send(message, headers, JSON.stringify(this.payloadOf(delivery, message, key))),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.origin.close();
  }

  /** The headers every message of the batch shares. */
  private headersOf(delivery: Delivery): Record<string, string> {
    const { topic, pushType } = this.options;
    return {
      'apns-topic': topic,
      'apns-push-type': pushType,
      // Background pushes must go at priority 5; alerts at 10, at once.
      'apns-priority': pushType === 'background' ? '5' : '10',
      'apns-collapse-id': collapseIdOf(delivery),
      // 0: APNs tries once and keeps nothing; a task's expiry: kept (and retried by APNs) until then.
      'apns-expiration': String(delivery.expiresAt === undefined ? 0 : Math.floor(delivery.expiresAt / 1000)),
      'content-type': 'application/json',
    };
  }

  private payloadOf(delivery: Delivery, { content, uin }: DeviceMessage, key: string): Record<string, unknown> {
    const aps =
      this.options.pushType === 'background'
        ? { 'content-available': 1 }
        : { alert: { ...(content.title === undefined ? {} : { title: content.title }), body: content.body } };
    return { aps, herald: heraldFields(delivery, uin, key) };
  }

  private async send(
    { device }: DeviceMessage,
    headers: Record<string, string>,
    payload: string,
  ): Promise<DeviceOutcome> {
    const answer = await this.origin.request(
      `/3/device/${device.token}`,
      { ...headers, authorization: `bearer ${this.currentProviderToken()}` },
      payload,
    );
    if ('unanswered' in answer) return { kind: 'failed', said: answer.unanswered };
    const reason = readApnsReason(answer.body);
    // A provider token APNs no longer takes: sign a new one for the next message.
    if (answer.status === 403 && (reason === 'ExpiredProviderToken' || reason === 'InvalidProviderToken'))
      this.providerToken = undefined;
    return apnsOutcome(answer, this.now());
  }

  private currentProviderToken(): string {
    const now = this.now();
    if (this.providerToken === undefined || now - this.providerToken.signedAt >= PROVIDER_TOKEN_REFRESH_MS) {
      const jwt = signJwt(
        'ES256',
        this.key,
        { iss: this.options.teamId, iat: Math.floor(now / 1000) },
        { kid: this.options.keyId },
      );
      this.providerToken = { jwt, signedAt: now };
    }
    return this.providerToken.jwt;
  }
}
