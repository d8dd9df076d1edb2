// The scope a tier opens its adapters into lives with the tier builders; kept here for this package's imports.
export { Resources } from '@herald/compose';
