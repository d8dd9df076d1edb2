import { compileConfig } from './compile';
import { DEFAULTS } from './defaults';

describe('delivery configuration: a ZeroMQ push gateway', () => {
  const zmq = { endpoint: 'tcp://push.example:5600', serverPublicKeyFile: '/etc/herald/push.pub' };

  it('compiles a gateway with CURVE on and its defaults', () => {
    expect(compileConfig({ delivery: { kind: 'zmq', zmq } }).delivery).toEqual({
      kind: 'zmq',
      zmq: {
        ...zmq,
        curve: true,
        keyPairFile: null,
        ...DEFAULTS.delivery.zmq,
        pacing: DEFAULTS.delivery.webhook.pacing,
      },
    });
  });

  it('takes every setting, and inproc:// once CURVE is explicitly off', () => {
    const full = {
      ...zmq,
      endpoint: 'tcp://[::1]:65535',
      keyPairFile: '/etc/herald/executor-1.key',
      timeoutMs: 100,
      maxInFlight: 100_000,
      maxAttempts: 1,
      retryDelayMs: 0,
    };
    expect(compileConfig({ delivery: { kind: 'zmq', zmq: full } }).delivery).toMatchObject({
      zmq: { ...full, curve: true },
    });
    expect(
      compileConfig({ delivery: { kind: 'zmq', zmq: { endpoint: 'inproc://push', curve: false } } }).delivery,
    ).toMatchObject({ zmq: { endpoint: 'inproc://push', curve: false, serverPublicKeyFile: null } });
  });

  it.each([
    [{ kind: 'zmq' }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: [] }, 'delivery.zmq'],
    [{ kind: 'zmq', zmq: { ...zmq, endpoint: 'http://push.example:5600' } }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: { ...zmq, endpoint: 'tcp://push.example' } }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: { ...zmq, endpoint: 'tcp://push.example:*' } }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: { ...zmq, endpoint: 'tcp://push.example:70000' } }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: { ...zmq, endpoint: 'inproc://push' } }, 'delivery.zmq.endpoint'],
    [{ kind: 'zmq', zmq: { endpoint: zmq.endpoint } }, 'delivery.zmq.serverPublicKeyFile'],
    [{ kind: 'zmq', zmq: { ...zmq, serverPublicKeyFile: '' } }, 'delivery.zmq.serverPublicKeyFile'],
    [{ kind: 'zmq', zmq: { ...zmq, keyPairFile: 7 } }, 'delivery.zmq.keyPairFile'],
    [{ kind: 'zmq', zmq: { ...zmq, curve: 'no' } }, 'delivery.zmq.curve'],
    [{ kind: 'zmq', zmq: { ...zmq, curve: false } }, 'delivery.zmq.serverPublicKeyFile'],
    [{ kind: 'zmq', zmq: { ...zmq, timeoutMs: 50 } }, 'delivery.zmq.timeoutMs'],
    [{ kind: 'zmq', zmq: { ...zmq, maxInFlight: 0 } }, 'delivery.zmq.maxInFlight'],
    [{ kind: 'zmq', zmq: { ...zmq, retries: 3 } }, 'delivery.zmq.retries'],
    [{ kind: 'zmq', zmq: { ...zmq, pacing: { maxRate: 0 } } }, 'delivery.zmq.pacing.maxRate'],
    [{ kind: 'webhook', webhook: { url: 'http://a/' }, zmq }, 'delivery.zmq'],
  ])('refuses %j naming %s', (delivery, setting) => {
    expect(() => compileConfig({ delivery } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', setting }),
    );
  });
});
