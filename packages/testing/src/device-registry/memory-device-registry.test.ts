import { deviceRegistryConformance } from './conformance';
import { MemoryDeviceRegistry, MemoryDevices } from './memory-device-registry';

deviceRegistryConformance('MemoryDeviceRegistry', async () => {
  const devices = new MemoryDevices();
  return {
    store: new MemoryDeviceRegistry(devices),
    reopen: async () => new MemoryDeviceRegistry(devices),
    cleanup: async () => undefined,
  };
});
