import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@herald/core';
import { isLoopbackHost } from '@herald/core/config';
import type { DeliveryRecordLog, Logger } from '@herald/core/ports';
import { isTrafficCut, setTrafficCut } from '@herald/transport';
import type { ChannelLimitsControl } from '@herald/executor';
import { channelRoutes } from './management-channels';
import { recordRoutes } from './management-records';
import { checkCaller, readJsonBody } from './management-guard';

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
  /** An executor's paced channels, whose limits an admin changes here (GET /channels, POST /channels/limits). */
  channels?: ChannelLimitsControl;
  /** An executor's delivery records, which the interface processes read (GET /records/..., management-records.ts). */
  deliveryRecords?: DeliveryRecordLog;
}

export interface ManagementOptions {
  /** "host:port"; port 0 picks a free one. */
  address: string;
  /** Serves POST /faults/traffic-cut (tests and chaos runs only). */
  faults: boolean;
  /** SHA-256 (lowercase hex) of the management token every route requires (management.tokenHash). */
  tokenHash: string;
  /** Allows an address other than loopback (management.allowRemote). Default false. */
  allowRemote?: boolean;
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
 * not. It listens on loopback unless allowRemote (docs/operations.md).
 *
 *   GET  /status               {id, tier, pid, state: running|draining, startedAt, ...tier status}
 *   POST /drain                {"id": "<this process>"}: 202; the process stops taking work, hands off or finishes it, exits
 *   GET  /metrics              Prometheus text
 *   POST /faults/traffic-cut   {"cut": true|false}: drop every ZeroMQ message in and out (only with management.faults)
 *   GET  /channels, POST /channels/limits   a process's paced channels and their limits (management-channels.ts)
 *
 * Every route needs `Authorization: Bearer <management token>` (401 without)
 * and refuses any request with an Origin header (403); the POST routes take
 * only a complete application/json body (docs/security.md). Errors are JSON
 * {code, message} like the public API's.
 */
export async function startManagementServer(
  process_: ManagedProcess,
  options: ManagementOptions,
): Promise<ManagementServer> {
  const { logger } = options;
  const [host, port] = splitAddress(options.address);
  if (!isLoopbackHost(host) && options.allowRemote !== true)
    throw new ConfigError(
      `management.endpoints.${process_.id}`,
      `listens beyond loopback (${options.address}): set management.allowRemote to true to allow it`,
    );
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
    'GET /status': async () => [
      200,
      {
        id: process_.id,
        tier: process_.tier,
        pid: process.pid,
        state: draining ? 'draining' : 'running',
        startedAt,
        trafficCut: isTrafficCut(),
        ...process_.status(),
      },
    ],
    'POST /drain': async (req) => {
      // The body names the process: a drain sent to the wrong address (a stale endpoint list) stops nothing.
      const body = await readJsonBody(req);
      if (!body.ok) return body.refusal;
      if ((body.value as { id?: unknown } | null)?.id !== process_.id)
        return [400, { code: 'VALIDATION', message: `body must be {"id": ${JSON.stringify(process_.id)}}` }];
      drain();
      return [202, { id: process_.id, state: 'draining' }];
    },
    'GET /metrics': async () => {
      const { contentType, body } = await process_.metrics();
      return [200, new Exposition(contentType, body)];
    },
    'POST /faults/traffic-cut': async (req) => {
      if (!options.faults) return [404, { code: 'NOT_FOUND', message: 'fault injection is off (management.faults)' }];
      const body = await readJsonBody(req);
      if (!body.ok) return body.refusal;
      const cut = (body.value as { cut?: unknown } | null)?.cut;
      if (typeof cut !== 'boolean') return [400, { code: 'VALIDATION', message: 'body must be {"cut": true|false}' }];
      setTrafficCut(cut);
      logger.warn('fault injection: traffic cut', { cut });
      return [200, { trafficCut: cut }];
    },
    ...channelRoutes(process_.channels),
    ...recordRoutes(process_.deliveryRecords),
  };

  const server: Server = createServer((req, res) => {
    const refused = checkCaller(req, options.tokenHash);
    if (refused !== null) {
      // Unread: a refused caller's body is never parsed. The connection closes so it cannot keep sending.
      // Logged (the logger redacts a token in the path), so an operator sees someone knocking.
      logger.warn('management request refused', {
        status: refused[0],
        method: req.method,
        path: (req.url ?? '/').slice(0, 200),
        remote: req.socket.remoteAddress,
      });
      res.setHeader('connection', 'close');
      if (refused[0] === 401) res.setHeader('www-authenticate', 'Bearer realm="herald-management"');
      send(res, ...refused);
      return;
    }
    const route = routes[`${req.method} ${(req.url ?? '/').split('?')[0]}`];
    const answer = route
      ? route(req)
      : Promise.resolve<[number, unknown]>([404, { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url}` }]);
    answer.then(
      ([status, body]) => send(res, status, body),
      (error: unknown) => send(res, 500, { code: 'INTERNAL', message: String(error) }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new ConfigError(`management.endpoints.${process_.id}`, `cannot listen on ${options.address}: ${error.message}`),
      ),
    );
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
