/**
 * channel.demand: sends version 2, reads versions 1 and 2. Version 1 frames
 * come from builds older than this one and carry no rate (v1.ts); keep
 * reading them until a release no longer needs to talk to such builds
 * (docs/operations.md, "Wire versions").
 */
import { versionedCodec } from '../versioned';
import type { ChannelDemand } from '../types';
import * as v1 from './v1';
import * as v2 from './v2';

export const codec = versionedCodec<ChannelDemand>('channel.demand', v2, [v1, v2]);
