/** @module @herald/shared-bitmap (work in progress) */
export {};
