import { AbstractDeviceRegistry } from '@herald/core/adapter';
import { MAX_DEVICES_PER_UIN, type Device, type RegisterResult } from '@herald/core/ports';
import { HeraldError, ErrorCodes } from '@herald/core';

/** What a MemoryDeviceRegistry keeps; share one between instances to model a reopen. */
export class MemoryDevices {
  /** Every device by token, in registration order (a Map keeps insertion order; re-registering re-inserts). */
  readonly byToken = new Map<string, Device>();
}

/**
 * A DeviceRegistry in memory, for the push gateways' tests (it passes the
 * DeviceRegistry conformance suite like the stored adapters). `reopen` with
 * the same MemoryDevices keeps what was registered, as a restart would.
 */
export class MemoryDeviceRegistry extends AbstractDeviceRegistry {
  constructor(
    readonly devices = new MemoryDevices(),
    now?: () => number,
  ) {
    super({
      name: 'MemoryDeviceRegistry',
      translate: (error, op) =>
        error instanceof HeraldError
          ? error
          : new HeraldError(ErrorCodes.INTERNAL, `MemoryDeviceRegistry.${op}: ${String(error)}`),
      ...(now ? { now } : {}),
    });
  }

  protected async _register(device: Device): Promise<RegisterResult> {
    const { byToken } = this.devices;
    byToken.delete(device.token);
    byToken.set(device.token, device);
    const mine = [...byToken.values()].filter((d) => d.uin === device.uin);
    const replaced = mine.slice(0, Math.max(0, mine.length - MAX_DEVICES_PER_UIN)).map((d) => d.token);
    for (const token of replaced) byToken.delete(token);
    return { replaced };
  }

  protected async _devicesOf(sortedUins: Uint32Array): Promise<Device[][]> {
    const byUin = new Map<number, Device[]>();
    for (const device of this.devices.byToken.values())
      byUin.set(device.uin, [...(byUin.get(device.uin) ?? []), device]);
    return Array.from(sortedUins, (uin) => (byUin.get(uin) ?? []).map((d) => ({ ...d })));
  }

  protected async _removeTokens(tokens: readonly string[]): Promise<number> {
    let removed = 0;
    for (const token of new Set(tokens)) if (this.devices.byToken.delete(token)) removed++;
    return removed;
  }

  protected async _close(): Promise<void> {}
}
