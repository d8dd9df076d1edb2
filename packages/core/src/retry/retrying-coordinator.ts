import type { Coordinator } from '../ports/coordinator';
import { retry, type RetryOptions } from './retry';

/**
 * A Coordinator that rides out a ZooKeeper restart or session loss. Which
 * calls repeat is decided here, one by one: `putCheckpoint` is monotonic (a
 * repeat is ignored), reads repeat freely, and `removeCheckpoint` is
 * conditional on the version (a repeat after a lost reply answers false,
 * removing nothing else). `elect` is long-lived and `close` final: both run
 * once.
 */
export function retryingCoordinator(coordinator: Coordinator, options: RetryOptions): Coordinator {
  return {
    elect: (role, candidateId) => coordinator.elect(role, candidateId),
    putCheckpoint: (checkpoint) => retry(() => coordinator.putCheckpoint(checkpoint), options),
    getCheckpoint: (taskId, unitNo) => retry(() => coordinator.getCheckpoint(taskId, unitNo), options),
    listCheckpoints: (taskId) => retry(() => coordinator.listCheckpoints(taskId), options),
    removeCheckpoint: (taskId, unitNo, version) =>
      retry(() => coordinator.removeCheckpoint(taskId, unitNo, version), options),
    close: () => coordinator.close(),
  };
}
