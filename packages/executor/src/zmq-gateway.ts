import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import {
  noopLogger,
  noopMeter,
  type Delivery,
  type DeliveryGateway,
  type DeliveryResult,
  type Logger,
  type Meter,
} from '@herald/core/ports';
import * as zmq from 'zeromq';
import { InFlightSlots } from './in-flight-slots';
import { ackRequestId, decodeZmqAck, encodeZmqRequest, zmqIdempotencyKey, type ZmqAck } from './zmq-push-protocol';

/** The CURVE keys of the gateway's DEALER, Z85: the push service's public key and the gateway's own pair. */
export interface ZmqGatewayCurve {
  serverPublicKey: string;
  publicKey: string;
  secretKey: string;
}

export interface ZmqGatewayOptions {
  /** The push service's ROUTER: tcp://host:port or ipc://path (inproc:// only without CURVE, in tests). */
  endpoint: string;
  /** CURVE to the service; false only for local tests (docs/delivery.md). */
  curve: ZmqGatewayCurve | false;
  /** A request unanswered this long after `deliver` was called (the wait for a slot included) failed. */
  timeoutMs: number;
  /** Requests sent and not yet answered at most; a further `deliver` waits for a slot. */
  maxInFlight: number;
  logger?: Logger;
  meter?: Meter;
}

interface Pending {
  uins: Uint32Array;
  settle(outcome: ZmqAck | { malformed: string }): void;
}

/**
 * A DeliveryGateway that sends each batch to a push service over ZeroMQ
 * (docs/delivery.md, "The ZeroMQ push gateway"; frames in zmq-push-protocol.ts):
 * one DEALER connected to the service's ROUTER, up to `maxInFlight` requests
 * pipelined on it, each answered by one acknowledge carrying its request id.
 * A DEALER rather than a REQ: REQ allows one request at a time and locks up
 * when an answer is lost, while a push service's throughput comes from many
 * batches in flight on one long connection. ZeroMQ reconnects by itself; the
 * socket queues only to a completed (CURVE-authenticated) connection, so a
 * wrong server key or a service that is down delivers nothing and each
 * request fails at its timeout. Outcomes:
 * - accepted: resolves, with the recipients the service refused for good;
 * - throttled: DELIVERY_THROTTLED with `details.retryAfterMs`;
 * - failed, no answer within `timeoutMs`, a malformed answer: UNAVAILABLE (retriable);
 * - refused: DELIVERY_REJECTED, the batch itself.
 */
