import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { fourLetterWord, freePort, spawn, stopProcess } from './process-util';

/**
 * A standalone ZooKeeper (Debian's `zookeeper` package) on 127.0.0.1 with its
 * own data directory, for tests. `restart()` keeps the port and the data, so
 * a test can take ZooKeeper away and bring it back.
 */
export class TestZooKeeper {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** "127.0.0.1:port": the connection string for node-zookeeper-client. */
  get connectionString(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(): Promise<TestZooKeeper> {
    const dir = await mkdtemp(join(tmpdir(), 'herald-zk-'));
    const port = await freePort();
    await mkdir(join(dir, 'data'));
    await writeFile(
      join(dir, 'zoo.cfg'),
      [
        'tickTime=500',
        'minSessionTimeout=1000',
        'maxSessionTimeout=20000',
        `dataDir=${join(dir, 'data')}`,
        `clientPort=${port}`,
        'clientPortAddress=127.0.0.1',
        'admin.enableServer=false',
        '4lw.commands.whitelist=ruok,srvr',
        '',
      ].join('\n'),
    );
    const zk = new TestZooKeeper(port, dir);
    await zk.launch();
    return zk;
  }

  async stop(): Promise<void> {
    if (this.child) await stopProcess(this.child);
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
    const classpath = '/usr/share/java/*:/usr/share/zookeeper/*:/etc/zookeeper/conf';
    this.child = spawn(
      'java',
      ['-Xmx256m', '-cp', classpath, 'org.apache.zookeeper.server.quorum.QuorumPeerMain', join(this.dir, 'zoo.cfg')],
      {
        stdio: ['ignore', 'ignore', 'ignore'],
        env: { ...process.env, ZOO_LOG_DIR: this.dir },
      },
    );
    const deadline = Date.now() + 30_000;
    while ((await fourLetterWord('127.0.0.1', this.port, 'ruok')) !== 'imok') {
      if (this.child.exitCode !== null)
        throw new Error(`ZooKeeper exited with code ${this.child.exitCode}; is Debian's zookeeper package installed?`);
      if (Date.now() > deadline) throw new Error(`ZooKeeper did not answer ruok on 127.0.0.1:${this.port} within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
