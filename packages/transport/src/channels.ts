/**
 * One-way message channels between tiers over ZeroMQ: a PUSH socket that
 * connects to one or more PULL sockets, each frame one encoded Message.
 * Every socket uses zeromq's default context, so inproc:// endpoints join
 * tiers that run in one process; ipc:// and tcp:// work the same way.
 * With `curve` set, a tcp:// or ipc:// link is encrypted and authenticated
 * (CURVE): the PULL side is the server and admits only the client public keys
 * in its allow-list, enforced by the process-wide ZAP handler (zap.ts).
 */
import { ConfigError, ErrorCodes, HeraldError, isHeraldError } from '@herald/core';
import { noopLogger, noopMeter } from '@herald/core/ports';
import type { Logger, Meter } from '@herald/core/ports';
import { randomBytes } from 'node:crypto';
import * as zmq from 'zeromq';
import { WIRE_VERSIONS, decodeMessage, encodeMessage, encodeMessageAs } from './messages';
import type { Message } from './messages/types';
import { checkCurveClientOptions, checkCurveEndpoint, checkCurveServerOptions } from './curve';
import type { CurveClientOptions, CurveServerOptions } from './curve';
import { registerZapDomain } from './zap';
import type { ZapRegistration } from './zap';

export interface PushOptions {
  /** Names the channel in logs and errors. */
  name: string;
  /** PULL endpoints to connect to; zeromq round-robins messages across them. */
  endpoints: string[];
  /** Messages queued per peer before `send` waits (ZMQ_SNDHWM). */
  highWaterMark: number;
  /** Connect as a CURVE client (tcp:// or ipc:// endpoints only). Default: no security (NULL). */
  curve?: CurveClientOptions;
  /**
   * Give up a send that could not be queued for this long (the peer's queue
   * stayed full: it is slow, or gone): `send` rejects with UNAVAILABLE and
   * `details.timedOut` true, so the caller can route elsewhere. Default: wait
   * as long as it takes (the backpressure).
   */
  sendTimeoutMs?: number;
  /**
   * Told of each change of a connection to a peer, from zeromq's socket
   * events: 'connected' (handshake done), 'disconnected' (the connection
   * closed: the peer closed it, or its kernel did because the process died),
   * 'retrying' (a reconnect is scheduled: right after a disconnect, and again
   * after each attempt that failed, e.g. refused because nothing listens).
   * A listener that throws is ignored. Default: none (no event observer).
   */
  onLink?: (event: PushLinkEvent) => void;
  /**
   * Send each kind at the newest version this build reads rather than the
   * one the release sends to builds that may be older (docs/operations.md,
   * "Wire versions"): for links whose both ends always run the same build
   * (the embedded profile, in one process). Default false.
   */
  sendNewest?: boolean;
}

