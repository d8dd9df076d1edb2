import { crc32 } from 'node:zlib';
import type { TaskContent } from './model';

/** The no-resend key of a content: CRC-32 of its title and body. Same text, same key. */
export function contentCrc(content: TaskContent): number {
  return crc32(Buffer.from(`${content.title ?? ''}\u0000${content.body}`, 'utf8')) >>> 0;
}

/** A content with only the fields a task keeps (body, title, template), as the stores write and read it. */
export function taskContentOf(content: TaskContent): TaskContent {
  const kept: TaskContent =
    content.title === undefined ? { body: content.body } : { body: content.body, title: content.title };
  if (content.template === true) kept.template = true;
  return kept;
}
