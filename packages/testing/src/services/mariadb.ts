import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, spawn, stopProcess, waitForPort } from './process-util';

const run = promisify(execFile);

/** The shared MariaDB of the machine (127.0.0.1:3306, root, no password), started if it is not running. */
export async function ensureSharedMariaDb(): Promise<string> {
  const url = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
  const { hostname, port } = new URL(url);
  try {
    await waitForPort(hostname, Number(port || 3306), 1000, 'MariaDB');
  } catch {
    // Not running: start the packaged server the way the machine's own boot does.
    await run('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd']).catch(
      () => undefined,
    );
    await waitForPort(hostname, Number(port || 3306), 30_000, 'MariaDB (mariadb-server)');
  }
  return url;
}

/**
 * A private MariaDB server with its own data directory and port, for tests
 * that restart the database in the middle of a broadcast without disturbing
 * every other test. Root has no password (--skip-grant-tables is not used:
 * the data directory is initialised with passwordless root).
 */
export class PrivateMariaDb {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly extraArgs: readonly string[],
  ) {}

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  /** `extraArgs` go to mariadbd after the defaults, e.g. --ssl-cert=... for a server that offers TLS. */
  static async start(extraArgs: readonly string[] = []): Promise<PrivateMariaDb> {
    const dir = await mkdtemp(join(tmpdir(), 'herald-mariadb-'));
    await run('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=root',
    ]);
    const db = new PrivateMariaDb(await freePort(), dir, extraArgs);
    await db.launch();
    return db;
  }

  async stop(): Promise<void> {
    if (this.child) await stopProcess(this.child, 15_000);
    this.child = undefined;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    this.child = spawn(
      '/usr/sbin/mariadbd',
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        '--user=root',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=64M',
        ...this.extraArgs,
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    await waitForPort('127.0.0.1', this.port, 60_000, 'private MariaDB');
  }
}
