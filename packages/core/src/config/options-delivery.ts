import type { ChannelPacingConfig } from './compiled';
import type { KafkaSaslOptions, TlsFileOptions } from './connection-security';

/**
 * `delivery`: where executors push deliveries (docs/delivery.md), as an
 * operator writes it; compileDelivery checks it. Split from HeraldOptions
 * because every channel brings its own block of settings.
 */
export interface DeliveryOptions {
  /**
   * 'file': `<dataDir>/deliveries/` (tests, demos); 'webhook': POST batches to `webhook.url`;
   * 'kafka': records on the topic `kafka.topic` (production profile); 'zmq': requests to a
   * push service's ROUTER at `zmq.endpoint`; 'fcm', 'apns': straight to devices through Firebase
   * Cloud Messaging or APNs (production profile). Default 'file'.
   */
  kind?: 'file' | 'webhook' | 'kafka' | 'zmq' | 'fcm' | 'apns';
  webhook?: {
    /** http(s) URL each batch is POSTed to. Required with kind 'webhook'. */
    url?: string;
    /** Per request, ms; a request without an answer by then failed. 100..600000, default 10000. */
    timeoutMs?: number;
    /** Failed requests in a row (5xx, timeouts, no connection) that open the channel's breaker. 1..100, default 5. */
    maxAttempts?: number;
    /** Wait after a failed request, doubled for each further one in a row (at most breakerOpenMs), ms. 0..60000, default 200. */
    retryDelayMs?: number;
    /** Extra request headers, e.g. { "authorization": "Bearer ..." }. */
    headers?: Record<string, string>;
    /** The channel's pacing by its answers (docs/delivery.md, "Pacing by the channel's health"); every field optional. */
    pacing?: Partial<ChannelPacingConfig>;
  };
  /** A Kafka topic as the channel (docs/delivery.md, "The Kafka topic"); read only with kind 'kafka'. */
  kafka?: {
    /** Seed brokers, "host:port". Required with kind 'kafka'. */
    brokers?: string[];
    /** The topic records go to: 1..249 of letters, digits, _ . - (not '.' or '..'). Required with kind 'kafka'. */
    topic?: string;
    /** Names the producer to the brokers (each executor appends its id). Default 'herald-delivery'. */
    clientId?: string;
    /** A produce not acknowledged by every in-sync replica by then failed, ms. 100..600000, default 10000. */
    timeoutMs?: number;
    /** Largest record value, bytes: a batch larger is split into several records. 1024..100000000, default 900000. */
    maxRecordBytes?: number;
    /** Records are keyed by `uin >>> keyShiftBits` (a consumer shards by uin range). 0..32, default 20. */
    keyShiftBits?: number;
    /** kafkajs's idempotent producer (no duplicate from its own retries; needs a cluster with a controller). Default false. */
    idempotent?: boolean;
    /** SASL to the brokers, as `kafka.sasl`. Default none. */
    sasl?: KafkaSaslOptions;
    /** TLS to the brokers, as `kafka.tls`; present (even {}) means on. Default plaintext. */
    tls?: TlsFileOptions;
    /** Failed produces in a row (no broker, timeouts) that open the channel's breaker. 1..100, default 5. */
    maxAttempts?: number;
    /** Wait after a failed produce, doubled for each further one in a row (at most breakerOpenMs), ms. 0..60000, default 200. */
    retryDelayMs?: number;
    /** The channel's pacing (docs/delivery.md, "Pacing by the channel's health"); every field optional. */
    pacing?: Partial<ChannelPacingConfig>;
  };
  /** A push service's ROUTER as the channel (docs/delivery.md, "The ZeroMQ push gateway"); read only with kind 'zmq'. */
  zmq?: {
    /** tcp://host:port or ipc://path of the service (inproc:// only with curve false). Required with kind 'zmq'. */
    endpoint?: string;
    /** CURVE to the service. false only for local tests. Default true. */
    curve?: boolean;
    /** File holding the service's CURVE public key (Z85, as a `herald keys` .pub). Required unless curve is false. */
    serverPublicKeyFile?: string;
    /** File holding the executor's CURVE pair ({"publicKey","secretKey"}, as a `herald keys` .key). Default a fresh pair each start. */
    keyPairFile?: string;
    /** A request unanswered by then failed, ms (the wait for an in-flight slot included). 100..600000, default 10000. */
    timeoutMs?: number;
    /** Requests sent and not yet answered, at most, per executor process. 1..100000, default 64. */
    maxInFlight?: number;
    /** Failed requests in a row (failed answers, timeouts, malformed answers) that open the breaker. 1..100, default 5. */
    maxAttempts?: number;
    /** Wait after a failed request, doubled for each further one in a row (at most breakerOpenMs), ms. 0..60000, default 200. */
    retryDelayMs?: number;
    /** The channel's pacing (docs/delivery.md, "Pacing by the channel's health"); every field optional. */
    pacing?: Partial<ChannelPacingConfig>;
  };
  /** Firebase Cloud Messaging HTTP v1 (docs/delivery.md, "FCM"); read only with kind 'fcm'. */
  fcm?: PushChannelOptions & {
    /** The service-account key file (JSON) of the Firebase project. Required with kind 'fcm'. */
    credentialsFile?: string;
    /** The project messages are sent as. Default: the key file's project_id. */
    projectId?: string;
    /** The OAuth2 token endpoint. Default 'https://oauth2.googleapis.com/token'. */
    tokenUrl?: string;
  };
  /** Apple Push Notification service, token-based (docs/delivery.md, "APNs"); read only with kind 'apns'. */
  apns?: PushChannelOptions & {
    /** The .p8 signing key Apple issued (PEM, EC P-256). Required with kind 'apns'. */
    keyFile?: string;
    /** The key's 10-character Key ID. Required with kind 'apns'. */
    keyId?: string;
    /** The 10-character Team ID of the developer account. Required with kind 'apns'. */
    teamId?: string;
    /** The app's bundle id, sent as apns-topic. Required with kind 'apns'. */
    topic?: string;
    /** apns-push-type: 'alert' or 'background'. Default 'alert'. */
    pushType?: 'alert' | 'background';
  };
}

/** The settings every mobile-push channel (delivery.fcm, delivery.apns) shares. */
export interface PushChannelOptions {
  /** The push service's origin. Default the real one (https://fcm.googleapis.com, https://api.push.apple.com). */
  endpoint?: string;
  /** A PEM file of CAs to trust for the endpoints instead of the system's (a private proxy). Default none. */
  caFile?: string;
  /** Messages in flight at most (one per device), across the batches a process sends at once. 1..1000, default 100. */
  concurrency?: number;
  /** Per request, ms. 100..600000, default 10000. */
  timeoutMs?: number;
  /** Failed batches in a row that open the channel's breaker. 1..100, default 5. */
  maxAttempts?: number;
  /** Wait after a failed batch, doubled for each further one in a row, ms. 0..60000, default 200. */
  retryDelayMs?: number;
  /** The channel's pacing (docs/delivery.md, "Pacing by the channel's health"); every field optional. */
  pacing?: Partial<ChannelPacingConfig>;
}