/** A change of one PUSH connection (see PushOptions.onLink). */
export interface PushLinkEvent {
  type: 'connected' | 'disconnected' | 'retrying';
  endpoint: string;
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
  /** Counts `herald_transport_malformed_frames_total{channel}` (and `herald_transport_cut_frames_total{channel}`, see setTrafficCut); defaults to a no-op. */
  meter?: Meter;
  /** Warns about every dropped frame and every refused peer; defaults to a no-op. */
  logger?: Logger;
  /**
   * Bind as a CURVE server (tcp:// or ipc:// only) that admits only `allowedClientKeys`.
   * Refused peers (a key not in the list, no CURVE, a failed handshake) are counted as
   * `herald_transport_refused_peers_total{channel}` and logged. Default: no security (NULL).
   */
  curve?: CurveServerOptions;
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
const REFUSED_METRIC = 'herald_transport_refused_peers_total';
const CUT_METRIC = 'herald_transport_cut_frames_total';

let endpointCounter = 0;
const LOAD_ID = randomBytes(4).toString('hex');

/**
 * Fault injection, a test and operations hook (never set in normal running):
 * while the cut is on, every PushChannel of this process drops what it is
 * given (`send` resolves at once and nothing reaches zeromq) and every
 * PullChannel drops each frame it receives (counted as
 * `herald_transport_cut_frames_total{channel}`), as if the process's network link
 * were down. Process-wide and for every channel (every tier the process runs),
 * both directions. Sockets, connections and CURVE sessions stay up, so turning
 * the cut off heals at once; what was dropped meanwhile is gone.
 */
let trafficCut = false;

/** Cuts (true) or restores (false) all ZeroMQ traffic of this process. See `trafficCut` above. */
export function setTrafficCut(cut: boolean): void {
  trafficCut = cut;
}

/** Whether `setTrafficCut(true)` is in force. */
export function isTrafficCut(): boolean {
  return trafficCut;
}

/**
 * A fresh inproc:// address, unique within this process. The random part is for the
 * case where this module is loaded more than once in one process (a test runner's
 * per-file module registries) while zeromq's one context, and every address bound in
 * it, outlives each load: a counter alone would start again at 1 and meet an address a
 * socket left unclosed still holds.
 */
export function inprocEndpoint(name: string): string {
  endpointCounter += 1;
  return `inproc://herald-${name}-${endpointCounter}-${process.pid}-${LOAD_ID}`;
}

export async function createPush(options: PushOptions): Promise<PushChannel> {
  const { name, endpoints, highWaterMark } = options;
  checkHighWaterMark(name, highWaterMark);
  if (endpoints.length === 0) throw new ConfigError(`transport.${name}.endpoints`, 'needs at least one endpoint');
  const curve =
    options.curve === undefined ? undefined : checkCurveClientOptions(`transport.${name}.curve`, options.curve);
  if (curve !== undefined)
    for (const endpoint of endpoints) checkCurveEndpoint(`transport.${name}.endpoints`, endpoint);
  const socket = new zmq.Push({
    sendHighWaterMark: highWaterMark,
    linger: LINGER_MS,
    ...(options.sendTimeoutMs === undefined ? {} : { sendTimeout: options.sendTimeoutMs }),
  });
  if (curve !== undefined) {
    socket.curveServerKey = curve.serverPublicKey;
    socket.curvePublicKey = curve.publicKey;
    socket.curveSecretKey = curve.secretKey;
  }
  // Observed before connecting, or the first handshake can pass unseen.
  if (options.onLink !== undefined) observeLinks(socket, options.onLink);
  try {
    for (const endpoint of endpoints) socket.connect(endpoint);
  } catch (error) {
    socket.close();
    throw new ConfigError(`transport.${name}.endpoints`, `cannot connect: ${(error as Error).message}`);
  }
  // zeromq allows one send in flight per socket; this chain queues the rest in call order.
  let tail: Promise<unknown> = Promise.resolve();
  const closedError = () =>
    new HeraldError(ErrorCodes.UNAVAILABLE, `push channel ${name} is closed`, { details: { channel: name } });

  async function sendFrame(frame: Buffer): Promise<void> {
    if (socket.closed) throw closedError();
    try {
      await socket.send(frame);
    } catch (error) {
      if (socket.closed) throw closedError();
      const timedOut = (error as { code?: string }).code === 'EAGAIN';
      throw new HeraldError(ErrorCodes.UNAVAILABLE, `push channel ${name}: ${(error as Error).message}`, {
        cause: error,
        details: { channel: name, timedOut },
      });
    }
  }

  return {
    send(msg) {
      let frame: Buffer;
      try {
        frame = options.sendNewest === true ? encodeNewest(msg) : encodeMessage(msg);
      } catch (error) {
        return Promise.reject(error as Error); // encodeMessage throws only HeraldErrors
      }
      if (trafficCut) return Promise.resolve();
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
  const curve =
    options.curve === undefined ? undefined : checkCurveServerOptions(`transport.${name}.curve`, options.curve);
  if (curve !== undefined) checkCurveEndpoint(`transport.${name}.endpoint`, endpoint);
  // The ZAP handler is bound before the server socket exists, and released only after it closes.
  const zap = curve === undefined ? undefined : await registerRefusals(name, curve, meter, logger);
  const socket = new zmq.Pull({ receiveHighWaterMark: highWaterMark, linger: 0 });
  try {
    if (curve !== undefined && zap !== undefined) makeCurveServer(socket, curve, zap.registration.domain, zap.refuse);
  } catch (error) {
    socket.close();
    zap?.registration.release();
    throw error;
  }
  try {
    await socket.bind(endpoint);
  } catch (error) {
    socket.close();
    zap?.registration.release();
    throw new ConfigError(`transport.${name}.endpoint`, `cannot bind ${endpoint}: ${(error as Error).message}`);
  }
  const dropped = meter.counter(MALFORMED_METRIC, 'Frames dropped because they could not be decoded', ['channel']);
  const cutFrames = meter.counter(CUT_METRIC, 'Frames dropped on receipt while the fault-injection traffic cut is on', [
    'channel',
  ]);
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
      if (trafficCut) {
        cutFrames.inc({ channel: name });
        continue;
      }
      if (frames.length !== 1) {
        drop(
          ErrorCodes.FRAME_MALFORMED,
          `multipart message with ${frames.length} frames`,
          frames.reduce((n, f) => n + f.length, 0),
        );
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
    if (consuming)
      throw new HeraldError(ErrorCodes.INTERNAL, `pull channel ${name}: messages() already has a consumer`);
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
    close: () => {
      socket.close();
      zap?.registration.release();
    },
  };
}

type Refuse = (fields: { clientKey?: string; address?: string; endpoint?: string; reason: string }) => void;

/** Registers the allow-list with the ZAP handler; refusals are counted and logged under the channel's name. */
async function registerRefusals(
  name: string,
  curve: CurveServerOptions,
  meter: Meter,
  logger: Logger,
): Promise<{ registration: ZapRegistration; refuse: Refuse }> {
  const refused = meter.counter(
    REFUSED_METRIC,
    'Peers refused in the CURVE handshake (key not allowed, no CURVE, bad handshake)',
    ['channel'],
  );
  const refuse: Refuse = (fields) => {
    refused.inc({ channel: name });
    logger.warn('transport: refused a peer', { channel: name, ...fields });
  };
  const registration = await registerZapDomain({
    channel: name,
    allowedClientKeys: curve.allowedClientKeys,
    onRefused: (clientKey, address) => refuse({ clientKey, address, reason: 'client key not allowed' }),
  });
  return { registration, refuse };
}

/**
 * Makes `socket` a CURVE server in `domain`. The ZAP handler refuses keys outside the allow-list;
 * the socket's events report the peers refused before ZAP is asked (no CURVE, wrong server key).
 */
function makeCurveServer(socket: zmq.Pull, curve: CurveServerOptions, domain: string, refuse: Refuse): void {
  socket.curveServer = true;
  socket.curveSecretKey = curve.serverSecretKey;
  socket.zapDomain = domain;
  // Fail closed should the handler ever be missing (libzmq would otherwise admit every client); a draft option.
  if (zmq.capability.draft === true) socket.zapEnforceDomain = true;
  // A receive loop rather than `events.on`: zeromq's emitter mode lazily require()s 'events' from
  // whichever module registry loaded zeromq first, which breaks under jest's per-file registries.
  const observer = socket.events;
  void (async () => {
    while (!observer.closed) {
      let event: zmq.Event;
      try {
        event = await observer.receive();
      } catch {
        return; // the socket, and with it the observer, closed
      }
      if (event.type === 'handshake:error:protocol' || event.type === 'handshake:error:other') {
        const error: Error & { code?: string } = event.error;
        refuse({ endpoint: event.address, reason: `handshake failed: ${error.code ?? error.message}` });
      }
    }
  })();
}

const LINK_EVENTS: Partial<Record<zmq.Event['type'], PushLinkEvent['type']>> = {
  handshake: 'connected',
  disconnect: 'disconnected',
  'connect:retry': 'retrying',
};

/** Feeds a PUSH socket's connection events to `listener` until the socket closes (a receive loop: see makeCurveServer). */
function observeLinks(socket: zmq.Push, listener: (event: PushLinkEvent) => void): void {
  const observer = socket.events;
  void (async () => {
    while (!observer.closed) {
      let event: zmq.Event;
      try {
        event = await observer.receive();
      } catch {
        return; // the socket, and with it the observer, closed
      }
      const type = LINK_EVENTS[event.type];
      if (type === undefined || !('address' in event)) continue;
      try {
        listener({ type, endpoint: event.address });
      } catch {
        // the listener's own failure is its business; the observer keeps running
      }
    }
  })();
}

function checkHighWaterMark(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`transport.${name}.highWaterMark`, `must be a non-negative integer, got ${String(value)}`);
  }
}

/** A message at the newest version of its kind this build reads. */
function encodeNewest(msg: Message): Buffer {
  const accepts = WIRE_VERSIONS[msg.kind].accepts;
  return encodeMessageAs(msg, accepts[accepts.length - 1]!);
}
