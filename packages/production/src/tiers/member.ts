import { ConfigError } from '@herald/core';
import type { ProductionConfig, TopologyMember } from '@herald/core/config';

/** This process's own entry in the topology; a missing one is a configuration error. */
export function memberOf(
  production: ProductionConfig,
  group: 'schedulers' | 'dispatchers' | 'executors',
  id: string,
): TopologyMember {
  const member = production.topology[group].find((m) => m.id === id);
  if (member === undefined)
    throw new ConfigError(
      `topology.${group}`,
      `has no member with id ${JSON.stringify(id)} (start it with --id <one of: ${production.topology[group].map((m) => m.id).join(', ')}>)`,
    );
  return member;
}
