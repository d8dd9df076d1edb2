/**
 * Progress bars for long work, one line per stage. On a terminal the line is
 * redrawn in place; elsewhere (CI logs) a line is printed at each 10% step so
 * logs stay short but still show that work moves.
 */
export class StageProgress {
  private lastDecile = -1;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stream.isTTY);
  }

  update(done: number, total: number, suffix = ''): void {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const line = `${this.label.padEnd(16)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}% ${suffix}`;
    if (this.tty) {
      this.stream.write(`\r${line}\x1b[K`);
      return;
    }
    const decile = Math.floor(fraction * 10);
    if (decile !== this.lastDecile) {
      this.lastDecile = decile;
      this.stream.write(line + '\n');
    }
  }

  finish(message: string): void {
    if (this.tty) this.stream.write(`\r${this.label.padEnd(16)} ${message}\x1b[K\n`);
    else this.stream.write(`${this.label.padEnd(16)} ${message}\n`);
  }
}
