import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port the kernel hands out with listen(0) lies in the ephemeral range, the
// same range it takes the local port of every outgoing connection from. Between
// the test choosing such a port and a spawned process binding it (seconds, for a
// cluster), another jest worker's MySQL or HTTP client can take it as its local
// port, and the process fails with "Address already in use" (CI, 2026-11-28:
// a dispatcher's tcp://127.0.0.1:39185). So test ports come from below the
// ephemeral range, where nothing takes ports by itself, and each jest worker
// draws from its own slice, so two workers never hand out the same port.

const LOWEST_PORT = 12000;
const WORKER_SLICES = 8;

/** The kernel's ephemeral range, [low, high]; Linux's default when it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux: fall through
  }
  return [32768, 60999];
}

/** This process's slice of the ports below the ephemeral range, or undefined when that space is too small. */
function slice(): { first: number; size: number } | undefined {
  const [ephemeralLow] = ephemeralRange();
  const size = Math.floor((ephemeralLow - LOWEST_PORT) / WORKER_SLICES);
  if (size < 100) return undefined;
  // The jest parent (global setup) is worker 0; workers count from 1.
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % WORKER_SLICES;
  return { first: LOWEST_PORT + worker * size, size };
}

const own = slice();
// A random start, so a suite that runs after another in the same worker (a fresh
// module registry, so a fresh cursor) rarely reuses the ports the last one just let go.
let cursor = own === undefined ? 0 : Math.floor(Math.random() * own.size);

/** Whether `port` can be bound on 127.0.0.1 now; resolves with the kernel's choice when `port` is 0. */
function tryBind(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1, below the ephemeral range and in this jest
 * worker's own slice. Successive calls in one process return distinct ports
 * until the slice (~2,500 ports) wraps.
 */
export async function freePort(): Promise<number> {
  if (own === undefined) {
    const port = await tryBind(0);
    if (port === undefined) throw new Error('no free port on 127.0.0.1');
    return port;
  }
  for (let tried = 0; tried < own.size; tried++) {
    const candidate = own.first + (cursor++ % own.size);
    if ((await tryBind(candidate)) !== undefined) return candidate;
  }
  throw new Error(`no free port on 127.0.0.1 in ${own.first}-${own.first + own.size - 1}`);
}
