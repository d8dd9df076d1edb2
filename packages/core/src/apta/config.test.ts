import { ConfigError, HeraldError } from '../errors';
import { compileAptaConfig, type AptaOptions } from './config';

function configError(options: unknown, path?: string): ConfigError {
  try {
    compileAptaConfig(options as AptaOptions, path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(HeraldError);
    return error as ConfigError;
  }
  throw new Error(`compileAptaConfig accepted ${JSON.stringify(options)}`);
}

describe('compileAptaConfig', () => {
  it('fills the documented defaults: Hello 1 s, dead 4 s, silence 12 s (the seed), join = dead, retransmit = Hello', () => {
    expect(compileAptaConfig()).toEqual({
      helloIntervalMs: 1000,
      deadIntervalMs: 4000,
      silencePeriodMs: 12_000,
      joinTimeoutMs: 4000,
      lsrRetransmitMs: 1000,
      virtualNodes: 2000,
    });
  });

  it('takes a virtual node count, e.g. the 160 of earlier versions pinned during an upgrade', () => {
    expect(compileAptaConfig({ virtualNodes: 160 }).virtualNodes).toBe(160);
  });

  it('derives the dependent defaults from what was set', () => {
    expect(compileAptaConfig({ helloIntervalMs: 50, deadIntervalMs: 200, silencePeriodMs: 300 })).toEqual({
      helloIntervalMs: 50,
      deadIntervalMs: 200,
      silencePeriodMs: 300,
      joinTimeoutMs: 200,
      lsrRetransmitMs: 50,
      virtualNodes: 2000,
    });
  });

  it.each([
    [{ helloIntervalMs: 0 }, 'apta.helloIntervalMs'],
    [{ helloIntervalMs: 1.5 }, 'apta.helloIntervalMs'],
    [{ deadIntervalMs: '4000' }, 'apta.deadIntervalMs'],
    [{ helloIntervalMs: 1000, deadIntervalMs: 1999 }, 'apta.deadIntervalMs'],
    [{ silencePeriodMs: -1 }, 'apta.silencePeriodMs'],
    [{ helloIntervalMs: 1000, silencePeriodMs: 999 }, 'apta.silencePeriodMs'],
    [{ joinTimeoutMs: 10 }, 'apta.joinTimeoutMs'],
    [{ lsrRetransmitMs: 0 }, 'apta.lsrRetransmitMs'],
    [{ virtualNodes: 0 }, 'apta.virtualNodes'],
    [{ virtualNodes: 10_001 }, 'apta.virtualNodes'],
    [{ virtualNodes: '2000' }, 'apta.virtualNodes'],
    [{ silence: 12 }, 'apta.silence'],
    [null, 'apta'],
    [[], 'apta'],
  ])('names the bad setting: %j -> %s', (options, setting) => {
    const error = configError(options);
    expect(error.setting).toBe(setting);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(setting);
  });

  it('names settings under the path it is given', () => {
    expect(configError({ helloIntervalMs: -5 }, 'scheduler.apta').setting).toBe('scheduler.apta.helloIntervalMs');
  });
});
