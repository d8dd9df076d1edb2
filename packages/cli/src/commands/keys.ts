import { writeKeys } from '@herald/production';

/** `herald keys --dir <dir> <id...>`: a CURVE key pair per process id. */
export async function runKeys(dir: string, ids: string[]): Promise<void> {
  await writeKeys(dir, ids);
  for (const id of ids) process.stdout.write(`${dir}/${id}.key  ${dir}/${id}.pub\n`);
}
