import type { HostLoad } from './host-load';

/**
 * Executors grouped by the host they run on (docs/scheduling.md, "Executors
 * sharing a host"). Every executor reports its whole host's CPU, memory and
 * NIC, so two executors on one host each claim the host's spare capacity:
 * counted per executor, a task of half the cluster's spare "fits" one of them
 * and all its units went to one process, which sends on one thread while the
 * host's other cores wait (one host, 2 cores, 2 executors: one executor at
 * 37% of the machine's CPU, the other at 8%). Grouped, a host's spare is
 * counted once and a task placed on the host is spread over its executors.
 */
export interface SharedHost {
  /** The host's name in the plan: its first executor's id. */
  id: string;
  /** The report its capacity is read from: its executors' newest. */
  load: HostLoad;
  /** Its executors with reports, in the order they were given. */
  executors: string[];
}

/**
 * Groups `reports` (in the executors' stable order) by `groups` (the ids of
 * executors sharing a host: the topology's presence agents, one per host);
 * an executor in no group is a host of its own.
 */
export function sharedHosts(reports: readonly HostLoad[], groups: readonly (readonly string[])[] = []): SharedHost[] {
  const hostOf = new Map<string, number>();
  groups.forEach((members, g) => members.forEach((id) => hostOf.set(id, g)));
  const byKey = new Map<string | number, SharedHost>();
  for (const report of reports) {
    const key = hostOf.get(report.executorId) ?? `executor:${report.executorId}`;
    const host = byKey.get(key);
    if (host === undefined) byKey.set(key, { id: report.executorId, load: report, executors: [report.executorId] });
    else {
      host.executors.push(report.executorId);
      if (report.sentAt > host.load.sentAt) host.load = report;
    }
  }
  return [...byKey.values()];
}

/** A weight per host spread evenly over its executors: what placeUnits cuts the task by. */
export function overExecutors(
  shares: readonly { id: string; weight: number }[],
  hosts: readonly SharedHost[],
): { id: string; weight: number }[] {
  const byId = new Map(hosts.map((h) => [h.id, h]));
  return shares.flatMap(({ id, weight }) => {
    const executors = byId.get(id)?.executors ?? [id];
    return executors.map((executor) => ({ id: executor, weight: weight / executors.length }));
  });
}
