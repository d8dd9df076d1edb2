/**
 * @module @herald/core/recovery
 *
 * Cross-site recovery (docs/recovery.md): the filtered list minus the ranges the executors
 * reported as done.
 *
 * @example
 *   import { computeRemainder } from '@herald/core/recovery';
 *   const { uins: owed } = computeRemainder(filteredList, reports);
 */
export {
  computeRemainder,
  mergeRanges,
  complementRanges,
  selectByRanges,
  rangesLength,
  parseBatchReport,
  ReportsMismatchError,
} from './remainder';
export type { ListRange, BatchReport, Remainder } from './remainder';
export { checkReportsComplete, ReportsIncompleteError, REPORT_CLOCK_SKEW_MS } from './coverage';
export type { ReportsCoverage } from './coverage';
