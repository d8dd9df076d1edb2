/**
 * A reply timeout for pooled MySQL connections. mysql2 bounds the connect
 * and handshake (`connectTimeout`) but not a request on an open connection:
 * a server that took the request and never answers (a peer gone without a
 * FIN or RST, a server stalled in a restart) leaves the call, and every job
 * queued behind it, waiting for good. ZooKeeper had the same gap
 * (coordinator-zookeeper session.ts); this is its MySQL counterpart.
 *
 * Each connection the pool opens is watched: a request sent arms a timer, any
 * byte from the server disarms it. When it fires, the socket is destroyed with
 * ETIMEDOUT, so mysql2 fails the command in flight as a fatal connection error
 * (UNAVAILABLE, retriable: mysql-errors.ts) and drops the connection from the
 * pool. A repeatable call then runs again on a fresh connection.
 */
import type { Socket } from 'node:net';
import type { Pool } from 'mysql2/promise';

/** Commands the server never answers: sending one must not arm the timer. */
const COM_QUIT = 0x01;
const COM_STMT_CLOSE = 0x19;
/** A packet's command byte follows its 3-byte length and 1-byte sequence id. */
const COMMAND_OFFSET = 4;

/** The part of a mysql2 pool connection this module touches: its socket (plain or TLS, after the handshake). */
interface WatchedConnection {
  stream: Socket;
}

/**
 * Watches every connection `pool` opens from now on (the pool's
 * 'connection' event comes after the handshake, so the socket is final).
 */
export function watchReplies(pool: Pool, timeoutMs: number): void {
  pool.on('connection', (connection) => watchSocket((connection as unknown as WatchedConnection).stream, timeoutMs));
}

/** Arms on each answered request written, disarms on any byte read; destroys the socket when the server stays silent. */
export function watchSocket(socket: Socket, timeoutMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const expire = () => {
    timer = undefined;
    const error = Object.assign(
      new Error(`no reply from MySQL within ${timeoutMs} ms (mysql.replyTimeoutMs): connection dropped`),
      { code: 'ETIMEDOUT' },
    );
    socket.destroy(error);
  };
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (timer === undefined && expectsReply(args[0])) {
      timer = setTimeout(expire, timeoutMs);
      timer.unref(); // a stuck call keeps the process alive, not this timer
    }
    return write(...args);
  }) as Socket['write'];
  socket.on('data', disarm);
  socket.once('close', disarm);
}

/** False for the start of a packet the server does not answer (quit, closing a prepared statement). */
function expectsReply(chunk: unknown): boolean {
  if (!Buffer.isBuffer(chunk) || chunk.length <= COMMAND_OFFSET) return true;
  const command = chunk[COMMAND_OFFSET];
  return !(chunk[3] === 0 && (command === COM_QUIT || command === COM_STMT_CLOSE));
}
