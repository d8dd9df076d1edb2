import { connect, type Socket } from 'node:net';
import { waitFor } from '@herald/testing';

/**
 * A client on a raw TCP socket, for the connection tests: it writes exactly
 * the bytes it is told (headers, half a body, nothing more) and keeps
 * everything the server sends until the server closes.
 */
export interface RawClient {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Settles when the socket has closed (either side). */
  closed: Promise<void>;
  isClosed(): boolean;
}

export async function openRawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // The server may close while the client still writes: EPIPE / ECONNRESET are expected here.
  socket.on('error', () => undefined);
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => Buffer.concat(chunks).toString('latin1'),
    closed: closedPromise,
    isClosed: () => closed,
  };
}

/** A request head, keep-alive, with the given extra headers. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** One answer as received: status, headers (names lower-cased) and body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the first answer of `text` (Content-Length framed), or undefined while it is incomplete. */
export function parseAnswer(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (text.length < end + 4 + length) return undefined;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) };
}

/**
 * Resolves with `promise`'s value, or rejects naming `what` when `ms` pass
 * first: a test's "this happens" with a deadline, never a sleep.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the client's first complete answer. */
export async function answerOf(client: RawClient, ms: number): Promise<RawAnswer> {
  await waitFor(() => parseAnswer(client.received()) !== undefined || client.isClosed(), {
    timeoutMs: ms,
    message: 'an answer',
  });
  const answer = parseAnswer(client.received());
  if (answer === undefined)
    throw new Error(
      `the connection closed without a complete answer: ${JSON.stringify(client.received().slice(0, 200))}`,
    );
  return answer;
}
