import { buildPresenceAgent, Resources, type PresenceLinks, type WrittenBitmap } from '@herald/compose';
import { ConfigError } from '@herald/core';
import type { PresenceMember, ProductionConfig } from '@herald/core/config';
import { bitmapGeneration, presenceKey, renewGeneration } from '@herald/presence';
import { SharedOnlineBitmap } from '@herald/shared-bitmap';
import { ProcessLinks } from '../links';
import { readSettingFile } from '../setting-files';
import { productionAdapters } from './adapter-set';
import type { RunningTier, TierContext } from './tier';

/** This agent's entry in topology.presence; a missing one is a configuration error. */
export function presenceAgentOf(production: ProductionConfig, id: string): PresenceMember & { setting: string } {
  const index = production.topology.presence.findIndex((p) => p.id === id);
  const agent = production.topology.presence[index];
  if (agent !== undefined) return { ...agent, setting: `topology.presence[${index}]` };
  throw new ConfigError(
    'topology.presence',
    `has no agent with id ${JSON.stringify(id)} (start it with --id <one of: ${production.topology.presence.map((p) => p.id).join(', ')}>)`,
  );
}

/**
 * A presence agent process, one per host: follows the presence topic into the
 * host's shared online bitmap (the only writer), and sends user.logins to the
 * host's executors over CURVE links so they walk those users' offline lists.
 */
export async function startPresenceTier(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const production = config.production!;
  const me = presenceAgentOf(production, id);
  const hmacKey = signingKey(config.presence.hmacKeyFile);
  if (hmacKey === undefined)
    logger.warn(
      'presence.hmacKeyFile is not set: any producer to the presence topic can set users online (docs/presence.md, "Signed events")',
    );
  const openBitmap = async (resources: Resources): Promise<WrittenBitmap & { fresh: boolean }> => {
    const bitmap = resources.add('online bitmap', openWriter(me, config.uinLimit), (b) => b.close());
    return {
      bitmap,
      generation: await bitmapGeneration(me.bitmapFile, !bitmap.created),
      renewGeneration: () => renewGeneration(me.bitmapFile),
      fresh: bitmap.created,
    };
  };
  const openLinks = async (resources: Resources): Promise<PresenceLinks> => {
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const executors = [];
    for (const executorId of me.executors) {
      const push = await links.connect(production.topology.executors.find((e) => e.id === executorId)!);
      executors.push({ executorId, send: push.send.bind(push) });
    }
    return { executors };
  };
  const scope = new Resources(logger);
  return scope.starting(async () => {
    const { agent, bitmap } = await buildPresenceAgent({
      config,
      id,
      adapters: productionAdapters(context),
      scope,
      bitmap: openBitmap,
      links: openLinks,
      hmacKey,
      logger,
      meter,
    });
    logger.info('presence agent following the presence topic', {
      group: agent.group,
      bitmapFile: me.bitmapFile,
      fresh: bitmap.fresh,
      signedOnly: hmacKey !== undefined,
    });
    const stop = () => scope.closeAll();
    // Nothing to hand off: the consumer group's position is committed, so the next run resumes there.
    return {
      description: `presence ${id} writing ${me.bitmapFile} for ${me.executors.join(', ')}`,
      status: () => ({ group: agent.group, bitmapFile: me.bitmapFile }),
      drain: stop,
      stop,
    };
  });
}

function openWriter(me: PresenceMember & { setting: string }, uinLimit: number) {
  try {
    return SharedOnlineBitmap.openWriter(me.bitmapFile, uinLimit);
  } catch (error) {
    throw new ConfigError(
      `${me.setting}.bitmapFile`,
      `cannot open ${me.bitmapFile} for writing: ${(error as Error).message}`,
    );
  }
}

/** The key of presence.hmacKeyFile, read at start (an unreadable or short file fails naming the setting), or undefined when unset. */
function signingKey(file: string | null): Buffer | undefined {
  return file === null ? undefined : presenceKey(readSettingFile('presence.hmacKeyFile', file));
}
