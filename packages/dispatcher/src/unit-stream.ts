import type { Logger } from '@herald/core/ports';
import type { PushChannel, UnitRun } from '@herald/transport';
import { readListRange } from './read-range';

/** Whether a unit's stream was stopped (a halt, a newer owner, a re-run of the unit, shutdown). */
export interface StreamState {
  readonly halted: boolean;
}

export interface UnitStreamDeps {
  /** The path of a filtered list's file. */
  pathOf(listId: string): string;
  batchSize: number;
  logger: Logger;
  /** Called after each batch the channel accepted, with its recipients. */
  sent(recipients: number): void;
}

/**
 * Sends a unit's range of the filtered list to its executor's channel, one
 * batch at a time, checking before each batch that the stream still runs:
 * a stopped stream sends nothing more (the batch handed to the socket at
 * that moment still goes). Awaits the channel, so a slow executor slows
 * only its own streams. Throws what the channel or the list read throws.
 */
export async function sendUnitBatches(
  run: UnitRun,
  state: StreamState,
  channel: PushChannel,
  deps: UnitStreamDeps,
): Promise<void> {
  let offset = run.from;
  for await (const uins of readListRange(deps.pathOf(run.filteredListId), run.from, run.end, deps.batchSize)) {
    if (state.halted) {
      deps.logger.debug('unit stream stopped', { taskId: run.taskId, unitNo: run.unitNo, epoch: run.epoch, offset });
      return;
    }
    const last = offset + uins.length >= run.end;
    await channel.send({
      kind: 'unit.batch',
      taskId: run.taskId,
      epoch: run.epoch,
      unitNo: run.unitNo,
      offset,
      last,
      uins,
    });
    deps.sent(uins.length);
    offset += uins.length;
  }
}
