import { ConfigError } from '@herald/core';
import type { OnlineBitmap } from '@herald/core/presence';
import { createLoginNotifier, startPresenceAgent, type LoginChannel, type PresenceAgent } from '@herald/presence';
import type { Open } from './adapters';
import type { TierBuild } from './build';

/** Login notices in flight per executor before more are dropped (the users' entries wait for their next login). */
const MAX_NOTICES_IN_FLIGHT = 256;

export interface PresenceLinks {
  /** One login channel per executor of this agent's host. */
  executors: LoginChannel[];
}

/** The host's online bitmap, opened for writing, and the generation that names its contents. */
export interface WrittenBitmap {
  bitmap: OnlineBitmap;
  generation: string;
  /** Names the contents anew when the agent rebuilds the bitmap (kept where `generation` came from). @defaultValue in memory */
  renewGeneration?: () => Promise<string>;
}

export interface PresenceBuild<L extends PresenceLinks, B extends WrittenBitmap> extends TierBuild<L> {
  id: string;
  bitmap: Open<B>;
  /** presence.hmacKeyFile's key: only events signed with it are applied. Undefined: every well-formed event is. */
  hmacKey: Buffer | undefined;
}

/**
 * A presence agent: follows the presence topic on the event bus into the
 * host's online bitmap (its only writer), and tells the host's executors who
 * came online so they walk those users' offline lists. Needs an event bus.
 */
export async function buildPresenceAgent<L extends PresenceLinks, B extends WrittenBitmap>(
  build: PresenceBuild<L, B>,
): Promise<{ agent: PresenceAgent; links: L; bitmap: B }> {
  const { adapters, scope, id, logger, meter } = build;
  if (adapters.eventBus === undefined)
    throw new ConfigError('profile', 'a presence agent follows the presence topic: the profile needs an event bus');
  const written = await build.bitmap(scope);
  const { bitmap, generation, renewGeneration } = written;
  const bus = await adapters.eventBus(scope);
  const links = await build.links(scope);
  const notifyLogins = createLoginNotifier(links.executors, {
    maxInFlight: MAX_NOTICES_IN_FLIGHT,
    agentId: id,
    logger,
    meter,
  });
  const agent = scope.add(
    'presence agent',
    await startPresenceAgent({
      id,
      bus,
      bitmap,
      generation,
      ...(renewGeneration === undefined ? {} : { renewGeneration }),
      notifyLogins,
      hmacKey: build.hmacKey,
      logger,
      meter,
    }),
    (a) => a.close(),
  );
  return { agent, links, bitmap: written };
}
