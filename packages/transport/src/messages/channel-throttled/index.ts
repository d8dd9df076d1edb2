/** channel.throttled: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { ChannelThrottled } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<ChannelThrottled>('channel.throttled', v1, [v1]);
