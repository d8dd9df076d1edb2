import type { Server } from 'node:http';
import { ErrorCodes, HeraldError } from '@herald/core';
import type { Logger } from '@herald/core/ports';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/**
 * What the API server does with its connections (issue 15):
 *
 * - An answer sent before the request's body was read to its end (a rejected
 *   upload: too large, a bad header or bad lines, no token; any error before
 *   the body is consumed) says `Connection: close`, and Node closes the socket
 *   once it is written. Kept alive, such a connection would hold the unread
 *   rest of the upload for the keep-alive time (72 s), and a shutdown would
 *   wait for it, since Node counts it as busy.
 * - Stopping is bounded: once close() starts, every answer says
 *   `Connection: close`, new requests on open connections get 503
 *   UNAVAILABLE, idle connections close at once (Node's server.close()), and
 *   after `shutdownGraceMs` every connection left (a stalled upload, a slow
 *   reader) is destroyed, whatever its client does.
 */
export interface ConnectionPolicy {
  shutdownGraceMs: number;
  logger: Logger;
}

export function installConnectionPolicy(app: FastifyInstance, policy: ConnectionPolicy): void {
  let closing = false;
  // First of the onRequest hooks: no token check or store read for a request that cannot be served.
  app.addHook('onRequest', async () => {
    if (closing)
      throw new HeraldError(
        ErrorCodes.UNAVAILABLE,
        'this API server is shutting down: send the request again (to another instance)',
        { retriable: true },
      );
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (closing || bodyUnread(request)) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('preClose', (done) => {
    closing = true;
    destroyConnectionsAfter(app.server, policy.shutdownGraceMs, policy.logger);
    done();
  });
}

/**
 * True while the request's body has not been read to its end. A request
 * without a body is complete as soon as its headers are parsed.
 */
function bodyUnread(request: FastifyRequest): boolean {
  return !request.raw.complete;
}

/**
 * Destroys every connection the server still has `graceMs` after now; the
 * timer goes when the server has closed, and never keeps the process alive.
 */
function destroyConnectionsAfter(server: Server, graceMs: number, logger: Logger): void {
  if (!server.listening) return;
  const timer = setTimeout(() => {
    logger.warn('http: shutdown grace over, closing the connections left', { shutdownGraceMs: graceMs });
    server.closeAllConnections();
  }, graceMs);
  timer.unref();
  server.once('close', () => clearTimeout(timer));
}

/** A request body as it arrives, for the routes that stream it (recipient lists). */
type RawBodyParser = (
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/**
 * A content-type parser that hands the route the raw request stream, and
 * refuses at once (413, before any byte of the body is read) a request whose
 * Content-Length is over `limitBytes`. Fastify checks the limit only for the
 * bodies it reads itself; a chunked upload is counted by the route as it streams.
 * Fastify answers a parser's error with `Connection: close`.
 */
export function rawBodyParser(limitBytes: number): RawBodyParser {
  return (request, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limitBytes) done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    else done(null, payload);
  };
}
