import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, ProcessCluster, type TempDir } from '@herald/testing';
import { uniqueNames, tearDown } from './scenario';

/**
 * A production process whose connection security settings are wrong fails at
 * start with one line naming the setting, and never prints a secret
 * (docs/security-connections.md).
 */
jest.setTimeout(120_000);

const SECRET = 'pa55-never-shown';

describe('production process security misconfiguration', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('badsec');

  beforeAll(async () => {
    dir = await makeTempDir('herald-misconfig-security-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 1, controllers: 1 },
      names,
    );
    await cluster.configure();
    await cluster.keysAndSchema();
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  /** Starts a process with a changed config and returns its exit code and every line it printed. */
  async function startWith(
    tier: string,
    id: string,
    change: (options: Record<string, any>) => void,
  ): Promise<{ code: number | null; output: string; lines: string[] }> {
    const options = JSON.parse(JSON.stringify(cluster.options)) as Record<string, any>;
    change(options);
    const file = join(dir.path, `bad-${randomBytes(3).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(options));
    try {
      await cluster.run(['start', tier, '--id', id, '--config', file]);
      return { code: 0, output: '', lines: [] };
    } catch (error) {
      const text = (error as Error).message;
      const output = text.slice(text.indexOf(': ', text.indexOf('exited')) + 2);
      return {
        code: Number(/exited (\d+)/.exec(text)?.[1]),
        output,
        lines: output
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('herald:')),
      };
    }
  }

  it('names kafka.tls.caFile when the CA file cannot be read', async () => {
    const result = await startWith(
      'executor',
      'executor-1',
      (o) => (o.kafka.tls = { caFile: join(dir.path, 'no-such-ca.pem') }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config kafka\.tls\.caFile: cannot read ".*no-such-ca\.pem" \(ENOENT\)$/,
      ),
    ]);
  });

  it('names kafka.sasl.mechanism for a mechanism Herald does not support, without showing the password', async () => {
    const result = await startWith(
      'controller',
      'controller-1',
      (o) => (o.kafka.sasl = { mechanism: 'GSSAPI', username: 'herald', password: SECRET }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config kafka\.sasl\.mechanism: must be one of scram-sha-512, scram-sha-256, plain/,
      ),
    ]);
    expect(result.output).not.toContain(SECRET);
  });

  it('names kafka.sasl.username for a password without a username, without showing the password', async () => {
    const result = await startWith(
      'executor',
      'executor-1',
      (o) => (o.kafka.sasl = { mechanism: 'scram-sha-512', password: SECRET }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config kafka\.sasl\.username: is required/),
    ]);
    expect(result.output).not.toContain(SECRET);
  });

  it('names presence.hmacKeyFile when the key is too short', async () => {
    const keyFile = join(dir.path, 'short.key');
    await writeFile(keyFile, 'short\n');
    const result = await startWith('presence', 'presence-1', (o) => (o.presence = { hmacKeyFile: keyFile }));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config presence\.hmacKeyFile: holds a 5-byte key: at least 32/),
    ]);
  });

  it('names zookeeper.auth.credentialsFile when it cannot be read', async () => {
    const result = await startWith(
      'controller',
      'controller-1',
      (o) => (o.zookeeper.auth = { credentialsFile: join(dir.path, 'no-such.auth') }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config zookeeper\.auth\.credentialsFile: cannot read .*\(ENOENT\)$/,
      ),
    ]);
  });

  it('names mysql.tls when the server does not offer TLS (no plaintext fallback)', async () => {
    const result = await startWith('scheduler', 'scheduler-1', (o) => (o.mysql.tls = {}));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config mysql\.tls: is set, but the server at .* does not offer TLS$/,
      ),
    ]);
  });
});
