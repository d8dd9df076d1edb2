import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPool } from 'mysql2/promise';
import { makeTempDir, TEST_ADMIN_TOKEN, type TempDir } from '@herald/testing';

export const run = promisify(execFile);
export const DEPLOY = join(__dirname, '..', '..', '..', 'deploy');
export const LOCAL_CLUSTER = join(DEPLOY, 'local-cluster.sh');

/** A base port whose next `size` ports are free, between 20000 and 32000 (below Linux's default ephemeral range). */
async function freeBlockBelowEphemeral(size: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * ((12_000 - size) / size)) * size;
    const free = await Promise.all(Array.from({ length: size }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free block of ports between 20000 and 32000');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A deploy/local-cluster.sh cluster of the test's own: directory, database, znode root, topic prefix, port block. */
export interface ScriptCluster {
  dir: TempDir;
  name: string;
  env: NodeJS.ProcessEnv;
  /** Runs deploy/local-cluster.sh with these words. */
  script(...args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Stops everything, drops the database, removes the directory. */
  remove(): Promise<void>;
}

/**
 * The script uses base+1 .. base+81. Every other test binds ports the kernel
 * hands out (the ephemeral range, 32768 and up here), so a block below it
 * cannot collide with a cluster another test file starts meanwhile; the
 * block's own ports are checked free.
 */
export async function scriptCluster(label: string, extraEnv: Record<string, string> = {}): Promise<ScriptCluster> {
  const dir = await makeTempDir(`herald-${label}-`);
  const name = `${label}${randomBytes(3).toString('hex')}`;
  const env = {
    ...process.env,
    HERALD_SKIP_BUILD: '1',
    HERALD_CLUSTER_DIR: dir.path,
    HERALD_CLUSTER_NAME: name,
    HERALD_BASE_PORT: String(await freeBlockBelowEphemeral(100)),
    HERALD_ZK: process.env.HERALD_TEST_ZK,
    HERALD_KAFKA_BROKERS: process.env.HERALD_TEST_KAFKA_BROKERS,
    HERALD_MYSQL_URL: process.env.HERALD_TEST_MYSQL_URL,
    // The interfaces store the test admin at start (authHeaders() sends it).
    HERALD_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    ...extraEnv,
  };
  const script = (...args: string[]) => run('bash', [LOCAL_CLUSTER, ...args], { env, maxBuffer: 16 << 20 });
  return {
    dir,
    name,
    env,
    script,
    async remove() {
      await script('stop').catch(() => undefined);
      const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL! });
      await pool.query(`DROP DATABASE IF EXISTS \`herald_${name}\``);
      await pool.end();
      await dir.remove();
    },
  };
}
