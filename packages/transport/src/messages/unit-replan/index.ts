/** unit.replan: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { UnitReplan } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<UnitReplan>('unit.replan', v1, [v1]);
