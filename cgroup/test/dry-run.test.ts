import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The cgroup/ scripts' --dry-run output: the exact commands a host would run,
 * for cgroup v1 (net_cls, with tc's cgroup filter or nftables' meta cgroup),
 * for cgroup v2 (nftables socket cgroupv2, on a pure v2 host and on a hybrid
 * one), for teardown and for run-in-class.sh with and without cgexec.
 * Nothing here needs root; cgroup.test.ts runs the same scripts for real.
 */

const CGROUP = join(__dirname, '..');
const CLASSES = `
# test classes
link     1:1   1000mbit 1000mbit
realtime 1:10  500mbit  1000mbit
bulk     1:20  4mbit    4mbit
other    1:99  100mbit  1000mbit
`;

let dir: string;
let conf: string;
/** A directory holding a stub `cgexec`, to put cgexec on the PATH or not. */
let stubs: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-cgroup-'));
  conf = join(dir, 'classes.conf');
  writeFileSync(conf, CLASSES);
  stubs = join(dir, 'bin');
  mkdirSync(stubs);
  writeFileSync(join(stubs, 'cgexec'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(stubs, 'cgexec'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a script with the system PATH, and with a stub cgexec ahead of it when `withCgexec`. */
function script(name: string, args: string[], withCgexec = false) {
  const path = `${withCgexec ? `${stubs}:` : ''}/usr/sbin:/usr/bin:/sbin:/bin`;
  const result = spawnSync(join(CGROUP, name), args, { encoding: 'utf8', env: { PATH: path, HOME: dir } });
  return { status: result.status, lines: result.stdout.split('\n').filter((l) => l !== ''), stderr: result.stderr };
}

function dryRun(name: string, args: string[], withCgexec = false): string[] {
  const result = script(name, ['--config', conf, '--dry-run', ...args], withCgexec);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.lines;
}

const HTB = (prefix: string) => [
  `${prefix}tc qdisc add dev eth1 root handle 1: htb default 99`,
  `${prefix}tc class add dev eth1 parent 1: classid 1:1 htb rate 1000mbit ceil 1000mbit`,
  `${prefix}tc class add dev eth1 parent 1:1 classid 1:10 htb rate 500mbit ceil 1000mbit`,
  `${prefix}tc class add dev eth1 parent 1:1 classid 1:20 htb rate 4mbit ceil 4mbit`,
  `${prefix}tc class add dev eth1 parent 1:1 classid 1:99 htb rate 100mbit ceil 1000mbit`,
];

describe('setup.sh --dry-run', () => {
  it('cgroup v1 with tc: mounts net_cls, one net_cls cgroup per kind with its classid, htb classes, the cgroup filter', () => {
    expect(
      dryRun('setup.sh', ['--dev', 'eth1', '--mode', 'v1', '--classifier', 'tc', '--cgroup-mount', '/cg']),
    ).toEqual([
      'mkdir -p /cg/net_cls',
      'mount -t cgroup -o net_cls net_cls /cg/net_cls',
      'mkdir -p /cg/net_cls/herald/realtime',
      'echo 0x00010010 > /cg/net_cls/herald/realtime/net_cls.classid',
      'mkdir -p /cg/net_cls/herald/bulk',
      'echo 0x00010020 > /cg/net_cls/herald/bulk/net_cls.classid',
      ...HTB(''),
      'tc filter add dev eth1 parent 1: protocol all prio 10 handle 1: cgroup',
    ]);
  });

  it('cgroup v1 with nftables (kernels without cls_cgroup), in a network namespace: meta cgroup sets the packet priority to the classid', () => {
    const ns = 'nsenter --net=/run/netns/blue ';
    expect(
      dryRun('setup.sh', [
        '--dev',
        'eth1',
        '--mode',
        'v1',
        '--classifier',
        'nft',
        '--cgroup-mount',
        '/cg',
        '--netns',
        'blue',
        '--group',
        'hg',
        '--table',
        'ht',
      ]),
    ).toEqual([
      'mkdir -p /cg/net_cls',
      'mount -t cgroup -o net_cls net_cls /cg/net_cls',
      'mkdir -p /cg/net_cls/hg/realtime',
      'echo 0x00010010 > /cg/net_cls/hg/realtime/net_cls.classid',
      'mkdir -p /cg/net_cls/hg/bulk',
      'echo 0x00010020 > /cg/net_cls/hg/bulk/net_cls.classid',
      ...HTB(ns),
      `${ns}nft add table inet ht`,
      `${ns}nft add chain inet ht output '{ type filter hook output priority 0; policy accept; }'`,
      `${ns}nft add rule inet ht output oifname eth1 meta cgroup 0x00010010 meta priority set 1:10`,
      `${ns}nft add rule inet ht output oifname eth1 meta cgroup 0x00010020 meta priority set 1:20`,
    ]);
  });

  it('cgroup v2 only: a cgroup2 directory per kind, nftables socket cgroupv2 at its level', () => {
    expect(dryRun('setup.sh', ['--dev', 'eth1', '--mode', 'v2', '--cgroup-mount', '/cg', '--v2-mount', '/cg'])).toEqual(
      [
        'mkdir -p /cg/herald/realtime',
        'mkdir -p /cg/herald/bulk',
        ...HTB(''),
        'nft add table inet herald',
        `nft add chain inet herald output '{ type filter hook output priority 0; policy accept; }'`,
        `nft add rule inet herald output oifname eth1 socket cgroupv2 level 2 '"herald/realtime"' meta priority set 1:10`,
        `nft add rule inet herald output oifname eth1 socket cgroupv2 level 2 '"herald/bulk"' meta priority set 1:20`,
      ],
    );
  });

  it('cgroup v2 on a hybrid host (cgroup2 under unified/): the nft path names unified/, the level does not count it', () => {
    const lines = dryRun('setup.sh', [
      '--dev',
      'eth1',
      '--mode',
      'v2',
      '--cgroup-mount',
      '/cg',
      '--v2-mount',
      '/cg/unified',
    ]);
    expect(lines[0]).toBe('mkdir -p /cg/unified/herald/realtime');
    expect(lines.at(-1)).toBe(
      `nft add rule inet herald output oifname eth1 socket cgroupv2 level 2 '"unified/herald/bulk"' meta priority set 1:20`,
    );
  });

  it('refuses tc as the classifier on cgroup v2, which has no net_cls', () => {
    const result = script('setup.sh', [
      '--config',
      conf,
      '--dry-run',
      '--dev',
      'eth1',
      '--mode',
      'v2',
      '--classifier',
      'tc',
      '--v2-mount',
      '/cg',
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/cgroup v2 has no net_cls/);
  });

  it.each([
    ['no --dev', [], /--dev is required/],
    ['an unknown option', ['--dev', 'eth1', '--speed', '3'], /unknown option --speed/],
    ['a bad mode', ['--dev', 'eth1', '--mode', 'v3'], /--mode must be v1, v2 or auto/],
  ])('refuses %s', (_what, args, message) => {
    const result = script('setup.sh', ['--config', conf, '--dry-run', ...args]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.lines).toEqual([]);
  });

  it.each([
    ['a bad classid', 'bulk 2:20 4mbit 4mbit', /classid '2:20' must be 1:<hex minor>/],
    ['a bad rate', 'bulk 1:20 fast 4mbit', /rate 'fast' is not a tc rate/],
    ['a fifth column', 'bulk 1:20 4mbit 4mbit 7', /expected '<name> <classid> <rate> <ceil>', found more/],
    ['a classid twice', 'bulk 1:10 4mbit 4mbit', /classid 1:10 given twice/],
  ])('refuses a class file with %s, naming its line', (_what, line, message) => {
    const bad = join(dir, 'bad.conf');
    writeFileSync(bad, `${CLASSES}${line}\n`);
    const result = script('setup.sh', ['--config', bad, '--dry-run', '--dev', 'eth1', '--mode', 'v1']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`bad\\.conf:\\d+: ${message.source}`));
  });

  it('refuses a class file without the link or the other class', () => {
    const bad = join(dir, 'no-other.conf');
    writeFileSync(bad, 'link 1:1 10mbit 10mbit\nbulk 1:20 4mbit 4mbit\n');
    const result = script('setup.sh', ['--config', bad, '--dry-run', '--dev', 'eth1', '--mode', 'v1']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no 'other' class/);
  });
});

describe('teardown.sh --dry-run', () => {
  it('cgroup v1: removes the qdisc, the nft table, the cgroups, and with --unmount the net_cls mount', () => {
    expect(
      dryRun('teardown.sh', [
        '--dev',
        'eth1',
        '--mode',
        'v1',
        '--classifier',
        'nft',
        '--cgroup-mount',
        '/cg',
        '--unmount',
      ]),
    ).toEqual([
      'tc qdisc del dev eth1 root',
      'nft delete table inet herald',
      'rmdir /cg/net_cls/herald/realtime',
      'rmdir /cg/net_cls/herald/bulk',
      'rmdir /cg/net_cls/herald',
      'umount /cg/net_cls',
    ]);
  });

  it('cgroup v1 with tc: no nft table to remove', () => {
    expect(
      dryRun('teardown.sh', ['--dev', 'eth1', '--mode', 'v1', '--classifier', 'tc', '--cgroup-mount', '/cg']),
    ).toEqual([
      'tc qdisc del dev eth1 root',
      'rmdir /cg/net_cls/herald/realtime',
      'rmdir /cg/net_cls/herald/bulk',
      'rmdir /cg/net_cls/herald',
    ]);
  });

  it('cgroup v2', () => {
    expect(
      dryRun('teardown.sh', [
        '--dev',
        'eth1',
        '--mode',
        'v2',
        '--cgroup-mount',
        '/cg',
        '--v2-mount',
        '/cg',
        '--netns',
        'blue',
      ]),
    ).toEqual([
      'nsenter --net=/run/netns/blue tc qdisc del dev eth1 root',
      'nsenter --net=/run/netns/blue nft delete table inet herald',
      'rmdir /cg/herald/realtime',
      'rmdir /cg/herald/bulk',
      'rmdir /cg/herald',
    ]);
  });
});

describe('run-in-class.sh --dry-run', () => {
  const command = ['node', 'sender.js', '--name', "it's mine"];

  it('cgroup v1 with cgexec installed: cgexec -g net_cls:<group>/<kind>', () => {
    expect(
      dryRun('run-in-class.sh', ['--mode', 'v1', '--cgroup-mount', '/cg', 'bulk', '--', ...command], true),
    ).toEqual([`exec cgexec -g net_cls:herald/bulk node sender.js --name 'it'\\''s mine'`]);
  });

  it('cgroup v1 with --no-cgexec (what a host without cgexec does): the shell joins the cgroup, then execs', () => {
    const expected = ['echo $$ > /cg/net_cls/herald/bulk/cgroup.procs', `exec node sender.js --name 'it'\\''s mine'`];
    expect(
      dryRun(
        'run-in-class.sh',
        ['--mode', 'v1', '--cgroup-mount', '/cg', '--no-cgexec', 'bulk', '--', ...command],
        true,
      ),
    ).toEqual(expected);
  });

  it("cgroup v2: the kind's cgroup2 directory, whether cgexec is installed or not", () => {
    expect(
      dryRun('run-in-class.sh', ['--mode', 'v2', '--v2-mount', '/cg/unified', 'realtime', '--', 'node'], true),
    ).toEqual(['echo $$ > /cg/unified/herald/realtime/cgroup.procs', 'exec node']);
  });

  it.each([
    ['an unknown kind', ['--mode', 'v1', 'video', '--', 'node'], /no traffic kind 'video'.*\(kinds: realtime bulk\)/],
    ['a reserved class name', ['--mode', 'v1', 'other', '--', 'node'], /no traffic kind 'other'/],
    ['no command', ['--mode', 'v1', 'bulk', '--'], /usage: run-in-class.sh/],
    ['no --', ['--mode', 'v1', 'bulk', 'node'], /usage: run-in-class.sh/],
  ])('refuses %s', (_what, args, message) => {
    const result = script('run-in-class.sh', ['--config', conf, '--dry-run', ...args]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
