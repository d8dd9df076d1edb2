/**
 * `promtool check metrics` (Debian's prometheus package; deploy/test-all.sh
 * installs it) on a Prometheus text exposition: the linter a scrape must
 * satisfy (counters end in `_total` and nothing else does, HELP present,
 * valid names, no duplicate series). Tests pipe a real `GET /metrics` through it.
 */
import { spawn } from 'node:child_process';

export interface PromtoolVerdict {
  /** promtool's exit code: 0 clean, non-zero when it complained or could not parse. */
  code: number;
  /** Everything it printed, one complaint a line; empty when clean. */
  output: string;
}

export function promtoolCheckMetrics(exposition: string): Promise<PromtoolVerdict> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('promtool not found: apt-get install prometheus (deploy/test-all.sh does)', { cause: error })
          : error,
      ),
    );
    child.on('close', (code) => resolve({ code: code ?? -1, output: output.trim() }));
    child.stdin.end(exposition);
  });
}
