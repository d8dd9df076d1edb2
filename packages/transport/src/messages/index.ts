/**
 * One entry point for every wire message: `encodeMessage` picks the kind's
 * encoder from `msg.kind`, `decodeMessage` picks the decoder from byte 0.
 * Decoding throws only FrameError: FRAME_MALFORMED, FRAME_UNKNOWN_KIND or
 * FRAME_UNSUPPORTED_VERSION.
 */
import { FrameError } from '@herald/core';
import { HEADER_BYTES, KIND_IDS, malformed } from './codec';
import * as preprocessRequest from './preprocess-request';
import * as preprocessResult from './preprocess-result';
import * as taskCommand from './task-command';
import * as taskHalt from './task-halt';
import * as taskSubmitted from './task-submitted';
import * as unitBatch from './unit-batch';
import * as unitProgress from './unit-progress';
import * as unitRun from './unit-run';
import * as unitReplan from './unit-replan';
import * as userLogins from './user-logins';
import * as apta from './apta';
import * as hostLoad from './host-load';
import type { Message } from './types';

const DECODERS = new Map<number, (frame: Buffer) => Message>([
  [KIND_IDS['task.submitted'], taskSubmitted.decode],
  [KIND_IDS['task.command'], taskCommand.decode],
  [KIND_IDS['preprocess.request'], preprocessRequest.decode],
  [KIND_IDS['preprocess.result'], preprocessResult.decode],
  [KIND_IDS['unit.run'], unitRun.decode],
  [KIND_IDS['task.halt'], taskHalt.decode],
  [KIND_IDS['unit.batch'], unitBatch.decode],
  [KIND_IDS['unit.progress'], unitProgress.decode],
  [KIND_IDS['user.logins'], userLogins.decode],
  [KIND_IDS.apta, apta.decode],
  [KIND_IDS['host.load'], hostLoad.decode],
  [KIND_IDS['unit.replan'], unitReplan.decode],
]);

export function encodeMessage(msg: Message): Buffer {
  switch (msg.kind) {
    case 'task.submitted':
      return taskSubmitted.encode(msg);
    case 'task.command':
      return taskCommand.encode(msg);
    case 'preprocess.request':
      return preprocessRequest.encode(msg);
    case 'preprocess.result':
      return preprocessResult.encode(msg);
    case 'unit.run':
      return unitRun.encode(msg);
    case 'task.halt':
      return taskHalt.encode(msg);
    case 'unit.batch':
      return unitBatch.encode(msg);
    case 'unit.progress':
      return unitProgress.encode(msg);
    case 'user.logins':
      return userLogins.encode(msg);
    case 'apta':
      return apta.encode(msg);
    case 'host.load':
      return hostLoad.encode(msg);
    case 'unit.replan':
      return unitReplan.encode(msg);
    default:
      throw new FrameError('FRAME_UNKNOWN_KIND', `cannot encode unknown message kind ${JSON.stringify((msg as { kind: unknown }).kind)}`);
  }
}

export function decodeMessage(frame: Buffer): Message {
  if (frame.length < HEADER_BYTES) throw malformed(`frame is ${frame.length} bytes, shorter than the 2-byte header`);
  const decode = DECODERS.get(frame[0]!);
  if (decode === undefined) throw new FrameError('FRAME_UNKNOWN_KIND', `unknown message kind ${frame[0]}`, { kind: frame[0] });
  return decode(frame);
}
