import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';

describe('bandwidth configuration', () => {
  it('is off by default, with the default script and classes', () => {
    expect(compileConfig({}).bandwidth).toEqual({
      enabled: false,
      script: 'cgroup/run-in-class.sh',
      kinds: { realtime: 'realtime', normal: 'bulk', storage: 'storage' },
      executors: {},
    });
  });

  it('takes a script, kinds per traffic and the traffic of each executor', () => {
    expect(
      compileConfig({
        bandwidth: { enabled: true, script: '/opt/run.sh', kinds: { normal: 'bulk-2' }, executors: { e1: 'realtime' } },
      }).bandwidth,
    ).toEqual({
      enabled: true,
      script: '/opt/run.sh',
      kinds: { realtime: 'realtime', normal: 'bulk-2', storage: 'storage' },
      executors: { e1: 'realtime' },
    });
  });

  it.each([
    ['bandwidth', { bandwidth: [] }],
    ['bandwidth.speed', { bandwidth: { speed: 1 } }],
    ['bandwidth.enabled', { bandwidth: { enabled: 'yes' } }],
    ['bandwidth.script', { bandwidth: { script: '' } }],
    ['bandwidth.kinds', { bandwidth: { kinds: 'bulk' } }],
    ['bandwidth.kinds.video', { bandwidth: { kinds: { video: 'bulk' } } }],
    ['bandwidth.kinds.normal', { bandwidth: { kinds: { normal: 'Bulk Class' } } }],
    ['bandwidth.kinds.realtime', { bandwidth: { kinds: { realtime: 'other' } } }],
    ['bandwidth.executors.e1', { bandwidth: { executors: { e1: 'fast' } } }],
  ])('refuses a bad %s with a ConfigError naming it', (setting, options) => {
    expect(() => compileConfig(options as unknown as HeraldOptions)).toThrow(
      expect.objectContaining({ constructor: ConfigError, message: expect.stringContaining(setting) }),
    );
  });
});
