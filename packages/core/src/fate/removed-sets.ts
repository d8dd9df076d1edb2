import { ListFormatError } from '../errors';
import { FILTER_REASONS, type FilterReason } from '../task/model';

/**
 * What each filter link removed from a task's audience, kept beside its
 * filtered list (`f_<taskId>.removed`), so a recipient not in the filtered
 * list is answered by the link that removed it rather than by today's
 * blacklist or counters. Layout, little-endian:
 *
 *   magic "HRMV" (u32), version u8, flags u8, sections u8, reserved u8,
 *   per section: reason index in FILTER_REASONS (u8), 3 reserved bytes, count (u32),
 *   then each section's uins (u32), sorted, in section order.
 *
 * Dedupe's section holds each repeat's extra copies (a uin may appear more
 * than once there). Flag COMPLETE: every link that ran has its section.
 * A list filtered in parallel chunks by a dispatcher whose workers only
 * counted their links recorded only the links run after the merge (follower,
 * targeting, frequency), without the flag: a uin absent from every section
 * is then unknown rather than "not in the audience". 4 bytes per removed uin.
 */
export const REMOVED_MAGIC = 0x564d5248; // "HRMV" read as u32 LE
export const REMOVED_VERSION = 1;
export const RemovedFlags = { COMPLETE: 1 } as const;
const HEAD = 8;
const SECTION = 8;

export interface RemovedSection {
  reason: FilterReason;
  count: number;
  /** Byte offset of its first uin in the file. */
  offset: number;
}

export interface RemovedHeader {
  complete: boolean;
  sections: RemovedSection[];
  /** Bytes of the header: read these first, then search each section by position. */
  bytes: number;
}

/** The whole file for the links' removed sets, in chain order. */
export function encodeRemovedSets(
  sets: readonly { reason: FilterReason; uins: Uint32Array }[],
  complete: boolean,
): Uint8Array {
  const head = encodeRemovedHeader(
    sets.map((set) => ({ reason: set.reason, count: set.uins.length })),
    complete,
  );
  const total = sets.reduce((n, s) => n + s.uins.length, 0);
  const out = new Uint8Array(head.length + total * 4);
  out.set(head);
  const view = new DataView(out.buffer);
  let at = head.length;
  for (const set of sets)
    for (const uin of set.uins) {
      view.setUint32(at, uin, true);
      at += 4;
    }
  return out;
}

/**
 * The file's header alone (head and section table), for a writer that
 * streams each section's uins after it (u32 little-endian, in this order)
 * rather than building the whole file in memory.
 */
export function encodeRemovedHeader(
  sections: readonly { reason: FilterReason; count: number }[],
  complete: boolean,
): Uint8Array {
  const out = new Uint8Array(removedHeaderBytes(sections.length));
  const view = new DataView(out.buffer);
  view.setUint32(0, REMOVED_MAGIC, true);
  view.setUint8(4, REMOVED_VERSION);
  view.setUint8(5, complete ? RemovedFlags.COMPLETE : 0);
  view.setUint8(6, sections.length);
  sections.forEach((section, i) => {
    view.setUint8(HEAD + i * SECTION, FILTER_REASONS.indexOf(section.reason));
    view.setUint32(HEAD + i * SECTION + 4, section.count, true);
  });
  return out;
}

/** Bytes of a header with `sections` sections. */
export function removedHeaderBytes(sections: number): number {
  return HEAD + sections * SECTION;
}

/** How many sections a file has, from its first 8 bytes (then read removedHeaderBytes of them). */
export function removedSectionCount(first8: Uint8Array): number {
  checkFixedHead(first8);
  return first8[6]!;
}

export function decodeRemovedHeader(bytes: Uint8Array): RemovedHeader {
  checkFixedHead(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint8(6);
  const headBytes = removedHeaderBytes(count);
  if (bytes.length < headBytes) throw bad(`removed-sets header is ${bytes.length} bytes, shorter than ${headBytes}`);
  const sections: RemovedSection[] = [];
  let offset = headBytes;
  for (let i = 0; i < count; i++) {
    const reason = FILTER_REASONS[view.getUint8(HEAD + i * SECTION)];
    if (reason === undefined) throw bad(`removed-sets section ${i} names no known reason`);
    const n = view.getUint32(HEAD + i * SECTION + 4, true);
    sections.push({ reason, count: n, offset });
    offset += n * 4;
  }
  return { complete: (view.getUint8(5) & RemovedFlags.COMPLETE) !== 0, sections, bytes: headBytes };
}

function checkFixedHead(bytes: Uint8Array): void {
  if (bytes.length < HEAD) throw bad(`removed-sets file is ${bytes.length} bytes, shorter than ${HEAD}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== REMOVED_MAGIC) throw bad('removed-sets file has the wrong magic');
  if (view.getUint8(4) !== REMOVED_VERSION) throw bad(`removed-sets file has unknown version ${view.getUint8(4)}`);
}

function bad(message: string): ListFormatError {
  return new ListFormatError('LIST_BAD_HEADER', message);
}
