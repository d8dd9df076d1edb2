import { readFileSync } from 'node:fs';
import { hugePagesMissing } from '@herald/core';

const THP_SETTING = '/sys/kernel/mm/transparent_hugepage/enabled';

/**
 * Says on stderr when this process runs without transparent huge pages for
 * its arrays (docs/operations.md, "Memory: huge pages"): a process started by
 * hand, not by the systemd unit or an npm script, runs a broadcast's
 * pre-processing up to twice as slowly, and nothing else would say why.
 */
export function noteHugePages(): void {
  const missing = hugePagesMissing(process.env, process.platform, thpSetting());
  if (missing !== undefined)
    process.stderr.write(`herald: no huge pages for this process's arrays: ${missing}; see docs/operations.md\n`);
}

function thpSetting(): string | undefined {
  try {
    return readFileSync(THP_SETTING, 'utf8');
  } catch {
    return undefined; // not Linux, or a kernel without THP: hugePagesMissing judges by the rest
  }
}
