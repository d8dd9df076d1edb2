import { createPush, type PushChannel, type PushLinkEvent } from '@herald/transport';
import type { MembershipConfig, MembershipPeer } from './options';

/**
 * One member's push link to one peer: the channel, CURVE-keyed with the peer's server key, and the count of sends
 * not yet taken by zeromq (past a limit membership drops sends rather than queue them without bound).
 */
export interface Link {
  channel: PushChannel;
  /** Sends handed to the channel and not yet taken by zeromq. */
  inFlight: number;
  /** Sends are being dropped because inFlight reached the limit (logged once per episode). */
  full: boolean;
}

export async function connect(
  config: MembershipConfig,
  peer: MembershipPeer,
  onLink: (event: PushLinkEvent) => void,
): Promise<Link> {
  const channel = await createPush({
    name: `${config.id}.membership->${peer.id}`,
    endpoints: [peer.endpoint],
    highWaterMark: config.sendHighWaterMark,
    onLink,
    curve: config.curve && {
      serverPublicKey: peer.serverPublicKey!,
      publicKey: config.curve.publicKey,
      secretKey: config.curve.secretKey,
    },
  });
  return { channel, inFlight: 0, full: false };
}
