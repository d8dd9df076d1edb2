export * from './model';
export { parseCanary, parseCanarySample, parseVariants, checkTaskRollout } from './parse';
export { rolloutPoint, canaryFraction, inCanarySample, variantIndexOf } from './assign';
