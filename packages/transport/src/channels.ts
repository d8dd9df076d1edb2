/**
 * One-way message channels between tiers over ZeroMQ: a PUSH socket that
 * connects to one or more PULL sockets, each frame one encoded Message.
 * Every socket uses zeromq's default context, so inproc:// endpoints join
 * tiers that run in one process; ipc:// and tcp:// work the same way.
 */
import { ConfigError, ErrorCodes, HeraldError, isHeraldError, noopLogger, noopMeter } from '@herald/core';
import type { Logger, Meter } from '@herald/core';
import * as zmq from 'zeromq';
import { decodeMessage, encodeMessage } from './messages';
import type { Message } from './messages/types';

export interface PushOptions {
  /** Names the channel in logs and errors. */
  name: string;
  /** PULL endpoints to connect to; zeromq round-robins messages across them. */
  endpoints: string[];
  /** Messages queued per peer before `send` waits (ZMQ_SNDHWM). */
  highWaterMark: number;
}

export interface PushChannel {
  /**
   * Encodes and queues one message. Resolves once zeromq has taken it; while
   * the high-water mark is reached it stays pending: that is the backpressure.
   * Calls may overlap: they are sent one at a time, in call order. Rejects
   * with FrameError if the message cannot be encoded, HeraldError UNAVAILABLE
   * if the channel is closed first.
   */
  send(msg: Message): Promise<void>;
  /** Closes the socket; queued messages get up to LINGER_MS to leave. */
  close(): void;
}

export interface PullOptions {
  name: string;
  /** The endpoint to bind. */
  endpoint: string;
  /** Messages queued before senders wait (ZMQ_RCVHWM). */
  highWaterMark: number;
  /** Counts `herald_transport_malformed_frames_total{channel}`; defaults to a no-op. */
  meter?: Meter;
  /** Warns about every dropped frame; defaults to a no-op. */
  logger?: Logger;
}

export interface PullChannel {
  /**
   * The decoded messages, in arrival order, until `close()`. Frames that do
   * not decode (and multipart messages) are counted, logged and skipped.
   * One consumer at a time.
   */
  messages(): AsyncIterable<Message>;
  /** The bound address, with a wildcard port resolved (`tcp://127.0.0.1:*` -> `tcp://127.0.0.1:40123`). */
  readonly endpoint: string;
  /** Frames dropped so far because they could not be decoded. */
  readonly malformed: number;
  close(): void;
}

/** How long a closed PUSH socket keeps trying to deliver what it still holds. */
const LINGER_MS = 1000;
const MALFORMED_METRIC = 'herald_transport_malformed_frames_total';

let endpointCounter = 0;

/** A fresh inproc:// address, unique within this process. */
export function inprocEndpoint(name: string): string {
  endpointCounter += 1;
  return `inproc://herald-${name}-${endpointCounter}-${process.pid}`;
}

export async function createPush(options: PushOptions): Promise<PushChannel> {
  const { name, endpoints, highWaterMark } = options;
  checkHighWaterMark(name, highWaterMark);
  if (endpoints.length === 0) throw new ConfigError(`transport.${name}.endpoints`, 'needs at least one endpoint');
  const socket = new zmq.Push({ sendHighWaterMark: highWaterMark, linger: LINGER_MS });
  try {
    for (const endpoint of endpoints) socket.connect(endpoint);
  } catch (error) {
    socket.close();
    throw new ConfigError(`transport.${name}.endpoints`, `cannot connect: ${(error as Error).message}`);
  }
  // zeromq allows one send in flight per socket; this chain queues the rest in call order.
  let tail: Promise<unknown> = Promise.resolve();
  const closedError = () => new HeraldError(ErrorCodes.UNAVAILABLE, `push channel ${name} is closed`, { details: { channel: name } });

  async function sendFrame(frame: Buffer): Promise<void> {
    if (socket.closed) throw closedError();
    try {
      await socket.send(frame);
    } catch (error) {
      if (socket.closed) throw closedError();
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `push channel ${name}: ${(error as Error).message}`, { cause: error });
    }
  }

  return {
    send(msg) {
      let frame: Buffer;
      try {
        frame = encodeMessage(msg);
      } catch (error) {
        return Promise.reject(error);
      }
      const sent = tail.then(() => sendFrame(frame));
      tail = sent.catch(() => undefined);
      return sent;
    },
    close: () => socket.close(),
  };
}

export async function createPull(options: PullOptions): Promise<PullChannel> {
  const { name, endpoint, highWaterMark, meter = noopMeter, logger = noopLogger } = options;
  checkHighWaterMark(name, highWaterMark);
  const socket = new zmq.Pull({ receiveHighWaterMark: highWaterMark, linger: 0 });
  try {
    await socket.bind(endpoint);
  } catch (error) {
    socket.close();
    throw new ConfigError(`transport.${name}.endpoint`, `cannot bind ${endpoint}: ${(error as Error).message}`);
  }
  const dropped = meter.counter(MALFORMED_METRIC, 'Frames dropped because they could not be decoded', ['channel']);
  let malformed = 0;
  let consuming = false;

  function drop(code: string, reason: string, bytes: number): void {
    malformed += 1;
    dropped.inc({ channel: name });
    logger.warn('transport: dropped a malformed frame', { channel: name, code, reason, bytes });
  }

  /** The next decodable message, or undefined once the socket is closed. */
  async function next(): Promise<Message | undefined> {
    while (!socket.closed) {
      let frames: Buffer[];
      try {
        frames = await socket.receive();
      } catch (error) {
        if (socket.closed) return undefined;
        throw error;
      }
      if (frames.length !== 1) {
        drop(ErrorCodes.FRAME_MALFORMED, `multipart message with ${frames.length} frames`, frames.reduce((n, f) => n + f.length, 0));
        continue;
      }
      try {
        return decodeMessage(frames[0]!);
      } catch (error) {
        drop(isHeraldError(error) ? error.code : ErrorCodes.INTERNAL, (error as Error).message, frames[0]!.length);
      }
    }
    return undefined;
  }

  async function* messages(): AsyncGenerator<Message> {
    if (consuming) throw new HeraldError(ErrorCodes.INTERNAL, `pull channel ${name}: messages() already has a consumer`);
    consuming = true;
    try {
      for (let msg = await next(); msg !== undefined; msg = await next()) yield msg;
    } finally {
      consuming = false;
    }
  }

  return {
    messages,
    endpoint: socket.lastEndpoint ?? endpoint,
    get malformed() {
      return malformed;
    },
    close: () => socket.close(),
  };
}

function checkHighWaterMark(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`transport.${name}.highWaterMark`, `must be a non-negative integer, got ${String(value)}`);
  }
}
