import type { RemovalFacts } from '@herald/core/fate';
import { walkAudienceChunks, type AudienceWalkOptions } from './audience-chunks';

export type { AudienceChunk, AudienceWalkOptions } from './audience-chunks';
export { walkAudienceChunks } from './audience-chunks';

/** One recipient of a task's audience as the walk meets it. */
export interface WalkedRecipient {
  uin: number;
  /** Its position in the filtered list, when it is there. */
  position: number | undefined;
  /** As removalOf answers it for this uin. */
  removal: RemovalFacts;
}

/**
 * walkAudienceChunks one recipient at a time: every distinct uin of a task's
 * audience, ascending, each once with the facts the per-recipient lookup
 * would find. For callers that want an object a row; the delivery report
 * reads the chunks.
 */
export async function* walkAudience(
  filteredListPath: string,
  removedPath: string,
  options: AudienceWalkOptions,
): AsyncGenerator<WalkedRecipient, void, undefined> {
  for await (const chunk of walkAudienceChunks(filteredListPath, removedPath, options)) {
    let k = 0;
    for (let i = 0; i < chunk.uins.length; i++) {
      const named = chunk.named[k] === i;
      const position = chunk.positions[i]!;
      yield {
        uin: chunk.uins[i]!,
        position: position < 0 ? undefined : position,
        removal: named ? chunk.removals[k++]! : chunk.plain,
      };
    }
  }
}
