export * from './model';
export { parseCanary, parseCanarySample, parseVariants, checkTaskRollout } from './parse';
export {
  parseEngagement,
  mergeEngagement,
  isTaskEngagement,
  clickThroughOf,
  canaryBreach,
  MAX_ENGAGEMENT_COUNT,
} from './engagement';
export type { TaskEngagement, CanaryRatios } from './engagement';
export { rolloutPoint, canaryFraction, inCanarySample, variantIndexOf } from './assign';
