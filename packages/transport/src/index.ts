/**
 * @module @herald/transport
 *
 * How Herald's tiers talk: every ZeroMQ message kind with a binary
 * encoder/decoder per version (grammars in messages/<kind>/v<N>.ts;
 * WIRE_VERSIONS says which versions this build sends and reads), and one-way
 * PUSH/PULL channels that carry them. Decoders throw only FrameError; a PullChannel
 * counts and skips frames it cannot decode. `send` waits while the receiver's
 * queue is full, so a slow tier slows its sender instead of filling memory.
 * Over tcp the channels take CURVE options: the PULL side admits only the
 * client public keys in its allow-list (see curve.ts and zap.ts).
 * `setTrafficCut(true)` is a fault-injection hook for tests and drills: every
 * channel of the process drops its traffic, both ways, until it is lifted.
 *
 * @example
 *   import { createPull, createPush, inprocEndpoint } from '@herald/transport';
 *   const endpoint = inprocEndpoint('executor-1');
 *   const pull = await createPull({ name: 'executor-1', endpoint, highWaterMark: 64 });
 *   const push = await createPush({ name: 'dispatcher', endpoints: [endpoint], highWaterMark: 64 });
 *   await push.send({ kind: 'task.halt', taskId: 42, epoch: 3 });
 *   for await (const msg of pull.messages()) {
 *     if (msg.kind === 'task.halt') break;
 *   }
 *   push.close();
 *   pull.close();
 */
export { encodeMessage, encodeMessageAs, decodeMessage, WIRE_VERSIONS } from './messages';
export type {
  Message,
  MessageKind,
  TaskSubmitted,
  TaskCommand,
  TaskCommandName,
  PreprocessRequest,
  PreprocessResult,
  PlannedUnit,
  PlannedGroup,
  UnitRun,
  UnitReplan,
  ChannelThrottled,
  ChannelDemand,
  TaskHalt,
  UnitBatch,
  UnitProgressMessage,
  UserLogins,
  HostLoadMessage,
  AptaEnvelope,
} from './messages/types';

export { createPush, createPull, inprocEndpoint, setTrafficCut, isTrafficCut } from './channels';
export type { PushChannel, PushOptions, PushLinkEvent, PullChannel, PullOptions } from './channels';
export { observeInbox } from './observe-inbox';

export { generateKeyPair, checkCurveKey, checkCurveKeyPair } from './curve';
export type { CurveClientOptions, CurveKeyPair, CurveServerOptions } from './curve';