export class ZmqDeliveryGateway implements DeliveryGateway {
  private readonly socket: zmq.Dealer;
  private readonly pending = new Map<number, Pending>();
  private readonly slots: InFlightSlots;
  private readonly logger: Logger;
  private readonly malformed;
  private readonly late;
  /** Sends one at a time: a zeromq socket allows a single pending send. */
  private sending: Promise<void> = Promise.resolve();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ZmqGatewayOptions) {
    this.logger = options.logger ?? noopLogger;
    const meter = options.meter ?? noopMeter;
    this.malformed = meter.counter(
      'herald_channel_zmq_malformed_answers_total',
      'Acknowledges from the push service that could not be read (each taken as a failure)',
    );
    this.late = meter.counter(
      'herald_channel_zmq_late_answers_total',
      'Acknowledges for requests already timed out (or never sent)',
    );
    this.slots = new InFlightSlots(options.maxInFlight);
    this.socket = new zmq.Dealer({
      linger: 0,
      immediate: true,
      sendHighWaterMark: options.maxInFlight,
      receiveHighWaterMark: options.maxInFlight * 2,
    });
    if (options.curve !== false) {
      this.socket.curveServerKey = options.curve.serverPublicKey;
      this.socket.curvePublicKey = options.curve.publicKey;
      this.socket.curveSecretKey = options.curve.secretKey;
    }
    try {
      this.socket.connect(options.endpoint);
    } catch (error) {
      this.socket.close();
      throw new ConfigError(
        'delivery.zmq.endpoint',
        `cannot connect to ${options.endpoint}: ${(error as Error).message}`,
      );
    }
    void this.receiveAnswers();
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the ZeroMQ delivery gateway is closed');
    const n = delivery.uins.length;
    if (n === 0) return { rejected: [] };
    const details = { taskId: delivery.taskId, idempotencyKey: zmqIdempotencyKey(delivery) };
    const what = `push gateway ${this.options.endpoint}, task ${delivery.taskId}'s batch of ${n}`;
    const deadline = Date.now() + this.options.timeoutMs;
    const timedOut = () =>
      new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: no answer within ${this.options.timeoutMs} ms`, {
        retriable: true,
        details,
      });
    if (!(await this.slots.acquire(deadline))) throw timedOut();
    const id = this.takeId();
    try {
      const answer = await new Promise<ZmqAck | { malformed: string } | 'timeout' | 'closed'>((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
        this.pending.set(id, {
          uins: delivery.uins,
          settle: (outcome) => {
            clearTimeout(timer);
            resolve(outcome);
          },
        });
        this.send(encodeZmqRequest(id, delivery), deadline);
      });
      if (answer === 'timeout') throw timedOut();
      if (answer === 'closed')
        throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: the gateway closed`, { details });
      return this.outcome(answer, what, details);
    } finally {
      this.pending.delete(id);
      this.slots.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const request of this.pending.values()) request.settle({ malformed: 'closed' });
    this.socket.close();
  }

  private outcome(
    answer: ZmqAck | { malformed: string },
    what: string,
    details: Record<string, unknown>,
  ): DeliveryResult {
    if ('malformed' in answer) {
      if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: the gateway closed`, { details });
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: malformed answer, ${answer.malformed}`, {
        retriable: true,
        details,
      });
    }
    switch (answer.status) {
      case 'accepted':
        return { rejected: answer.rejected };
      case 'throttled':
        throw new HeraldError(ErrorCodes.DELIVERY_THROTTLED, `${what}: throttled`, {
          retriable: true,
          details: { ...details, ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }) },
        });
      case 'failed':
        throw new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: failed, ${answer.reason}`, {
          retriable: true,
          details,
        });
      case 'refused':
        throw new HeraldError(ErrorCodes.DELIVERY_REJECTED, `${what}: refused, ${answer.reason}`, { details });
    }
  }

  /** Request ids are uint32 and wrap; one still pending is skipped. */
  private takeId(): number {
    let id = this.nextId;
    while (this.pending.has(id)) id = (id + 1) >>> 0;
    this.nextId = (id + 1) >>> 0;
    return id;
  }

  /**
   * Queues the frames behind the sends before them. A send waits for a
   * completed connection and room under the high-water mark, at most until
   * its request's deadline: then the request times out unsent.
   */
  private send(frames: Buffer[], deadline: number): void {
    this.sending = this.sending.then(async () => {
      const left = deadline - Date.now();
      if (this.closed || left <= 0) return;
      this.socket.sendTimeout = left;
      try {
        await this.socket.send(frames);
      } catch {
        // EAGAIN at the deadline or a closed socket: the request's own timer reports it.
      }
    });
  }

  /** Settles each pending request with its acknowledge; logs and counts what cannot be matched or read. */
  private async receiveAnswers(): Promise<void> {
    for (;;) {
      let frames: Buffer[];
      try {
        frames = await this.socket.receive();
      } catch {
        return; // closed
      }
      const id = ackRequestId(frames);
      const request = id === undefined ? undefined : this.pending.get(id);
      if (request === undefined) {
        if (id === undefined) this.reportMalformed('no readable request id', frames.length);
        else this.late.inc();
        continue;
      }
      const answer = decodeZmqAck(frames, request.uins);
      if ('malformed' in answer) this.reportMalformed(answer.malformed, frames.length, id);
      request.settle(answer);
    }
  }

  private reportMalformed(problem: string, frames: number, requestId?: number): void {
    this.malformed.inc();
    this.logger.warn('zmq push gateway: malformed answer, taken as a failure', {
      endpoint: this.options.endpoint,
      problem,
      frames,
      ...(requestId === undefined ? {} : { requestId }),
    });
  }
}
