/**
 * unit.progress: reads versions 1 and 2, sends version 1. Version 2 adds dead
 * letters, the channel's hold and a whole-batch refusal (v2.ts); its readers
 * (schedulers) come after its writers (executors) in the rolling-upgrade
 * order, so this release still sends version 1 between builds that may mix
 * (rule 3 of docs/operations.md, "Wire versions"), and the next one sends 2.
 * A profile whose processes all run one build (embedded) sends version 2
 * already (`PushOptions.sendNewest`).
 */
import { versionedCodec } from '../versioned';
import type { UnitProgressMessage } from '../types';
import * as v1 from './v1';
import * as v2 from './v2';

export const codec = versionedCodec<UnitProgressMessage>('unit.progress', v1, [v1, v2]);
