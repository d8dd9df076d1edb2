/**
 * @module @herald/core/ring
 *
 * The consistent-hash ring (murmur3, virtual nodes) that places keys on members.
 *
 * @example
 *   import { HashRing } from '@herald/core/ring';
 *   new HashRing(['scheduler-1', 'scheduler-2']).ownerOf(42);
 */
export { HashRing } from './hash-ring';
export { murmur3 } from './murmur3';
