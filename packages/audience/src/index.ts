/**
 * @module @herald/audience
 *
 * The I/O side of the recipient-list file format (the codec itself is pure and
 * lives in @herald/core): streaming and whole-file readers, writers that only
 * ever publish complete files (temp file, fsync, rename), and the repository
 * of list files that validates uploads while they stream in.
 *
 * Every damaged file gives a ListFormatError with a stable code
 * (LIST_BAD_MAGIC, LIST_TRUNCATED, LIST_TRAILING_BYTES, LIST_CHECKSUM_MISMATCH,
 * LIST_UIN_OUT_OF_RANGE, ...), the same from every reader; bad arguments and
 * over-limit uploads give a ValidationError; a missing file a NotFoundError
 * ('LIST_NOT_FOUND').
 *
 * @example
 *   import { ListFlags } from '@herald/core';
 *   import { ListRepository, loadRecipientList, readRecipientList, writeRecipientListFile } from '@herald/audience';
 *
 *   const lists = new ListRepository('/var/lib/herald/lists');
 *   const meta = await lists.importStream(request, { accountId: 'acme', uinLimit: 2 ** 32, maxBytes: 8 * 2 ** 30 });
 *
 *   // Constant memory, any size:
 *   for await (const batch of readRecipientList(lists.pathOf(meta.id), { uinLimit: 2 ** 32 })) count += batch.length;
 *
 *   // Or all at once, into one array of exactly meta.count uins:
 *   const uins = await loadRecipientList(lists.pathOf(meta.id), { uinLimit: 2 ** 32 });
 *   const filteredId = lists.newId('f');
 *   await writeRecipientListFile(lists.pathOf(filteredId), filter(uins), ListFlags.SORTED | ListFlags.UNIQUE);
 */
export { readRecipientList, readRecipientListHeader, loadRecipientList } from './list-reader';
export type { ReadListOptions, LoadListOptions } from './list-reader';
export { RecipientListWriter, writeRecipientListFile } from './list-writer';
export type { WrittenList } from './list-writer';
export { ListRepository } from './list-repository';
export type { ListRepositoryOptions, ImportListOptions } from './list-repository';
export { syntheticAudience } from './synthetic';
export type { SyntheticAudienceOptions, SyntheticAudience } from './synthetic';
