import { compileConfig } from '@herald/core/config';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';
import { createDeliveryGateway, pacedChannel } from './delivery-gateway';

describe('the delivery gateway from config', () => {
  it("refuses delivery.kind 'kafka', which the production profile opens, naming delivery.kind", () => {
    const config = compileConfig({ delivery: { kind: 'kafka', kafka: { brokers: ['k:9092'], topic: 'deliveries' } } });
    expect(() => createDeliveryGateway(config.delivery, '/nowhere')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', details: { setting: 'delivery.kind' } }),
    );
  });

  it("paces a channel's adapter with its settings and hands it every batch", async () => {
    const config = compileConfig({ delivery: { kind: 'kafka', kafka: { brokers: ['k:9092'], topic: 'deliveries' } } });
    if (config.delivery.kind !== 'kafka') throw new Error('a kafka config');
    const seen: Delivery[] = [];
    const inner: DeliveryGateway = {
      deliver: async (delivery) => {
        seen.push(delivery);
        return { rejected: [{ uin: 2, reason: 'unknown_user' }] };
      },
      close: async () => undefined,
    };
    const gateway = pacedChannel('kafka', inner, config.delivery.kafka);
    const batch = { taskId: 1, uins: Uint32Array.of(1, 2), content: { body: 'x' }, atLogin: false };
    expect(await gateway.deliver(batch)).toEqual({ rejected: [{ uin: 2, reason: 'unknown_user' }] });
    expect(seen).toEqual([batch]);
    await gateway.close();
  });
});
