/** task.command: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { TaskCommand } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<TaskCommand>('task.command', v1, [v1]);
