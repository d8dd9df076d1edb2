import { ConfigError } from '@herald/core';
import { generateKeyPair } from '@herald/transport';
import { compileMembershipOptions, MEMBERSHIP_DEFAULTS, type MembershipOptions } from './options';

const base: MembershipOptions = {
  id: 'scheduler-1',
  endpoint: 'tcp://127.0.0.1:7201',
  peers: [
    { id: 'scheduler-2', endpoint: 'tcp://127.0.0.1:7202' },
    { id: 'interface-1', endpoint: 'tcp://127.0.0.1:7203' },
  ],
};

/** The setting a ConfigError names. */
function settingOf(options: unknown): string {
  try {
    compileMembershipOptions(options as MembershipOptions);
  } catch (error) {
    if (error instanceof ConfigError) return String(error.details.setting);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('compileMembershipOptions', () => {
  it('fills the defaults', () => {
    const config = compileMembershipOptions(base);
    expect(config).toMatchObject({
      id: 'scheduler-1',
      takesWork: true,
      curve: undefined,
      incarnation: undefined,
      ...MEMBERSHIP_DEFAULTS,
    });
    expect(config.apta).toEqual({
      helloIntervalMs: 1000,
      deadIntervalMs: 4000,
      silencePeriodMs: 12_000,
      joinTimeoutMs: 4000,
      lsrRetransmitMs: 1000,
      virtualNodes: 2000,
    });
    expect(config.peers).toEqual(base.peers);
  });

  it('accepts a compiled AptaConfig as the apta options', () => {
    const apta = compileMembershipOptions({
      ...base,
      apta: { helloIntervalMs: 50, deadIntervalMs: 300, silencePeriodMs: 400 },
    }).apta;
    expect(compileMembershipOptions({ ...base, apta }).apta).toEqual(apta);
  });

  it('names the bad setting', () => {
    expect(settingOf({ ...base, id: 'no spaces' })).toBe('membership.id');
    expect(settingOf({ ...base, endpoint: '' })).toBe('membership.endpoint');
    expect(settingOf({ ...base, takesWork: 'no' })).toBe('membership.takesWork');
    expect(settingOf({ ...base, peers: undefined })).toBe('membership.peers');
    expect(settingOf({ ...base, peers: [{ id: 'scheduler-1', endpoint: 'tcp://127.0.0.1:1' }] })).toBe(
      'membership.peers[0].id',
    );
    expect(settingOf({ ...base, peers: [...base.peers, { id: 'scheduler-2', endpoint: 'tcp://127.0.0.1:1' }] })).toBe(
      'membership.peers[2].id',
    );
    expect(settingOf({ ...base, peers: [...base.peers, { id: 'x', endpoint: 'tcp://127.0.0.1:7202' }] })).toBe(
      'membership.peers[2].endpoint',
    );
    expect(settingOf({ ...base, peers: [null] })).toBe('membership.peers[0]');
    expect(settingOf({ ...base, apta: { helloIntervalMs: 100, deadIntervalMs: 150 } })).toBe(
      'membership.apta.deadIntervalMs',
    );
    expect(settingOf({ ...base, incarnation: -1 })).toBe('membership.incarnation');
    expect(settingOf({ ...base, maxInFlight: 0 })).toBe('membership.maxInFlight');
    expect(settingOf({ ...base, sendHighWaterMark: 1.5 })).toBe('membership.sendHighWaterMark');
    expect(settingOf({ ...base, heloIntervalMs: 5 })).toBe('membership.heloIntervalMs');
  });

  it('with curve, needs every peer key and defaults the allow-list to them', () => {
    const own = generateKeyPair();
    const [a, b] = [generateKeyPair(), generateKeyPair()];
    const curve = { publicKey: own.publicKey, secretKey: own.secretKey };
    expect(settingOf({ ...base, curve })).toBe('membership.peers[0].serverPublicKey');
    const peers = [
      { ...base.peers[0]!, serverPublicKey: a.publicKey },
      { ...base.peers[1]!, serverPublicKey: b.publicKey },
    ];
    expect(compileMembershipOptions({ ...base, peers, curve }).curve).toEqual({
      ...curve,
      allowedClientKeys: [a.publicKey, b.publicKey],
    });
    expect(
      compileMembershipOptions({ ...base, peers, curve: { ...curve, allowedClientKeys: [a.publicKey] } }).curve!
        .allowedClientKeys,
    ).toEqual([a.publicKey]);
    expect(settingOf({ ...base, peers: [{ ...peers[0], serverPublicKey: 'short' }], curve })).toBe(
      'membership.peers[0].serverPublicKey',
    );
    expect(settingOf({ ...base, peers, curve: { ...curve, secretKey: 'x'.repeat(40) + '~' } })).toBe(
      'membership.curve.secretKey',
    );
    expect(settingOf({ ...base, peers, curve: { ...curve, allowedClientKeys: ['nope'] } })).toBe(
      'membership.curve.allowedClientKeys[0]',
    );
  });
});
