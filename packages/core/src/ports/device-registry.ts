/** The push services a device token belongs to: Firebase Cloud Messaging or Apple Push Notification service. */
export type DevicePlatform = 'fcm' | 'apns';

/** One registered device: a token the push service addresses, and the user it reaches. */
export interface Device {
  token: string;
  uin: number;
  platform: DevicePlatform;
  /** The account that registered it, when the registration named one. */
  accountId?: string;
  /** Epoch ms of the (latest) registration. */
  registeredAt: number;
}

export interface DeviceRegistration {
  uin: number;
  platform: DevicePlatform;
  token: string;
  accountId?: string;
}

/** What `register` changed: the tokens it dropped to keep the user within MAX_DEVICES_PER_UIN (oldest first). */
export interface RegisterResult {
  replaced: string[];
}

/**
 * The map from a user (uin) to the devices a mobile-push channel (FCM, APNs)
 * sends to (docs/delivery.md, "Device registry"). Registered through the API,
 * read by the push gateways a batch at a time, pruned of the tokens a push
 * service reports dead.
 *
 * Contract, checked by the DeviceRegistry conformance suite
 * (@herald/testing `deviceRegistryConformance`) for every adapter:
 * - A token is one device, so it belongs to one user: registering a token
 *   again (the same or another uin, platform or account) replaces its entry
 *   and makes it the user's newest device.
 * - A user has at most MAX_DEVICES_PER_UIN devices: registering one more
 *   drops the oldest registration(s), which `register` returns in `replaced`.
 * - `devicesOf(sortedUins)` answers in one call, aligned with the input
 *   (an empty list for a user with no device), each user's devices oldest
 *   registration first.
 * - `remove(token)` answers whether the token was registered;
 *   `removeDead(tokens)` removes those still registered and answers how many
 *   (tokens already gone are skipped: two gateways may report the same one).
 * - Registrations survive a close and reopen.
 * - Bad input (a token not of its platform's format, a uin outside
 *   0..2^32-1, unsorted uins) is a ValidationError naming the field; after
 *   `close`, every call fails with STORE_CLOSED.
 */
export interface DeviceRegistry {
  register(registration: DeviceRegistration): Promise<RegisterResult>;
  remove(token: string): Promise<boolean>;
  devicesOf(sortedUins: Uint32Array): Promise<Device[][]>;
  removeDead(tokens: readonly string[]): Promise<number>;
  close(): Promise<void>;
}
