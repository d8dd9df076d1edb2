/**
 * @module @herald/core/recipient-list
 *
 * The recipient-list file codec (docs/recipient-list-format.md): header, flags, a streaming
 * decoder that rejects malformed input with a typed error, and the encoder.
 *
 * @example
 *   import { encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
 *   const file = encodeRecipientList(sortedUins, ListFlags.SORTED | ListFlags.UNIQUE);
 */
export {
  LIST_MAGIC,
  LIST_VERSION,
  LIST_HEADER_BYTES,
  UIN_BYTES,
  ListFlags,
  encodeListHeader,
  decodeListHeader,
} from './format';
export type { ListHeader } from './format';
export { RecipientListDecoder, uinOutOfRange } from './decoder';
export { RecipientListEncoder, encodeRecipientList } from './encoder';
export { crc32Combine } from './crc-combine';
