/**
 * deploy/systemd's units as an operator installs them: each process runs as
 * the herald user with umask 0077 in a state directory systemd makes for it,
 * and the migrations are ordered before the processes from the instances'
 * side (a Before= naming the bare template herald@.service orders nothing).
 * With systemd-analyze on the machine, both units also pass `verify`.
 */
import { execFile } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '@herald/testing';

const DIR = join(__dirname, '..', '..', '..', 'deploy', 'systemd');

/** `key=value` lines of one [section], in order (comments and blank lines dropped). */
async function settings(unit: string, section: string): Promise<Array<[string, string]>> {
  const text = await readFile(join(DIR, unit), 'utf8');
  const out: Array<[string, string]> = [];
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) current = header[1]!;
    else if (current === section && /^[A-Za-z]+=/.test(line)) {
      const at = line.indexOf('=');
      out.push([line.slice(0, at), line.slice(at + 1)]);
    }
  }
  return out;
}
const values = (all: Array<[string, string]>, key: string) => all.filter(([k]) => k === key).map(([, v]) => v);

describe('deploy/systemd', () => {
  it.each(['herald@.service', 'herald-migrate.service'])('%s runs as herald:herald with UMask=0077', async (unit) => {
    const service = await settings(unit, 'Service');
    expect(values(service, 'User')).toEqual(['herald']);
    expect(values(service, 'Group')).toEqual(['herald']);
    expect(values(service, 'UMask')).toEqual(['0077']);
  });

  it('orders every instance after the migrations, and nothing names the bare template', async () => {
    const instance = await settings('herald@.service', 'Unit');
    expect(values(instance, 'After').join(' ').split(/\s+/)).toContain('herald-migrate.service');
    const migrate = await settings('herald-migrate.service', 'Unit');
    expect(migrate.filter(([, v]) => /\bherald@\.service\b/.test(v))).toEqual([]);
    expect(values(await settings('herald-migrate.service', 'Service'), 'RemainAfterExit')).toEqual(['yes']);
  });

  it('gives each process its data directory, /var/lib/herald, mode 0700', async () => {
    const service = await settings('herald@.service', 'Service');
    expect(values(service, 'StateDirectory')).toEqual(['herald']);
    expect(values(service, 'StateDirectoryMode')).toEqual(['0700']);
  });

  it('passes systemd-analyze verify where systemd is installed', async () => {
    const analyze = await promisify(execFile)('systemd-analyze', ['--version']).then(
      () => true,
      () => false,
    );
    if (!analyze) return; // not a systemd machine: the checks above still ran
    const dir = await makeTempDir('herald-units-');
    try {
      for (const unit of ['herald@.service', 'herald-migrate.service']) {
        await copyFile(join(DIR, unit), join(dir.path, unit));
        // verify exits 0 even on a setting it cannot parse: it says so on stderr, "..., ignoring".
        const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', '--man=no', join(dir.path, unit)]);
        expect([unit, stderr]).not.toEqual([unit, expect.stringMatching(/ignoring|Unknown (key|section)/)]);
      }
    } finally {
      await dir.remove();
    }
  });
});
