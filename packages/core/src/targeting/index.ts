/**
 * @module @herald/core/targeting
 *
 * Targeting (docs/audience-sources.md): users' attributes, the query language, per-value
 * bitsets in 2^16-uin chunks, a query's plan evaluated chunk by chunk, and the index edits a
 * user change makes.
 *
 * @example
 *   import { parseTargetingQuery, planTargetingQuery } from '@herald/core/targeting';
 *   const plan = planTargetingQuery(parseTargetingQuery('region = 44 AND NOT gender = f'), context);
 */
export {
  GENDERS,
  AGE_BANDS,
  UNIVERSE_KEY,
  TZ_KEY_PREFIX,
  MAX_TAGS_PER_USER,
  checkUserAttributes,
  userBitsetKeys,
  utcDay,
  isAttributeValue,
} from './attributes';
export type { Gender, AgeBand, UserAttributes } from './attributes';
export {
  CHUNK_BITS,
  CHUNK_UINS,
  CHUNK_WORDS,
  chunkOf,
  emptyChunk,
  setChunkBit,
  chunkHas,
  chunkCardinality,
  encodeChunk,
  decodeChunk,
  chunkMembers,
  forEachStoredMember,
  storedMembersInto,
} from './bitset-chunk';
export { parseTargetingQuery, QUERY_ATTRIBUTES, MAX_QUERY_CHARS, MAX_QUERY_DEPTH, MAX_QUERY_TERMS } from './query';
export type { QueryNode, QueryAttribute, ActiveSince } from './query';
export { planTargetingQuery, planKeys, activeDaysOf, evaluatePlanChunk } from './plan';
export type { PlanNode, PlanContext } from './plan';
export { chunkEdits, applyChunkEdit, lastPerUin } from './index-edits';
export type { UserChange, ChunkEdit } from './index-edits';
