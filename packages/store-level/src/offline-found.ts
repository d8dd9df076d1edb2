/*
 * What LevelOfflineStore.pending(uin) last found each user holds, so the
 * acknowledge(uin, tasks) of the login walk that follows need not read the
 * user's records again: that re-read was more than half of a walk's reads
 * (6 of 11 for a user with 3 entries), on a login storm's hot path.
 *
 * Only a removal can make such an answer stale: an append adds uins (a merge
 * writes the union of the records it overlaps), while a collapse takes uins
 * out of older tasks' records and a purge removes a task whole. So each
 * answer keeps the count of removals begun or ended before it was read, and
 * is used only while that count is unchanged and no removal is under way;
 * otherwise acknowledge reads the records again, and acknowledging an entry
 * the user does not have still writes nothing (it could hide a later append).
 */

/** Users whose answer is kept at most: a login queue walks one user at a time, so a few suffice. */
const DEFAULT_MAX_USERS = 1024;

interface Found {
  /** The removal count when the read began. */
  removals: number;
  tasks: ReadonlySet<number>;
}

export class FoundEntries {
  private readonly byUin = new Map<number, Found>();
  /** Removals begun plus removals ended: any removal since a read changes it. */
  private removals = 0;
  private underWay = 0;

  constructor(private readonly maxUsers = DEFAULT_MAX_USERS) {}

  /** The mark to take before reading a user's records, for `remember`. */
  mark(): number {
    return this.removals;
  }

  /** Keeps the tasks a read begun at `mark` found holding the user (the oldest user's answer goes beyond maxUsers). */
  remember(uin: number, mark: number, tasks: readonly number[]): void {
    this.byUin.delete(uin);
    if (mark !== this.removals) return;
    this.byUin.set(uin, { removals: mark, tasks: new Set(tasks) });
    if (this.byUin.size > this.maxUsers) this.byUin.delete(this.byUin.keys().next().value!);
  }

  /**
   * The tasks last found holding the user, still true (no removal since the
   * read began, none under way), and forgets them; undefined when the
   * records must be read again.
   */
  take(uin: number): ReadonlySet<number> | undefined {
    const found = this.byUin.get(uin);
    this.byUin.delete(uin);
    if (found === undefined || this.underWay > 0 || found.removals !== this.removals) return undefined;
    return found.tasks;
  }

  /** Runs a write that may take entries out (a purge, a collapse): answers read before it ends are not used after it began. */
  async removing<T>(write: () => Promise<T>): Promise<T> {
    this.removals++;
    this.underWay++;
    try {
      return await write();
    } finally {
      this.underWay--;
      this.removals++;
    }
  }
}
