/** task.submitted: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { TaskSubmitted } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<TaskSubmitted>('task.submitted', v1, [v1]);
