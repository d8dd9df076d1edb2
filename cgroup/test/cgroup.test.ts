import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@herald/testing';

/**
 * The cgroup/ scripts for real: two network namespaces joined by a veth pair;
 * setup.sh shapes the sending end; a sender started by run-in-class.sh in the
 * bulk class (4 mbit) gets about 4 mbit, one in the realtime class (ceil
 * 1000 mbit) far more. Runs as root with ip, tc and nft installed; cgroup v1
 * (net_cls) with each classifier, and the cgroup v2 fallback where the host
 * has a cgroup2 mount (here a hybrid host: cgroup2 at /sys/fs/cgroup/unified).
 * Only a kernel that refuses a needed feature skips a case, saying which.
 */

const CGROUP = join(__dirname, '..');
const TRANSFER = join(__dirname, 'transfer.js');
const tag = `${process.pid}`;
const NS_SEND = `hbs-${tag}`;
const NS_RECV = `hbr-${tag}`;
const GROUP = `herald-test-${tag}`;
const RECEIVER_IP = '10.231.0.2';
const BULK_BYTES_PER_S = 4e6 / 8;
const WINDOW_MS = 1500;

const canRun =
  process.getuid?.() === 0 &&
  ['ip', 'tc', 'nft', 'nsenter'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);
const describeAsRoot = canRun ? describe : describe.skip;
if (!canRun)
  console.warn(
    'cgroup.test.ts: skipped: needs root and ip, tc, nft, nsenter (apt-get install iproute2 nftables util-linux)',
  );

