import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

export { freePort } from './free-port';

/** Resolves when something accepts TCP connections on host:port, or rejects at the deadline. */
export async function waitForPort(host: string, port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.setTimeout(1000, () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not accept connections on ${host}:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends a four-letter word to ZooKeeper and returns its answer. */
export function fourLetterWord(host: string, port: number, word: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let answer = '';
    // A server that accepts but never answers (still starting) must not hang the caller.
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('connect', () => socket.write(word));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(''));
  });
}

/** Stops a child process: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
export function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export { spawn };
