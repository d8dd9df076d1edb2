/** @module @herald/presence (work in progress) */
export {};
