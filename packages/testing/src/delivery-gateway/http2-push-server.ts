import {
  createSecureServer,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './self-signed';

/** One request as a local push server took it. */
export interface Http2Request {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How to answer a request: a status, headers and body, or never (a hang: the client's timeout). */
export type Http2Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * The TLS HTTP/2 server under the local FCM and APNs servers, on 127.0.0.1
 * with a self-signed certificate (`ca`, for the client to trust): reads each
 * request whole and answers what `handle` says. Hung requests are released
 * at stop.
 */
export class Http2PushServer {
  private readonly hanging = new Set<ServerHttp2Stream>();
  private readonly sessions = new Set<ServerHttp2Session>();

  private constructor(
    private readonly server: Http2SecureServer,
    readonly ca: string,
  ) {}

  static async start(handle: (request: Http2Request) => Http2Reply): Promise<Http2PushServer> {
    const { key, cert } = await selfSignedCertificate();
    const server = createSecureServer({ key, cert, allowHTTP1: false });
    const pushServer = new Http2PushServer(server, cert);
    server.on('session', (session) => {
      pushServer.sessions.add(session);
      session.on('close', () => pushServer.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        let reply: Http2Reply;
        try {
          reply = handle({ path: String(headers[':path']), headers, body: Buffer.concat(chunks).toString('utf8') });
        } catch (error) {
          // A bug in a test server answers 500 with it, rather than crashing the test process.
          reply = { status: 500, body: JSON.stringify({ testServerError: String(error) }) };
        }
        if (reply === 'hang') {
          pushServer.hanging.add(stream);
          stream.on('close', () => pushServer.hanging.delete(stream));
          return;
        }
        if (stream.destroyed) return;
        stream.respond({ ':status': reply.status, 'content-type': 'application/json', ...reply.headers });
        stream.end(reply.body ?? '');
      });
      stream.on('error', () => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return pushServer;
  }

  /** https://127.0.0.1:<port> */
  get origin(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const stream of this.hanging) stream.close();
    // A client's idle connection would hold close() open: the server ends them, as a real one going away does.
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
