/**
 * preprocess.result: sends version 2, reads versions 1 and 2. Version 1 frames
 * come from builds older than this one, which plan neither a canary sample nor
 * local-time groups: read as neither (v1.ts; docs/operations.md, "Wire versions").
 */
import { versionedCodec } from '../versioned';
import type { PreprocessResult } from '../types';
import * as v1 from './v1';
import * as v2 from './v2';

export const codec = versionedCodec<PreprocessResult>('preprocess.result', v2, [v1, v2]);
