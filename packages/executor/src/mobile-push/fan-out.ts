import { ErrorCodes, HeraldError } from '@herald/core';
import type {
  Delivery,
  DeliveryResult,
  Device,
  DevicePlatform,
  DeviceRegistry,
  Logger,
  RecipientRejection,
} from '@herald/core/ports';
import type { MessageSlots } from './message-slots';

/** What a push service answered for one device. */
export type DeviceOutcome =
  | { kind: 'accepted' }
  /** The token is dead (uninstalled app, bad token): the device is removed from the registry. */
  | { kind: 'dead'; reason: string }
  | { kind: 'throttled'; retryAfterMs?: number; said: string }
  | { kind: 'failed'; said: string }
  /** The message itself was refused (payload too large, bad field): sending it again unchanged cannot help. */
  | { kind: 'refused'; said: string };

/** One message to send: a device of a recipient, with what that recipient receives. */
export interface DeviceMessage {
  device: Device;
  content: Delivery['content'];
  uin: number;
}

export interface FanOutOptions {
  registry: DeviceRegistry;
  platform: DevicePlatform;
  /** The gateway's messages in flight, shared by every batch it sends at once. */
  slots: MessageSlots;
  logger: Logger;
  /** How errors name the channel and the batch, e.g. "FCM, task 12's batch of 500". */
  what: string;
}

/** The dead-letter reason of a recipient without a device of the channel's platform. */
export const NO_DEVICE = 'no_device';

/**
 * A batch fanned out to its recipients' devices, one message per device,
 * within the gateway's `slots` (docs/delivery.md, "FCM and APNs"):
 * - a recipient with no device of the platform is rejected `no_device`;
 * - a recipient is delivered when one of its devices accepted; one whose
 *   devices all came back dead is rejected with the last one's reason;
 * - dead tokens are removed from the registry, whatever else happens;
 * - a throttled, failed or refused message stops the batch (no new message
 *   starts) and the batch rejects as the webhook's would, throttled first,
 *   then failed, then refused: the channel's pacing sends it again, and the
 *   devices that already accepted get the message again (at least once;
 *   the collapse id makes a device show it once).
 */
export async function fanOut(
  delivery: Delivery,
  options: FanOutOptions,
  send: (message: DeviceMessage) => Promise<DeviceOutcome>,
): Promise<DeliveryResult> {
  const { uins } = delivery;
  const devices = await options.registry.devicesOf(uins);
  const rejected: RecipientRejection[] = [];
  const messages: DeviceMessage[] = [];
  devices.forEach((list, i) => {
    const own = list.filter((device) => device.platform === options.platform);
    if (own.length === 0) rejected.push({ uin: uins[i]!, reason: NO_DEVICE });
    const content = delivery.contents?.[i] ?? delivery.content;
    for (const device of own) messages.push({ device, content, uin: uins[i]! });
  });

  const outcomes = new Map<DeviceMessage, DeviceOutcome>();
  let stop: DeviceOutcome | undefined;
  let next = 0;
  const worker = async () => {
    while (stop === undefined && next < messages.length) {
      const message = messages[next++]!;
      const outcome = await options.slots
        .run(() => send(message))
        .catch((error: unknown): DeviceOutcome => ({
          kind: 'failed',
          said: String((error as Error).message ?? error),
        }));
      outcomes.set(message, outcome);
      if (outcome.kind === 'throttled' || outcome.kind === 'failed' || outcome.kind === 'refused')
        stop = worse(stop, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.slots.size, messages.length) }, worker));

  await removeDead(outcomes, options);
  if (stop !== undefined) throw errorOf(stop, options.what);

  const delivered = new Set<number>();
  const deadReason = new Map<number, string>();
  // In message order (a user's devices oldest first), so a user whose devices all died has its newest one's reason.
  for (const message of messages) {
    const outcome = outcomes.get(message)!;
    if (outcome.kind === 'accepted') delivered.add(message.uin);
    else if (outcome.kind === 'dead') deadReason.set(message.uin, outcome.reason);
  }
  for (const [uin, reason] of deadReason) if (!delivered.has(uin)) rejected.push({ uin, reason });
  return { rejected: rejected.sort((a, b) => a.uin - b.uin) };
}

/** Throttled outranks failed outranks refused (the pacing should wait first); among throttles, the longest wait. */
function worse(current: DeviceOutcome | undefined, outcome: DeviceOutcome): DeviceOutcome {
  const rank = (o: DeviceOutcome | undefined) =>
    o === undefined ? 0 : o.kind === 'refused' ? 1 : o.kind === 'failed' ? 2 : 3;
  if (current?.kind === 'throttled' && outcome.kind === 'throttled')
    return (outcome.retryAfterMs ?? 0) > (current.retryAfterMs ?? 0) ? outcome : current;
  return rank(outcome) > rank(current) ? outcome : current!;
}

function errorOf(outcome: DeviceOutcome, what: string): HeraldError {
  if (outcome.kind === 'throttled')
    return new HeraldError(ErrorCodes.DELIVERY_THROTTLED, `${what}: throttled, ${outcome.said}`, {
      retriable: true,
      details: outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs },
    });
  if (outcome.kind === 'failed')
    return new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: ${outcome.said}`, { retriable: true });
  const said = outcome.kind === 'refused' ? outcome.said : outcome.kind;
  return new HeraldError(ErrorCodes.DELIVERY_REJECTED, `${what}: refused, ${said}`);
}

/** Dead tokens leave the registry; a registry that fails is logged, not thrown: the batch's outcome stands. */
async function removeDead(outcomes: Map<DeviceMessage, DeviceOutcome>, options: FanOutOptions): Promise<void> {
  const dead = [...outcomes].filter(([, o]) => o.kind === 'dead').map(([m]) => m.device.token);
  if (dead.length === 0) return;
  try {
    const removed = await options.registry.removeDead(dead);
    options.logger.info('removed device tokens the push service reported dead', {
      channel: options.platform,
      reported: dead.length,
      removed,
    });
  } catch (error) {
    options.logger.warn('could not remove dead device tokens; they are tried again next time', {
      channel: options.platform,
      tokens: dead.length,
      error: String(error),
    });
  }
}
