import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';

/** The largest answer body read; a larger one is cut off and counts as malformed (push services answer a few hundred bytes). */
export const MAX_PUSH_ANSWER_BYTES = 64 * 1024;

export interface Http2Answer {
  status: number;
  headers: Readonly<Record<string, string | undefined>>;
  /** Empty when the body was over MAX_PUSH_ANSWER_BYTES (`oversized`): the status alone then tells the outcome. */
  body: string;
  oversized?: true;
}

export interface Http2OriginOptions {
  /** Per request: one not answered in time is abandoned and counts as failed. */
  timeoutMs: number;
  /** Trusted certificate authorities (PEM) instead of the system's: a private endpoint, or a test's self-signed one. */
  ca?: string;
}

/**
 * One HTTP/2 connection to an origin (`https://host:port`), opened on the
 * first request and again after it closes (a GOAWAY, an idle timeout, a
 * network error), shared by every request: HTTP/2 multiplexes them as
 * streams, which is how FCM and APNs want to be spoken to. A request resolves
 * with the answer or `{ unanswered }` saying why there was none; it never
 * throws, so a gateway classifies every outcome in one place.
 */
export class Http2Origin {
  private session: ClientHttp2Session | undefined;
  private closed = false;

  constructor(
    readonly origin: string,
    private readonly options: Http2OriginOptions,
  ) {}

  request(path: string, headers: OutgoingHttpHeaders, body: string): Promise<Http2Answer | { unanswered: string }> {
    if (this.closed) return Promise.resolve({ unanswered: 'the connection is closed' });
    let session: ClientHttp2Session;
    try {
      session = this.connected();
    } catch (error) {
      return Promise.resolve({ unanswered: String((error as Error).message ?? error) });
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Http2Answer | { unanswered: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        ...headers,
      });
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        finish({ unanswered: `no answer within ${this.options.timeoutMs} ms` });
      }, this.options.timeoutMs);
      let status = 0;
      let answerHeaders: Record<string, string | undefined> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('response', (received) => {
        status = Number(received[constants.HTTP2_HEADER_STATUS]);
        answerHeaders = Object.fromEntries(
          Object.entries(received).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
        );
      });
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_PUSH_ANSWER_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (size > MAX_PUSH_ANSWER_BYTES) finish({ status, headers: answerHeaders, body: '', oversized: true });
        else finish({ status, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', (error: Error) => finish({ unanswered: error.message }));
      stream.on('close', () => finish({ unanswered: `stream closed (code ${stream.rstCode ?? 'none'})` }));
      stream.end(body);
    });
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  private connected(): ClientHttp2Session {
    if (this.session !== undefined && !this.session.closed && !this.session.destroyed) return this.session;
    const session = connect(this.origin, this.options.ca === undefined ? {} : { ca: this.options.ca });
    const forget = () => {
      if (this.session === session) this.session = undefined;
    };
    // A session error fails its streams (each request answers `unanswered`); the next request connects again.
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', forget);
    // An idle connection must not hold the process open at shutdown.
    session.unref();
    this.session = session;
    return session;
  }
}
