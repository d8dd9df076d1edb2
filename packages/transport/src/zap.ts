/**
 * The process-wide ZAP handler (ZMQ RFC 27) that enforces CURVE allow-lists.
 *
 * libzmq asks one handler per context, at `inproc://zeromq.zap.01`, whether
 * to admit each peer that completes a CURVE handshake. Every Herald socket
 * uses zeromq's default context, so one handler serves them all: each CURVE
 * server registers its own ZAP domain with its allow-list, and the handler
 * answers by domain. It is bound when the first domain registers and closed
 * when the last one leaves (a pending receive would keep Node running).
 *
 * Request (REP envelope stripped), one frame each:
 *   version "1.0" | request id | domain | address | identity | mechanism | credentials...
 *   (CURVE: one credential, the client's 32-byte public key)
 * Reply:
 *   version "1.0" | request id | status code | status text | user id | metadata
 *   200 admitted (user id = the client key in Z85), 400 refused, 500 malformed request.
 */
import { ErrorCodes, HeraldError } from '@herald/core';
import * as zmq from 'zeromq';
import { z85Encode } from './curve';

export const ZAP_ENDPOINT = 'inproc://zeromq.zap.01';
/** How long a new handler retries its bind while a closed one still holds the address. */
const REBIND_DEADLINE_MS = 2000;

export interface ZapDomainOptions {
  /** Names the domain (with a counter), for tracing. */
  channel: string;
  /** Z85 public keys admitted. */
  allowedClientKeys: readonly string[];
  /** Called for every refused CURVE client, before the reply goes out. */
  onRefused(clientKey: string, address: string): void;
}

export interface ZapRegistration {
  /** The ZAP domain to set on the server socket (ZMQ_ZAP_DOMAIN). */
  readonly domain: string;
  /** Forgets the domain; closes the handler when it was the last one. */
  release(): void;
}

interface Domain {
  allowed: ReadonlySet<string>;
  onRefused(clientKey: string, address: string): void;
}

const domains = new Map<string, Domain>();
let handler: Promise<zmq.Reply> | undefined;
let domainCounter = 0;

/** Registers an allow-list under a fresh domain; resolves once the handler is bound. */
export async function registerZapDomain(options: ZapDomainOptions): Promise<ZapRegistration> {
  domainCounter += 1;
  const domain = `herald/${options.channel}/${domainCounter}`;
  domains.set(domain, {
    allowed: new Set(options.allowedClientKeys),
    onRefused: (clientKey, address) => options.onRefused(clientKey, address),
  });
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    domains.delete(domain);
    if (domains.size === 0 && handler !== undefined) {
      const closing = handler;
      handler = undefined;
      closing.then(
        (socket) => socket.close(),
        () => undefined,
      );
    }
  };
  const starting = (handler ??= startHandler());
  try {
    await starting;
  } catch (error) {
    if (handler === starting) handler = undefined;
    release();
    throw error;
  }
  return { domain, release };
}

/** Domains currently registered: for tests. */
export function zapDomainCount(): number {
  return domains.size;
}

async function startHandler(): Promise<zmq.Reply> {
  const socket = new zmq.Reply({ linger: 0 });
  const deadline = Date.now() + REBIND_DEADLINE_MS;
  for (;;) {
    try {
      await socket.bind(ZAP_ENDPOINT);
      break;
    } catch (error) {
      // A handler closed a moment ago frees the address asynchronously (libzmq's reaper thread).
      if ((error as { code?: string }).code === 'EADDRINUSE' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      socket.close();
      throw new HeraldError(
        ErrorCodes.INTERNAL,
        `cannot bind the ZAP handler at ${ZAP_ENDPOINT}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  void serve(socket);
  return socket;
}

async function serve(socket: zmq.Reply): Promise<void> {
  while (!socket.closed) {
    try {
      const request = await socket.receive();
      await socket.send(answerZapRequest(request));
    } catch {
      // Closed: done. Anything else would repeat; stopping leaves handshakes unanswered, which admits nobody.
      return;
    }
  }
}

/** The reply frames for one ZAP request; never throws, since a REP socket must answer every request. */
export function answerZapRequest(request: readonly Buffer[]): Buffer[] {
  const requestId = request[1] ?? Buffer.alloc(0);
  const reply = (code: string, text: string, userId = ''): Buffer[] => [
    Buffer.from('1.0'),
    requestId,
    Buffer.from(code),
    Buffer.from(text),
    Buffer.from(userId),
    Buffer.alloc(0),
  ];
  if (request.length < 6 || request[0]!.toString() !== '1.0') return reply('500', 'malformed ZAP request');
  const domain = domains.get(request[2]!.toString());
  if (domain === undefined) return reply('400', 'unknown ZAP domain');
  const mechanism = request[5]!.toString();
  const credential = request[6];
  if (mechanism !== 'CURVE' || request.length !== 7 || credential!.length !== 32) return reply('400', 'CURVE required');
  const clientKey = z85Encode(credential!);
  if (domain.allowed.has(clientKey)) return reply('200', 'OK', clientKey);
  try {
    domain.onRefused(clientKey, request[3]!.toString());
  } catch {
    // The refusal stands whatever the counter or the logger did.
  }
  return reply('400', 'client key not allowed');
}
