import { isHeraldError } from '@herald/core';
import { noopLogger, systemClock, type Clock, type Logger } from '@herald/core/ports';
import type { LoadConfig } from '@herald/core/config';
import type { HostLoadMessage } from '@herald/transport';
import type { HostSample } from './host-sampler';

export interface LoadReporterDeps {
  executorId: string;
  config: LoadConfig;
  /** The host's CPU, memory and NIC now (createHostSampler over readProcCounters in both profiles). */
  sample(): Promise<HostSample>;
  /** The executor's free sender slots now (watchUnitSlots). */
  freeSlots(): number;
  /** Hands the report to every dispatcher; a rejection is logged, the next interval tries again. */
  send(message: HostLoadMessage): Promise<void>;
  clock?: Clock;
  logger?: Logger;
}

export interface LoadReporter {
  /**
   * Stops the timer; nothing is sent after it. A report still on its way is not awaited: its
   * dispatcher may already be gone (a stop closes the dispatchers first in one process) and a
   * send nobody takes never settles; closing the links rejects it. Reports are droppable.
   */
  stop(): Promise<void>;
}

/**
 * The host manager's report loop (docs/scheduling.md, "Load-aware dispatch":
 * each host's manager reports its load): every load.reportIntervalMs one host.load to the
 * dispatchers, the first at once. A report still being sent when the next
 * is due makes that one skip: a dispatcher that does not read must never
 * pile up reports that are stale when they arrive.
 */
export function startLoadReporter(deps: LoadReporterDeps): LoadReporter {
  const logger = deps.logger ?? noopLogger;
  const clock = deps.clock ?? systemClock;
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  const report = async () => {
    try {
      const host = await deps.sample();
      if (stopped) return;
      const senderSlots = deps.config.senderSlots;
      await deps.send({
        kind: 'host.load',
        report: {
          executorId: deps.executorId,
          sentAt: clock.now(),
          ...host,
          nicCapacityBytesPerSecond: deps.config.nicBytesPerSecond,
          senderSlots,
          senderSlotsFree: Math.min(senderSlots, deps.freeSlots()),
        },
      });
    } catch (error) {
      logger.debug('load report not sent', {
        executorId: deps.executorId,
        code: isHeraldError(error) ? error.code : 'INTERNAL',
        error: String(error),
      });
    }
  };
  const tick = () => {
    if (inFlight !== undefined) return;
    inFlight = report().finally(() => (inFlight = undefined));
  };
  tick();
  const timer = setInterval(tick, deps.config.reportIntervalMs);
  timer.unref(); // reports alone never keep a process alive
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
