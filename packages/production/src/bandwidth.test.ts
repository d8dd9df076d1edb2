import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { IN_CLASS_ENV, inClassCommand } from './bandwidth';

const COMMAND = [
  '/usr/bin/node',
  '/opt/herald/packages/cli/dist/main.js',
  'start',
  'executor',
  '--id',
  'e1',
  '--config',
  '/etc/herald.json',
];
const bandwidthOf = (bandwidth: HeraldOptions['bandwidth']) => compileConfig({ bandwidth }).bandwidth;

describe('inClassCommand: how an executor process is started in its traffic class', () => {
  it('is off by default: the executor starts as it is', () => {
    expect(inClassCommand(bandwidthOf(undefined), 'executor', 'e1', COMMAND, {})).toBeUndefined();
  });

  it('starts an executor through run-in-class.sh in the class of normal traffic (bulk) unless named', () => {
    expect(inClassCommand(bandwidthOf({ enabled: true }), 'executor', 'e1', COMMAND, {})).toEqual({
      kind: 'bulk',
      argv: ['cgroup/run-in-class.sh', 'bulk', '--', ...COMMAND],
    });
  });

  it("uses the script and the kind the configuration names for the executor's traffic", () => {
    const bandwidth = bandwidthOf({
      enabled: true,
      script: '/opt/herald/cgroup/run-in-class.sh',
      kinds: { realtime: 'rt' },
      executors: { e1: 'realtime', e2: 'storage' },
    });
    expect(inClassCommand(bandwidth, 'executor', 'e1', COMMAND, {})?.argv).toEqual([
      '/opt/herald/cgroup/run-in-class.sh',
      'rt',
      '--',
      ...COMMAND,
    ]);
    expect(inClassCommand(bandwidth, 'executor', 'e2', COMMAND, {})?.argv.slice(0, 3)).toEqual([
      '/opt/herald/cgroup/run-in-class.sh',
      'storage',
      '--',
    ]);
  });

  it('does nothing for other tiers, nor for a process already started in its class', () => {
    const bandwidth = bandwidthOf({ enabled: true });
    expect(inClassCommand(bandwidth, 'dispatcher', 'd1', COMMAND, {})).toBeUndefined();
    expect(inClassCommand(bandwidth, 'executor', 'e1', COMMAND, { [IN_CLASS_ENV]: 'bulk' })).toBeUndefined();
  });
});
