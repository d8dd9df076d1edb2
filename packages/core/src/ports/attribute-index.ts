import type { UserAttributes } from '../targeting/attributes';

/**
 * Users' attributes held as per-value bitsets, for the `targeting` audience
 * source (docs/audience-sources.md, "Targeting"). Production: MySQL tables
 * `user_attributes` (one row per user: the source of truth) and
 * `attribute_chunks` (the bitsets); embedded: LevelDB. Each bitset is kept in
 * chunks of 2^16 uins (core targeting/bitset-chunk.ts), so a query reads and
 * combines one chunk at a time.
 *
 * Contract, checked by the AttributeIndex conformance suite for every adapter:
 * - `putUsers` sets each user's attributes, replacing what the user had
 *   (checked with checkUserAttributes first: one bad user rejects the call
 *   before anything is written). The user leaves the bitsets of old values and
 *   joins those of the new ones, and the universe `*`, in one atomic write:
 *   a reader never sees a user in two regions. A uin twice in one call: the
 *   last one counts.
 * - `removeUsers` takes users out of every bitset, the universe included.
 *   Unknown uins are ignored.
 * - `getUser` answers what putUsers stored (tags sorted), or undefined.
 * - `keysWithPrefix` lists the keys of the bitsets holding anyone, in
 *   ascending order (e.g. 'active=' for the day buckets a query may union).
 * - `nextChunk(from)` is the smallest chunk number >= from in which the
 *   universe holds anyone, or undefined.
 * - `readChunks(keys, from, to)` answers the stored chunks of those bitsets
 *   with chunk numbers in [from, to), ordered by chunk then key; a chunk
 *   holding nobody is never stored.
 */
export interface AttributeIndex {
  putUsers(users: readonly UserAttributes[]): Promise<void>;
  removeUsers(uins: readonly number[]): Promise<void>;
  getUser(uin: number): Promise<UserAttributes | undefined>;
  keysWithPrefix(prefix: string): Promise<string[]>;
  nextChunk(fromChunk: number): Promise<number | undefined>;
  readChunks(keys: readonly string[], fromChunk: number, toChunk: number): Promise<StoredChunk[]>;
  close(): Promise<void>;
}

export interface StoredChunk {
  key: string;
  chunk: number;
  /** The chunk's stored form (decodeChunk reads it). */
  bytes: Uint8Array;
}

/** Users per putUsers call the adapters accept (bounds one atomic write). */
export const MAX_USERS_PER_PUT = 10_000;
