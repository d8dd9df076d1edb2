import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type Logger } from '@herald/core';
import { isTrafficCut, setTrafficCut } from '@herald/transport';

/** What the management endpoint needs from the process it serves. */
export interface ManagedProcess {
  id: string;
  tier: string;
  /** The tier's own view of itself: plain JSON data (owned tasks, membership state, streams...). */
  status(): Record<string, unknown>;
  /** Starts the drain; resolves when the process may exit. Called at most once. */
  drain(): Promise<void>;
  /** Prometheus text exposition and its content type. */
  metrics(): Promise<{ contentType: string; body: string }>;
}

export interface ManagementOptions {
  /** "host:port"; port 0 picks a free one. */
  address: string;
  /** Serves POST /faults/traffic-cut (tests and chaos runs only). */
  faults: boolean;
  logger: Logger;
}

export interface ManagementServer {
  /** "host:port" bound. */
  readonly address: string;
  /** Resolves once a drain asked through POST /drain has finished. */
  readonly drained: Promise<void>;
  close(): Promise<void>;
}

/**
 * A process's management endpoint: plain HTTP on its own listener, never on
 * the public API's, so `herald admin` and Prometheus reach it and clients do
 * not. Bind it to loopback or a private network (docs/operations.md).
 *
 *   GET  /status               {id, tier, pid, state: running|draining, startedAt, ...tier status}
 *   POST /drain                202; the process stops taking work, hands off or finishes it, exits
 *   GET  /metrics              Prometheus text
 *   POST /faults/traffic-cut   {"cut": true|false}: drop every ZeroMQ message in and out (only with management.faults)
 *
 * Errors are JSON {code, message} like the public API's.
 */
export async function startManagementServer(process_: ManagedProcess, options: ManagementOptions): Promise<ManagementServer> {
  const { logger } = options;
  const startedAt = new Date().toISOString();
  let draining: Promise<void> | undefined;
  let resolveDrained!: () => void;
  const drained = new Promise<void>((resolve) => (resolveDrained = resolve));

  const drain = () => {
    if (draining === undefined) {
      logger.info('drain asked on the management endpoint', { id: process_.id, tier: process_.tier });
      draining = process_.drain().then(resolveDrained, (error: unknown) => {
        logger.error('drain failed; exiting anyway', { error: String(error) });
        resolveDrained();
      });
    }
  };

  const routes: Record<string, (req: IncomingMessage) => Promise<[number, unknown]>> = {
    'GET /status': async () => [200, { id: process_.id, tier: process_.tier, pid: process.pid, state: draining ? 'draining' : 'running', startedAt, trafficCut: isTrafficCut(), ...process_.status() }],
    'POST /drain': async () => {
      drain();
      return [202, { id: process_.id, state: 'draining' }];
    },
    'GET /metrics': async () => {
      const { contentType, body } = await process_.metrics();
      return [200, new Exposition(contentType, body)];
    },
    'POST /faults/traffic-cut': async (req) => {
      if (!options.faults) return [404, { code: 'NOT_FOUND', message: 'fault injection is off (management.faults)' }];
      const body = await readJson(req);
      if (body === null || typeof body !== 'object' || typeof (body as { cut?: unknown }).cut !== 'boolean') return [400, { code: 'VALIDATION', message: 'body must be {"cut": true|false}' }];
      const cut = (body as { cut: boolean }).cut;
      setTrafficCut(cut);
      logger.warn('fault injection: traffic cut', { cut });
      return [200, { trafficCut: cut }];
    },
  };

  const server: Server = createServer((req, res) => {
    const route = routes[`${req.method} ${(req.url ?? '/').split('?')[0]}`];
    const answer = route ? route(req) : Promise.resolve<[number, unknown]>([404, { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url}` }]);
    answer.then(
      ([status, body]) => send(res, status, body),
      (error: unknown) => send(res, 500, { code: 'INTERNAL', message: String(error) }),
    );
  });
  const [host, port] = splitAddress(options.address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new ConfigError(`management.endpoints.${process_.id}`, `cannot listen on ${options.address}: ${error.message}`)));
    server.listen(port, host, () => resolve());
  });
  const bound = `${host}:${(server.address() as AddressInfo).port}`;
  return {
    address: bound,
    drained,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at), Number(address.slice(at + 1))];
}

/** A Prometheus answer: sent as it is, not as JSON. */
class Exposition {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (body instanceof Exposition) {
    res.writeHead(status, { 'content-type': body.contentType });
    res.end(body.body);
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A small JSON body (at most 4 KiB); anything else is null. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 4096) return null;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
