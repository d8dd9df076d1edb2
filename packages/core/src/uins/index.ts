/**
 * @module @herald/core/uins
 *
 * Sorted-uin set algebra on Uint32Arrays: radix sort, dedupe, subtract, search.
 *
 * @example
 *   import { radixSortUint32, uniqueSorted } from '@herald/core/uins';
 *   const sorted = uniqueSorted(radixSortUint32(uins));
 */
export { radixSortUint32, isSortedUint32, uniqueSorted, subtractSorted, indexOfSorted } from './sorted-set';
