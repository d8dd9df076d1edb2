/**
 * unit.progress: reads versions 1, 2 and 3, sends version 1. Version 2 adds
 * dead letters, the channel's hold and a whole-batch refusal (v2.ts); its
 * readers (schedulers) come after its writers (executors) in the
 * rolling-upgrade order, so this release still sends version 1 between builds
 * that may mix (rule 3 of docs/operations.md, "Wire versions"), and the next
 * one sends 2. A profile whose processes all run one build (embedded) sends
 * the newest already (`PushOptions.sendNewest`).
 *
 * Version 3 adds a quiet-hours hold (v3.ts), which no older version can say:
 * a report carrying one is sent as version 3 whatever this build sends
 * otherwise. An older scheduler refuses it as a malformed frame, and the held
 * unit waits, unsent, for its stall re-run, as it would for a lost report.
 */
import { versionedCodec, type KindCodec } from '../versioned';
import type { UnitProgressMessage } from '../types';
import * as v1 from './v1';
import * as v2 from './v2';
import * as v3 from './v3';

const byVersion = versionedCodec<UnitProgressMessage>('unit.progress', v1, [v1, v2, v3]);

export const codec: KindCodec<UnitProgressMessage> = {
  ...byVersion,
  encode: (msg) => (msg.quietUntil === undefined ? byVersion.encode(msg) : v3.encode(msg)),
};
