import { crc32 } from 'node:zlib';
import type { TaskContent } from './model';

/** The no-resend key of a content: CRC-32 of its title and body. Same text, same key. */
export function contentCrc(content: TaskContent): number {
  return crc32(Buffer.from(`${content.title ?? ''}\u0000${content.body}`, 'utf8')) >>> 0;
}
