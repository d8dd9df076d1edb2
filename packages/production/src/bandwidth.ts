import type { BandwidthConfig } from '@herald/core/config';

/** Set in the environment of a process started through run-in-class.sh: it is in its class already. */
export const IN_CLASS_ENV = 'HERALD_BANDWIDTH_CLASS';

/**
 * With `bandwidth.enabled`, an executor process runs inside the cgroup of its
 * traffic kind (cgroup/README.md): `herald start executor` starts itself again
 * through run-in-class.sh, which joins the cgroup and execs it (same pid).
 * Returns that command, and the class, or undefined when there is nothing to
 * do: isolation off, another tier, or already in its class.
 */
export function inClassCommand(
  bandwidth: BandwidthConfig,
  tier: string,
  id: string,
  command: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { argv: string[]; kind: string } | undefined {
  if (!bandwidth.enabled || tier !== 'executor' || env[IN_CLASS_ENV] !== undefined) return undefined;
  const kind = bandwidth.kinds[bandwidth.executors[id] ?? 'normal'];
  return { argv: [bandwidth.script, kind, '--', ...command], kind };
}
