import type { RetryOptions } from '../retry/retry';
import type { Device, DeviceRegistration, DeviceRegistry, RegisterResult } from '../ports/device-registry';
import {
  checkAnyDeviceToken,
  checkDeadTokens,
  checkDeviceRegistration,
  checkDeviceUins,
  normaliseToken,
} from '../ports/device-rules';
import { AdapterLifecycle, type ErrorTranslator } from './lifecycle';

export interface DeviceRegistryBaseOptions {
  name: string;
  translate: ErrorTranslator;
  retry?: RetryOptions;
  /** Reads the registration time. Default Date.now. */
  now?: () => number;
}

/**
 * The DeviceRegistry contract every adapter shares: each call refuses after
 * close (STORE_CLOSED) and checks its input with the core rules once, then
 * calls the adapter's hook with a normalised token (APNs hex lower-case).
 * Every call is safe to repeat (registering the same token again leaves the
 * same state; removing one already gone removes nothing), so all of them ride
 * out outages when the adapter was given retry options.
 */
export abstract class AbstractDeviceRegistry implements DeviceRegistry {
  protected readonly life: AdapterLifecycle;
  private readonly now: () => number;

  protected constructor(options: DeviceRegistryBaseOptions) {
    this.life = new AdapterLifecycle(options);
    this.now = options.now ?? Date.now;
  }

  register(registration: DeviceRegistration): Promise<RegisterResult> {
    return this.life.idempotent('register', async () => {
      checkDeviceRegistration(registration);
      const { uin, platform, token, accountId } = registration;
      const device: Device = {
        token: normaliseToken(token, platform),
        uin,
        platform,
        ...(accountId === undefined ? {} : { accountId }),
        registeredAt: this.now(),
      };
      return this._register(device);
    });
  }

  remove(token: string): Promise<boolean> {
    return this.life.idempotent('remove', async () => {
      checkAnyDeviceToken(token);
      return (await this._removeTokens(variantsOf([token]))) > 0;
    });
  }

  devicesOf(sortedUins: Uint32Array): Promise<Device[][]> {
    return this.life.idempotent('devicesOf', async () => {
      checkDeviceUins(sortedUins);
      if (sortedUins.length === 0) return [];
      return this._devicesOf(sortedUins);
    });
  }

  removeDead(tokens: readonly string[]): Promise<number> {
    return this.life.idempotent('removeDead', async () => {
      checkDeadTokens(tokens);
      if (tokens.length === 0) return 0;
      return this._removeTokens(variantsOf(tokens));
    });
  }

  /** Waits for calls in flight, then the adapter releases its backend. Later calls fail with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this._close());
  }

  /** Stores a checked device as its user's newest, within MAX_DEVICES_PER_UIN; answers the tokens dropped. */
  protected abstract _register(device: Device): Promise<RegisterResult>;
  /** The devices of each of checked, sorted, non-empty uins, aligned with them, oldest registration first. */
  protected abstract _devicesOf(sortedUins: Uint32Array): Promise<Device[][]>;
  /** Removes the distinct tokens that are registered; answers how many were. */
  protected abstract _removeTokens(tokens: readonly string[]): Promise<number>;
  protected abstract _close(): Promise<void>;
}

/** A token as given and, when it could be an APNs token in another case, as stored: the caller need not know the platform. */
function variantsOf(tokens: readonly string[]): string[] {
  const all = new Set<string>();
  for (const token of tokens) {
    all.add(token);
    if (/^[0-9a-fA-F]+$/.test(token)) all.add(token.toLowerCase());
  }
  return [...all];
}
