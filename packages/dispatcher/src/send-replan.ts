import type { Logger } from '@herald/core/ports';
import type { PushChannel, UnitRun } from '@herald/transport';

/**
 * Proposes to a unit's owner that it run the unit on executor `to`
 * (unit.replan), never rejecting: a proposal that cannot be sent is only
 * logged, since the unit stalls again and its owner asks again
 * (scheduler.unitStallMs).
 */
export async function sendReplan(toScheduler: PushChannel, run: UnitRun, to: string, logger: Logger): Promise<void> {
  try {
    await toScheduler.send({
      kind: 'unit.replan',
      taskId: run.taskId,
      epoch: run.epoch,
      unitNo: run.unitNo,
      from: run.executorId,
      to,
    });
  } catch (error) {
    logger.warn('unit.replan not sent', { taskId: run.taskId, unitNo: run.unitNo, error: String(error) });
  }
}
