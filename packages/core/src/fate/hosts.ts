import type { ExecutionUnit } from '../task/model';
import type { DeliveryFacts, LoginFacts } from './fate';

/**
 * The delivery records of the production profile are kept by each executor
 * host (docs/recipient-truth.md, "Where"): an answer assembled from them may
 * miss the part a host did not give. These decide what such an answer may
 * still say, so a host that is down makes a fate `unknown`, never a wrong
 * "not reached" or "not delivered".
 */

/**
 * Thrown by a delivery-record read spread over hosts when the record it
 * looked for was on none of the hosts that answered and some did not answer.
 */
export class HostsUnreachable extends Error {
  readonly hosts: readonly string[];

  constructor(hosts: Iterable<string>) {
    const sorted = [...new Set(hosts)].sort();
    super(unreachableReason(sorted));
    this.name = 'HostsUnreachable';
    this.hosts = sorted;
  }
}

/**
 * Thrown by a purge spread over hosts (`DeliveryRecordLog.purgeTask`) when
 * some hosts did not answer: their records of the task are still there, and
 * `purged` is what the hosts that answered removed, so a caller can say both.
 * A HostsUnreachable (same name), so whatever handles that handles this.
 */
export class PurgeIncomplete extends HostsUnreachable {
  readonly purged: { batches: number; logins: number };

  constructor(hosts: Iterable<string>, purged: { batches: number; logins: number }) {
    super(hosts);
    this.purged = { batches: purged.batches, logins: purged.logins };
  }
}

/** What the hosts that answered removed, when `error` is a PurgeIncomplete (also across package copies); else undefined. */
export function purgedBeforeUnreachable(error: unknown): { batches: number; logins: number } | undefined {
  if (!isHostsUnreachable(error)) return undefined;
  const purged = (error as Partial<PurgeIncomplete>).purged;
  return purged !== undefined && Number.isSafeInteger(purged.batches) && Number.isSafeInteger(purged.logins)
    ? purged
    : undefined;
}

/** Whether `error` is a HostsUnreachable (also across package copies, by name). */
export function isHostsUnreachable(error: unknown): error is HostsUnreachable {
  return error instanceof HostsUnreachable || (error instanceof Error && error.name === 'HostsUnreachable');
}

/** The reason an answer gives: "host executor-2 unreachable", "hosts executor-2, executor-3 unreachable". */
export function unreachableReason(hosts: readonly string[]): string {
  return `${hosts.length === 1 ? 'host' : 'hosts'} ${hosts.join(', ')} unreachable`;
}

/**
 * What may be said of a position when no answering host held a record of it
 * (`facts`: what the records that were read say) and `unreachable` did not
 * answer. A record found stands (it is a fact). Otherwise:
 * - the unit covering the position is on an unreachable host: its record
 *   would be there (the unit's executor writes it before reporting the
 *   batch), so the fate is unknown, naming that host;
 * - its unit's checkpoint passed it: some executor confirmed it, maybe one
 *   that had the unit before a failover and is now unreachable: unknown,
 *   naming them;
 * - else it is not reached: its unit's executor answered and has no record,
 *   and a batch an earlier executor confirmed past the checkpoint is sent
 *   again (and recorded) by the unit's current one.
 */
export function deliveryAcrossHosts(
  facts: DeliveryFacts,
  position: number,
  units: readonly Pick<ExecutionUnit, 'start' | 'end' | 'checkpoint' | 'executorId'>[],
  unreachable: ReadonlySet<string>,
): DeliveryFacts {
  if (facts.kind === 'record' || unreachable.size === 0) return facts;
  const unit = units.find((u) => u.start <= position && position < u.end);
  if (unit !== undefined && unreachable.has(unit.executorId))
    return { kind: 'unavailable', reason: unreachableReason([unit.executorId]) };
  const passed = facts.kind === 'unavailable' || (unit !== undefined && position < unit.checkpoint);
  return passed ? { kind: 'unavailable', reason: unreachableReason([...unreachable].sort()) } : facts;
}

/**
 * What may be said of an offline recipient's login when none was found: its
 * outcome is kept by the executor that queued it (the record's `executor`),
 * so if that host did not answer, it is unknown.
 */
export function loginAcrossHosts(
  login: LoginFacts,
  recordExecutor: string,
  unreachable: ReadonlySet<string>,
): LoginFacts {
  if (login.kind !== 'none' || !unreachable.has(recordExecutor)) return login;
  return { kind: 'unavailable', reason: unreachableReason([recordExecutor]) };
}

/**
 * A walk of records (`batchesFrom`, `loginsFrom`) read from several hosts: the
 * hosts that did not answer so far, read as it goes. A walk of one local log
 * has none.
 */
export interface HostAwareWalk {
  readonly unreachable?: ReadonlySet<string>;
}

const NO_HOSTS: ReadonlySet<string> = new Set();

/** The hosts a walk could not read so far (none for a local log's walk). */
export function unreachableOf(walk: object): ReadonlySet<string> {
  return (walk as HostAwareWalk).unreachable ?? NO_HOSTS;
}
