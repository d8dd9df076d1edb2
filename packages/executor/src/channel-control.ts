import type { DeliveryGateway } from '@herald/core/ports';
import { PacedDeliveryGateway } from './paced-gateway';

/** A paced channel's limits as an admin reads them: whole bounds, this process's rate, senders sharing the budget. */
export interface ChannelLimitsRead {
  channel: string;
  minRate: number;
  maxRate: number;
  rate: number;
  senders: number;
}

/** An admin's control of a process's paced channels (docs/delivery.md, "Limits at run time"). */
export interface ChannelLimitsControl {
  list(): ChannelLimitsRead[];
  /** Undefined: no such channel here. Throws a ValidationError naming the field for bounds out of order. */
  setLimits(channel: string, limits: { minRate?: number; maxRate?: number }): ChannelLimitsRead | undefined;
}

/**
 * The control of the channel `gateway` is, when it is paced; a file sink
 * has none (lists nothing). The embedded API's routes and a production
 * executor's management endpoint both serve it.
 */
export function channelControlOf(gateway: DeliveryGateway): ChannelLimitsControl {
  const paced = gateway instanceof PacedDeliveryGateway ? gateway : undefined;
  return {
    list: () => (paced === undefined ? [] : [paced.limits()]),
    setLimits: (channel, limits) =>
      paced === undefined || paced.limits().channel !== channel ? undefined : paced.setLimits(limits),
  };
}
