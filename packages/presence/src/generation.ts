import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { GROUP_READ_FILE_MODE } from '@herald/core';

/**
 * The generation of a bitmap file, kept beside it in `<bitmapFile>.generation`.
 * A bitmap that already existed keeps its generation, so a restarted agent
 * resumes its consumer group; a bitmap created just now (first start, or
 * /dev/shm emptied by a reboot) gets a new one, so the agent replays the
 * presence topic into it. A missing or unreadable generation file also means
 * a new generation: replaying too much is safe, resuming too late is not.
 */
export async function bitmapGeneration(bitmapFile: string, bitmapExisted: boolean): Promise<string> {
  const file = `${bitmapFile}.generation`;
  if (bitmapExisted) {
    const kept = await readFile(file, 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
    if (/^[0-9a-f]{16}$/.test(kept)) return kept;
  }
  return renewGeneration(bitmapFile);
}

/**
 * A new generation for the bitmap's contents, written to
 * `<bitmapFile>.generation` (atomically): the bitmap was created, or the
 * agent cleared it to rebuild it after presence events were skipped. A
 * restart afterwards resumes the new generation's consumer group.
 */
export async function renewGeneration(bitmapFile: string): Promise<string> {
  const file = `${bitmapFile}.generation`;
  const generation = randomBytes(8).toString('hex');
  await writeFile(`${file}.tmp`, `${generation}\n`, { mode: GROUP_READ_FILE_MODE });
  await rename(`${file}.tmp`, file);
  return generation;
}
