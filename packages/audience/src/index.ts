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
 * ('LIST_NOT_FOUND'); a text upload with too many bad lines a ListFormatError
 * ('LIST_TOO_MANY_BAD_LINES') whose details count them by reason.
 *
 * @example
 *   import { ListFlags } from '@herald/core/recipient-list';
 *   import { ListRepository, loadRecipientList, readRecipientList, writeRecipientListFile } from '@herald/audience';
 *
 *   const lists = new ListRepository('/var/lib/herald/lists');
 *   const meta = await lists.importStream(request, { accountId: 'acme', uinLimit: 2 ** 32, maxBytes: 8 * 2 ** 30 });
 *
 *   // Constant memory, any size:
 *   for await (const batch of readRecipientList(lists.pathOf(meta.id), { uinLimit: 2 ** 32 })) count += batch.length;
 *
 *   // A text or CSV upload, converted on the way; bad lines counted by reason:
 *   const { meta: csvMeta, report } = await lists.importText(request, { accountId: 'acme', uinLimit: 2 ** 32, maxBytes: 2 ** 33, format: 'csv', column: 'uin' });
 *
 *   // Any AudienceSource (followers, a targeting query, a MySQL table) into a list, bad rows counted:
 *   const { meta: targeted } = await importFromSource(lists, targetingSource(index, 'region:cn-gd AND NOT tag:churned'), { accountId: 'acme', uinLimit: 2 ** 32 });
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
export { inRunOrder, writeListInRuns, type ListInRuns } from './runs-writer';
export { ListRepository } from './list-repository';
export { OpenTaskFiles, positionInList, positionInRuns, removalOf, removedPathOf } from './recipient-lookup';
export type { ListRun } from './list-runs';
export { RunsCursor } from './runs-cursor';
export { walkAudience, walkAudienceChunks } from './audience-walk';
export type { AudienceChunk, AudienceWalkOptions, WalkedRecipient } from './audience-walk';
export type {
  ListRepositoryOptions,
  ImportListOptions,
  ImportTextListOptions,
  TextListImport,
} from './list-repository';
export { TextListParser, BAD_LINE_REASONS } from './text-list';
export type { TextListOptions, TextListReport, BadLine, BadLineReason } from './text-list';
export { DEFAULT_MAX_BAD_RATIO } from './text-import';
export type { TextImportPolicy } from './text-import';
export { importFromSource, enforceSourcePolicy } from './source-import';
export type { SourceImportOptions, SourceImportProgress, SourceImportReport, SourceListImport } from './source-import';
export { targetingSource } from './targeting-source';
export type { TargetingSourceOptions } from './targeting-source';
export { targetingFilter } from './targeting-filter';
export { FollowerCopies } from './follower-copy';
export type { FollowerCopiesOptions } from './follower-copy';
export type { TargetingFilter } from './targeting-filter';
export { applyFollowEvents, publishFollowChanges } from './follow-events';
export { resyncFollowerCopies, resyncFollowerCopy } from './follower-resync';
export type { FollowEventsOptions } from './follow-events';
export { syntheticAudience } from './synthetic';
export type { SyntheticAudienceOptions, SyntheticAudience } from './synthetic';
