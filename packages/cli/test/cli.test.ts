import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, waitFor } from '@herald/testing';

/**
 * The `herald` command as a user runs it: the compiled CLI in a child process
 * (jest's global setup builds it first).
 */
const MAIN = join(__dirname, '..', 'dist', 'main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function herald(
  args: string[],
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('herald --version', () => {
  it("prints the package's version (issue 22, defect 9)", async () => {
    const { version } = JSON.parse(await readFile(join(__dirname, '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const run = await herald(['--version']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });
});

describe('herald demo', () => {
  it('runs a broadcast through the real tiers and prints a reconciled summary', async () => {
    const run = await herald(['demo', '--recipients', '20000', '--online', '0.3', '--login-share', '0.05']);
    expect(run.stderr).not.toMatch(/"level":"error"/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Task 1: COMPLETED/);
    expect(run.stdout).toMatch(/total in list\s+20,000/);
    expect(run.stdout).toMatch(/filtered: duplicate\s+400/);
    expect(run.stdout).toMatch(/reconciled: total = delivered \+ offline \+ filtered/);
    expect(run.stdout).toMatch(/^console http:\/\/127\.0\.0\.1:\d+\/console\/ \(sign in with the admin token/m);
    expect(run.stderr).toMatch(
      /login delivery\s+\d[\d,]* offline users logged in; \d[\d,]* offline deliveries of task 1/,
    );
  });

  it('makes a --data-dir that does not exist yet, as dev does (issue 22, defect 5)', async () => {
    const parent = await makeTempDir('herald-cli-demo-dir-');
    try {
      const dataDir = join(parent.path, 'not', 'yet');
      const run = await herald(['demo', '--recipients', '2000', '--login-share', '0', '--data-dir', dataDir]);
      expect(run.stderr).not.toMatch(/ENOENT/);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Task 1: COMPLETED/);
      expect(run.stdout).toContain(`data in ${dataDir}`);
    } finally {
      await parent.remove();
    }
  });

  it('refuses a bad option with a clear message', async () => {
    const run = await herald(['demo', '--online', '2']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--online must be a number in \[0, 1\]/);
  });
});

describe('herald demo --serve', () => {
  it('keeps the console and the API up after the broadcast until Ctrl-C', async () => {
    const seen: { console?: number; page?: string; me?: number } = {};
    const run = await herald(['demo', '--recipients', '2000', '--login-share', '0', '--serve'], (text, child) => {
      const url = /^console (http:\/\/\S+\/console\/)/m.exec(text)?.[1];
      const token = /admin token (hrd_\S+)/.exec(text)?.[1];
      if (url === undefined || token === undefined || !/^Serving: /m.test(text) || seen.console !== undefined) return;
      seen.console = 0;
      void (async () => {
        const page = await fetch(url);
        const me = await fetch(url.replace(/\/console\/$/, '/api/v1/me'), {
          headers: { authorization: `Bearer ${token}` },
        });
        Object.assign(seen, { console: page.status, page: await page.text(), me: me.status });
        child.kill('SIGINT');
      })();
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Task 1: COMPLETED/);
    // The built console (npm run build / lint build it; the interface says how when it is missing).
    expect(seen.console).toBe(200);
    expect(seen.page).toContain('<title>Herald console</title>');
    expect(seen.me).toBe(200);
  });
});

describe('herald dev', () => {
  it('fails at start with one line naming a bad setting', async () => {
    const dir = await makeTempDir('herald-cli-');
    try {
      const config = join(dir.path, 'herald.json');
      await writeFile(config, JSON.stringify({ scheduler: { slots: 0 } }));
      const run = await herald(['dev', '--config', config]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        'herald: CONFIG_INVALID: config scheduler.slots: must be an integer in [1, 100000] (got 0)',
      );

      await writeFile(config, '{ not json');
      const broken = await herald(['dev', '--config', config]);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^herald: CONFIG_INVALID: config --config: .*herald\.json is not valid JSON/);
    } finally {
      await dir.remove();
    }
  });

  it('prints an admin token at the first start of a data directory, which the API takes; later starts print none', async () => {
    const dir = await makeTempDir('herald-cli-');
    const env = { ...process.env };
    delete env.HERALD_ADMIN_TOKEN;
    try {
      const answers: number[] = [];
      const first = await herald(
        ['dev', '--port', '0', '--data-dir', dir.path],
        (text, child) => {
          const url = /listening on (http:\/\/[^;\s]+)/.exec(text)?.[1];
          const token = /admin token .*: (hrd_\S+)/.exec(text)?.[1];
          if (url === undefined || token === undefined || answers.length > 0) return;
          answers.push(0);
          void Promise.all([
            fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } }),
            fetch(`${url}/api/v1/me`),
          ]).then(([withToken, without]) => {
            answers.push(withToken.status, without.status);
            child.kill('SIGTERM');
          });
        },
        env,
      );
      expect(first.code).toBe(0);
      expect(answers).toEqual([0, 200, 401]);
      // One SIGTERM only: every later stdout chunk would otherwise send another, and a second
      // signal after the first has been taken ends the process by the default action.
      let stopSent = false;
      const second = await herald(
        ['dev', '--port', '0', '--data-dir', dir.path],
        (text, child) => {
          if (stopSent || !/listening on/.test(text)) return;
          stopSent = true;
          setTimeout(() => child.kill('SIGTERM'), 200);
        },
        env,
      );
      expect(second.code).toBe(0);
      expect(second.stdout).not.toMatch(/admin token/);
    } finally {
      await dir.remove();
    }
  });

  it('takes the bootstrap admin token from HERALD_ADMIN_TOKEN', async () => {
    const dir = await makeTempDir('herald-cli-');
    const token = 'hrd_envadmin_from-the-environment-0123456789abcdef';
    let status: number | undefined;
    try {
      const run = await herald(
        ['dev', '--port', '0', '--data-dir', dir.path],
        (text, child) => {
          const url = /listening on (http:\/\/[^;\s]+)/.exec(text)?.[1];
          if (url === undefined || status !== undefined) return;
          status = 0;
          void fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => {
            status = r.status;
            child.kill('SIGTERM');
          });
        },
        { ...process.env, HERALD_ADMIN_TOKEN: token },
      );
      expect(run.code).toBe(0);
      expect(status).toBe(200);
      expect(run.stdout).not.toMatch(/admin token/);
    } finally {
      await dir.remove();
    }
  });

  it('serves the API until SIGTERM, then stops cleanly', async () => {
    const dir = await makeTempDir('herald-cli-');
    let url: string | undefined;
    try {
      const running = herald(['dev', '--port', '0', '--data-dir', dir.path], (text, child) => {
        const match = /listening on (http:\/\/[^;\s]+)/.exec(text);
        if (match && url === undefined) {
          url = match[1];
          void fetch(`${url}/api/v1/health`)
            .then((r) => r.json())
            .then((body) => {
              expect(body).toEqual({ status: 'ok' });
              child.kill('SIGTERM');
            });
        }
      });
      await waitFor(() => url !== undefined, { timeoutMs: 30_000, message: 'herald dev did not print its URL' });
      const run = await running;
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/stopping/);
    } finally {
      await dir.remove();
    }
  });
});

describe('herald start executor with bandwidth.enabled', () => {
  it('starts itself again through the bandwidth script, in the class of its traffic, and exits with its status', async () => {
    const dir = await makeTempDir('herald-cli-bandwidth-');
    try {
      // A stand-in for cgroup/run-in-class.sh: prints what it was given, one a line.
      const script = join(dir.path, 'run-in-class.sh');
      await writeFile(script, '#!/bin/sh\nprintf "%s\\n" "class=$HERALD_BANDWIDTH_CLASS" "$@"\nexit 3\n', {
        mode: 0o755,
      });
      const config = join(dir.path, 'herald.json');
      await writeFile(
        config,
        JSON.stringify({
          profile: 'production',
          mysql: { url: 'mysql://herald@db:3306' },
          zookeeper: { connectionString: 'zk1:2181' },
          kafka: { brokers: ['k1:9092'] },
          curve: { keysDir: join(dir.path, 'keys') },
          topology: {
            schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://127.0.0.1:7101' }],
            dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://127.0.0.1:7201' }],
            executors: [{ id: 'executor-1', endpoint: 'tcp://127.0.0.1:7301' }],
            presence: [{ id: 'presence-1', bitmapFile: join(dir.path, 'online.bitmap'), executors: ['executor-1'] }],
          },
          bandwidth: { enabled: true, script, executors: { 'executor-1': 'realtime' } },
        }),
      );
      const run = await herald(['start', 'executor', '--config', config, '--id', 'executor-1']);
      expect(run.stderr).toBe('');
      expect(run.stdout.split('\n').filter((line) => line !== '')).toEqual([
        'class=realtime',
        'realtime',
        '--',
        process.execPath,
        MAIN,
        'start',
        'executor',
        '--config',
        config,
        '--id',
        'executor-1',
      ]);
      expect(run.code).toBe(3);

      // A script that is not there: the setting is named.
      await writeFile(
        config,
        JSON.stringify({
          ...JSON.parse(await readFile(config, 'utf8')),
          bandwidth: { enabled: true, script: join(dir.path, 'missing.sh') },
        }),
      );
      const missing = await herald(['start', 'executor', '--config', config, '--id', 'executor-1']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        /^herald: CONFIG_INVALID: .*bandwidth\.script.*cannot run .*missing\.sh: spawn .* ENOENT/,
      );
    } finally {
      await dir.remove();
    }
  });
});

describe('herald token', () => {
  it('creates a token in an embedded data directory, printing it alone on stdout, and revokes it', async () => {
    const dir = await makeTempDir('herald-cli-');
    try {
      const made = await herald([
        'token',
        'create',
        '--role',
        'operator',
        '--name',
        'acme ops',
        '--accounts',
        'acme, globex',
        '--data-dir',
        dir.path,
      ]);
      expect(made.code).toBe(0);
      expect(made.stdout).toMatch(/^hrd_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
      expect(made.stderr).toMatch(/operator token [0-9a-f]{16} 'acme ops' for acme, globex; it is shown once/);
      const id = made.stdout.split('_')[1]!;

      // The embedded cluster on that directory takes it.
      let status: number | undefined;
      const served = await herald(['dev', '--port', '0', '--data-dir', dir.path], (text, child) => {
        const url = /listening on (http:\/\/[^;\s]+)/.exec(text)?.[1];
        if (url === undefined || status !== undefined) return;
        status = 0;
        void fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${made.stdout.trim()}` } })
          .then((r) => r.json())
          .then((body) => {
            expect(body).toEqual({ tokenId: id, name: 'acme ops', role: 'operator', accounts: ['acme', 'globex'] });
            status = 200;
            child.kill('SIGTERM');
          });
      });
      expect(served.code).toBe(0);
      expect(status).toBe(200);

      const revoked = await herald(['token', 'revoke', id, '--data-dir', dir.path]);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toMatch(new RegExp(`token ${id} 'acme ops' revoked at `));
    } finally {
      await dir.remove();
    }
  });

  it('refuses an operator without accounts, or an unknown token id, with one line and a code', async () => {
    const dir = await makeTempDir('herald-cli-');
    try {
      const bad = await herald(['token', 'create', '--role', 'operator', '--name', 'x', '--data-dir', dir.path]);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim()).toMatch(/^herald: VALIDATION_FAILED: an operator token names 1\.\.1000 accounts$/);
      const unknown = await herald(['token', 'revoke', 'ffffffff', '--data-dir', dir.path]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^herald: TOKEN_NOT_FOUND: /);
    } finally {
      await dir.remove();
    }
  });
});

describe('herald start --help and herald keys --help', () => {
  it('name every production tier, the presence agent included', async () => {
    const { TIERS } = await import('@herald/production');
    const start = await herald(['start', '--help']);
    expect(start.code).toBe(0);
    for (const tier of TIERS) expect(start.stdout).toMatch(new RegExp(`\\b${tier}\\b`));
    expect(start.stdout).toContain('presence');
  });

  it('say which processes need a key pair, with an example that includes presence agents', async () => {
    const keys = await herald(['keys', '--help']);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toContain('presence agent');
    expect(keys.stdout).toMatch(/herald keys --dir \S+ .*\n.*presence-\d+/);
  });
});
