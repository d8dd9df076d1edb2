/**
 * @module @herald/core/presence
 *
 * Who is online: the online bitmap (one bit per uin; `TypedArrayBitmap` in one process)
 * and presence events applied in event-time order (docs/presence.md).
 *
 * @example
 *   import { TypedArrayBitmap } from '@herald/core/presence';
 *   const online = new TypedArrayBitmap(2 ** 24);
 */
export { TypedArrayBitmap } from './online-bitmap';
export type { OnlineView, OnlineBitmap } from './online-bitmap';
export { PresenceOrder } from './presence-order';
export type { PresenceOrderOptions } from './presence-order';
