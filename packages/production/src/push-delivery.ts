import type { ApnsDeliveryConfig, FcmDeliveryConfig, HeraldConfig } from '@herald/core/config';
import type { Delivery, DeliveryGateway, DeliveryResult, DeviceRegistry } from '@herald/core/ports';
import {
  ApnsDeliveryGateway,
  FcmDeliveryGateway,
  pacedChannel,
  parseServiceAccount,
  type ChannelObservers,
} from '@herald/executor';
import { readSettingFile } from './setting-files';

/**
 * The FCM channel for the production profile (docs/delivery.md, "FCM"): the
 * service-account key file read and checked now, so a missing, unreadable
 * or malformed one fails the start with one ConfigError naming
 * `delivery.fcm.credentialsFile` (nothing is sent over the network until the
 * first batch); then paced by its outcomes like every channel. The gateway
 * owns `registry` and closes it with itself.
 */
export function openFcmChannel(
  fcm: FcmDeliveryConfig,
  registry: DeviceRegistry,
  observers: ChannelObservers = {},
): DeliveryGateway {
  const account = parseServiceAccount(
    readSettingFile('delivery.fcm.credentialsFile', fcm.credentialsFile).toString('utf8'),
    'delivery.fcm.credentialsFile',
  );
  const ca = fcm.caFile === null ? undefined : readSettingFile('delivery.fcm.caFile', fcm.caFile).toString('utf8');
  const gateway = new FcmDeliveryGateway({
    account,
    ...(fcm.projectId === null ? {} : { projectId: fcm.projectId }),
    endpoint: fcm.endpoint,
    tokenUrl: fcm.tokenUrl,
    concurrency: fcm.concurrency,
    timeoutMs: fcm.timeoutMs,
    ...(ca === undefined ? {} : { ca }),
    registry,
    ...(observers.logger === undefined ? {} : { logger: observers.logger }),
    ...(observers.clock === undefined ? {} : { now: () => observers.clock!.now() }),
  });
  return pacedChannel('fcm', closingAlso(gateway, registry), fcm, observers);
}

/**
 * The APNs channel for the production profile (docs/delivery.md, "APNs"):
 * the .p8 key read and checked now, so a missing, unreadable or malformed
 * one fails the start naming `delivery.apns.keyFile`; then paced. The
 * gateway owns `registry`.
 */
export function openApnsChannel(
  apns: ApnsDeliveryConfig,
  registry: DeviceRegistry,
  observers: ChannelObservers = {},
): DeliveryGateway {
  const key = readSettingFile('delivery.apns.keyFile', apns.keyFile).toString('utf8');
  const ca = apns.caFile === null ? undefined : readSettingFile('delivery.apns.caFile', apns.caFile).toString('utf8');
  const gateway = new ApnsDeliveryGateway({
    key,
    keyId: apns.keyId,
    teamId: apns.teamId,
    topic: apns.topic,
    pushType: apns.pushType,
    endpoint: apns.endpoint,
    concurrency: apns.concurrency,
    timeoutMs: apns.timeoutMs,
    ...(ca === undefined ? {} : { ca }),
    registry,
    ...(observers.logger === undefined ? {} : { logger: observers.logger }),
    ...(observers.clock === undefined ? {} : { now: () => observers.clock!.now() }),
  });
  return pacedChannel('apns', closingAlso(gateway, registry), apns, observers);
}

/** `gateway`, whose close closes `registry` after it. */
function closingAlso(gateway: DeliveryGateway, registry: DeviceRegistry): DeliveryGateway {
  return {
    deliver: (delivery: Delivery): Promise<DeliveryResult | void> => gateway.deliver(delivery),
    async close() {
      try {
        await gateway.close();
      } finally {
        await registry.close();
      }
    },
  };
}

/** Whether `config` sends through a mobile-push channel, which needs the device registry. */
export function usesDeviceRegistry(config: HeraldConfig): boolean {
  return config.delivery.kind === 'fcm' || config.delivery.kind === 'apns';
}
