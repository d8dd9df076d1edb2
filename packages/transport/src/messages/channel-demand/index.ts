/** channel.demand: sends and reads version 1, its only version so far (docs/operations.md, "Wire versions"). */
import { versionedCodec } from '../versioned';
import type { ChannelDemand } from '../types';
import * as v1 from './v1';

export const codec = versionedCodec<ChannelDemand>('channel.demand', v1, [v1]);
