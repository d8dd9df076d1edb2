/** user.logins: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { UserLogins } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<UserLogins>('user.logins', v1, [v1]);
