import type { Message, UnitProgressMessage } from '@herald/transport';

/**
 * Progress reports that queued up while the scheduler was busy, folded
 * together (docs/architecture.md, "Inside the scheduler"). Every report is
 * a checkpoint write (a ZooKeeper compare-and-set on the production profile)
 * and the scheduler handles one message at a time, so when reports arrive
 * faster than it writes them, writing each would only make the queue longer.
 * Reports of one unit that follow each other without a gap, starting at the
 * unit's checkpoint, say together exactly what they say one by one: the
 * checkpoint moves to the last one's end, by the sum of their counts. So a
 * run of them becomes one report, and the scheduler writes once.
 *
 * Pure: `checkpointOf` tells where each unit stands before the run is handled.
 * What could not be folded is left as it came, in its place, and handled as
 * before: a replay (its start is not the checkpoint), a report that carries
 * more than counts (a channel hold, a refusal, a quiet-hours hold), and any
 * report of a task after another message for the same task (a command may
 * change what a report means).
 */
export function foldProgress(
  run: readonly Message[],
  checkpointOf: (taskId: number, unitNo: number) => number | undefined,
): Message[] {
  const out: Message[] = [];
  /** Per "task/unit": where in `out` its open chain's report is, and the epoch it was sent under. */
  const chains = new Map<string, { at: number; epoch: number }>();
  for (const message of run) {
    if (message.kind !== 'unit.progress') {
      // A message for a task closes its units' chains: a report after it is handled after it.
      if ('taskId' in message) closeTask(chains, message.taskId);
      out.push(message);
      continue;
    }
    const key = `${message.taskId}/${message.unitNo}`;
    const chain = chains.get(key);
    const last = chain === undefined ? undefined : (out[chain.at] as UnitProgressMessage);
    if (last !== undefined && chain!.epoch === message.epoch && last.to === message.from && foldable(message)) {
      out[chain!.at] = folded(last, message);
      continue;
    }
    chains.delete(key);
    if (foldable(message) && checkpointOf(message.taskId, message.unitNo) === message.from)
      chains.set(key, { at: out.length, epoch: message.epoch });
    out.push(message);
  }
  return out;
}

/** A report of counts only: a batch confirmed, nothing else to say. */
function foldable(report: UnitProgressMessage): boolean {
  return (
    report.to > report.from &&
    report.channel === undefined &&
    report.refused === undefined &&
    report.quietUntil === undefined
  );
}

/** Two reports of one unit, `next` starting where `first` ended, as one. */
function folded(first: UnitProgressMessage, next: UnitProgressMessage): UnitProgressMessage {
  const deadLetters = sumByReason(first.deadLetters, next.deadLetters);
  return {
    ...first,
    to: next.to,
    delivered: first.delivered + next.delivered,
    offline: first.offline + next.offline,
    done: next.done,
    ...(deadLetters === undefined ? {} : { deadLetters }),
  };
}

function sumByReason(
  a: Record<string, number> | undefined,
  b: Record<string, number> | undefined,
): Record<string, number> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const sum = { ...a };
  for (const [reason, n] of Object.entries(b)) sum[reason] = (sum[reason] ?? 0) + n;
  return sum;
}

function closeTask(chains: Map<string, unknown>, taskId: number): void {
  const prefix = `${taskId}/`;
  for (const key of chains.keys()) if (key.startsWith(prefix)) chains.delete(key);
}