function sh(command: string, args: string[]): { status: number | null; out: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function must(command: string, args: string[]): void {
  const result = sh(command, args);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.out}`);
}

describeAsRoot('cgroup/ scripts for real, in network namespaces', () => {
  let dir: string;
  let conf: string;
  let port = 5300;
  const children: ChildProcess[] = [];
  /** Whether net_cls was mounted before the test: if not, teardown unmounts it. */
  const netClsMounted = sh('mountpoint', ['-q', '/sys/fs/cgroup/net_cls']).status === 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-cgroup-real-'));
    conf = join(dir, 'classes.conf');
    writeFileSync(
      conf,
      [
        'link 1:1 1000mbit 1000mbit',
        'realtime 1:10 500mbit 1000mbit',
        'bulk 1:20 4mbit 4mbit',
        'other 1:99 100mbit 1000mbit',
        '',
      ].join('\n'),
    );
    must('ip', ['netns', 'add', NS_SEND]);
    must('ip', ['netns', 'add', NS_RECV]);
    must('ip', ['link', 'add', 'hbs0', 'netns', NS_SEND, 'type', 'veth', 'peer', 'name', 'hbr0', 'netns', NS_RECV]);
    must('ip', ['-n', NS_SEND, 'addr', 'add', '10.231.0.1/24', 'dev', 'hbs0']);
    must('ip', ['-n', NS_RECV, 'addr', 'add', `${RECEIVER_IP}/24`, 'dev', 'hbr0']);
    for (const [ns, dev] of [
      [NS_SEND, 'hbs0'],
      [NS_RECV, 'hbr0'],
    ] as const) {
      must('ip', ['-n', ns, 'link', 'set', dev, 'up']);
      must('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const mode of ['v1', 'v2']) teardown(mode, mode === 'v2' ? [] : ['--classifier', 'nft']);
    sh('ip', ['netns', 'del', NS_SEND]); // takes the veth pair with it
    sh('ip', ['netns', 'del', NS_RECV]);
    if (!netClsMounted && existsSync('/sys/fs/cgroup/net_cls')) {
      sh('umount', ['/sys/fs/cgroup/net_cls']);
      sh('rmdir', ['/sys/fs/cgroup/net_cls']);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const common = (mode: string) => ['--config', conf, '--mode', mode, '--group', GROUP];

  function setup(mode: string, extra: string[]) {
    return sh(join(CGROUP, 'setup.sh'), [...common(mode), ...extra, '--netns', NS_SEND, '--dev', 'hbs0']);
  }
  function teardown(mode: string, extra: string[]) {
    sh(join(CGROUP, 'teardown.sh'), [...common(mode), ...extra, '--netns', NS_SEND, '--dev', 'hbs0']);
  }

  /** Bytes per second a sender started in `kind` gets to the receiver over WINDOW_MS. */
  async function rateOf(mode: string, kind: string, extra: string[] = []): Promise<number> {
    const at = String(port++);
    const receiver = spawn('ip', [
      'netns',
      'exec',
      NS_RECV,
      'node',
      TRANSFER,
      'receive',
      RECEIVER_IP,
      at,
      String(WINDOW_MS),
    ]);
    children.push(receiver);
    let output = '';
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => receiver.on('exit', resolve));
    await waitFor(() => output.includes('listening'), { timeoutMs: 10_000, message: 'the receiver listening' });
    const sender = spawn(join(CGROUP, 'run-in-class.sh'), [
      ...common(mode),
      ...extra,
      kind,
      '--',
      'ip',
      'netns',
      'exec',
      NS_SEND,
      'node',
      TRANSFER,
      'send',
      RECEIVER_IP,
      at,
    ]);
    children.push(sender);
    let senderErr = '';
    sender.stderr!.on('data', (chunk: Buffer) => (senderErr += chunk.toString()));
    await waitFor(() => receiver.exitCode !== null || (sender.exitCode !== null && sender.exitCode !== 0), {
      timeoutMs: 15_000,
      message: 'the transfer window to end',
    });
    expect(senderErr).toBe('');
    expect(await exited).toBe(0);
    const { bytes, ms } = JSON.parse(output.split('\n')[1]!) as { bytes: number; ms: number };
    return bytes / (ms / 1000);
  }

  /** The bulk class holds its sender near 4 mbit; the realtime class lets its sender go far faster. */
  async function expectShaped(mode: string, runExtra: string[] = []) {
    const bulk = await rateOf(mode, 'bulk', runExtra);
    const realtime = await rateOf(mode, 'realtime', runExtra);
    console.log(
      `cgroup ${mode} ${runExtra.join(' ')}: bulk ${(bulk / 1e3).toFixed(0)} kB/s (class rate ${BULK_BYTES_PER_S / 1e3} kB/s), realtime ${(realtime / 1e3).toFixed(0)} kB/s`,
    );
    expect(bulk).toBeLessThan(BULK_BYTES_PER_S * 1.5);
    expect(bulk).toBeGreaterThan(BULK_BYTES_PER_S * 0.3);
    expect(realtime).toBeGreaterThan(bulk * 5);
  }

  it('cgroup v1, tc cgroup classifier: used when the kernel has cls_cgroup', async () => {
    const result = setup('v1', ['--classifier', 'tc']);
    try {
      if (result.status !== 0 && /classifier not found/i.test(result.out)) {
        console.warn(
          `cgroup.test.ts: v1 + tc classifier skipped: the kernel refuses tc's cgroup classifier (built without CONFIG_NET_CLS_CGROUP): ${result.out.trim()}`,
        );
        return;
      }
      expect(result).toMatchObject({ status: 0 });
      await expectShaped('v1');
    } finally {
      teardown('v1', ['--classifier', 'tc']);
    }
  });

  it('cgroup v1, nftables meta cgroup classifier, with cgexec and with the cgroup.procs fallback', async () => {
    const result = setup('v1', ['--classifier', 'nft']);
    try {
      expect(result.out).not.toMatch(/Error/);
      expect(result.status).toBe(0);
      expect(sh('cat', [`/sys/fs/cgroup/net_cls/${GROUP}/bulk/net_cls.classid`]).out.trim()).toBe(String(0x00010020));
      await expectShaped('v1');
      await expectShaped('v1', ['--no-cgexec']);
    } finally {
      teardown('v1', ['--classifier', 'nft']);
    }
    expect(existsSync(`/sys/fs/cgroup/net_cls/${GROUP}`)).toBe(false);
  });

  it('cgroup v2 fallback: a cgroup2 directory per kind, nftables socket cgroupv2', async () => {
    const probe = sh('sh', [
      '-c',
      'stat -fc %T /sys/fs/cgroup; stat -fc %T /sys/fs/cgroup/unified 2>/dev/null || true',
    ]);
    if (!probe.out.includes('cgroup2fs')) {
      console.warn(
        `cgroup.test.ts: v2 case skipped: no cgroup2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified (${probe.out.trim()})`,
      );
      return;
    }
    const result = setup('v2', []);
    try {
      expect(result.out).not.toMatch(/Error/);
      expect(result.status).toBe(0);
      await expectShaped('v2');
    } finally {
      teardown('v2', []);
    }
  });
});
