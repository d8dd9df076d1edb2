/**
 * Event-time order for presence events. Login and logout events for one user
 * can reach the presence topic out of order (two connection servers, one
 * slower): a logout that happened before a login but arrives after it must
 * not hide the login. So each user's newest applied event time is
 * remembered, and an older event is stale.
 *
 * Memory is fixed by `maxTracked`, whatever the event rate: users are
 * remembered in two generations, each a hash table in typed arrays holding up
 * to half of `maxTracked` users (no object per user, so no garbage to
 * collect, and no cost per event that grows with the table). An event is
 * written into the current generation; a user found only in the previous one
 * is carried forward. The current generation becomes the previous, and the
 * previous one is forgotten, when it is full or once it began more than
 * `windowMs` before the newest event seen (everything in the previous one is
 * then outside the window). So a user is remembered for the window after its
 * last event unless more than half of `maxTracked` other users had events
 * since: a login storm beyond that forgets the oldest generation early. A
 * user with no entry takes any event, so an event delayed beyond what is
 * remembered can still win: the window is the delay the agent tolerates, not
 * a guarantee beyond it.
 *
 * Equal times keep arrival order (the later event applies), and applying the
 * same event twice is harmless: at-least-once delivery needs no more.
 */
export interface PresenceOrderOptions {
  /** How late an event may arrive behind a newer event of the same user and still be recognised as stale. */
  windowMs: number;
  /** Users remembered at most: two generations of half as many each. */
  maxTracked: number;
}

export class PresenceOrder {
  private readonly perGeneration: number;
  private current: Generation;
  private previous: Generation;
  private newestAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: PresenceOrderOptions) {
    if (!(options.windowMs >= 0)) throw new RangeError(`windowMs must be >= 0 (got ${options.windowMs})`);
    if (!(options.maxTracked >= 2 && Number.isSafeInteger(options.maxTracked)))
      throw new RangeError(`maxTracked must be an integer >= 2 (got ${options.maxTracked})`);
    this.perGeneration = Math.floor(options.maxTracked / 2);
    this.current = new Generation(this.perGeneration);
    this.previous = new Generation(0);
  }

  /** True when the event at `at` (epoch ms) for `uin` is not older than the newest one applied; records it. */
  admit(uin: number, at: number): boolean {
    const last = this.current.get(uin) ?? this.previous.get(uin);
    if (last !== undefined && at < last) return false;
    if (at > this.newestAt) this.newestAt = at;
    if (this.current.isFull() || this.current.startedAt < this.newestAt - this.options.windowMs) this.turnOver();
    this.current.set(uin, at, this.newestAt);
    return true;
  }

  /** Entries held (a user carried forward counts in both generations until the older is forgotten). */
  get tracked(): number {
    return this.current.size + this.previous.size;
  }

  /** Forgets the previous generation; the current one becomes it, and a new, empty one takes events. */
  private turnOver(): void {
    this.previous = this.current;
    this.current = new Generation(this.perGeneration);
  }
}

/** Slots per user a generation's table allots: below 3/4 full, linear probing stays a few probes long. */
const SLOTS_PER_USER = 4 / 3;

/**
 * One generation: uin -> newest event time, open addressing with linear
 * probing over typed arrays (13 bytes a slot; the pages are the kernel's
 * zeroed ones until written). Entries are only added or updated, never
 * removed: a generation is forgotten whole.
 */
class Generation {
  private readonly uins: Uint32Array;
  private readonly ats: Float64Array;
  private readonly used: Uint8Array;
  private readonly shift: number;
  private readonly mask: number;
  size = 0;
  /** The newest event time seen when its first user was written; +Infinity while empty. */
  startedAt = Number.POSITIVE_INFINITY;

  constructor(private readonly capacity: number) {
    const bits = capacity === 0 ? 0 : Math.ceil(Math.log2(Math.ceil(capacity * SLOTS_PER_USER) + 1));
    const slots = 2 ** bits;
    this.uins = new Uint32Array(slots);
    this.ats = new Float64Array(slots);
    this.used = new Uint8Array(slots);
    this.shift = 32 - bits;
    this.mask = slots - 1;
  }

  isFull(): boolean {
    return this.size >= this.capacity;
  }

  get(uin: number): number | undefined {
    if (this.size === 0) return undefined;
    const slot = this.slotOf(uin);
    return this.used[slot] === 1 ? this.ats[slot] : undefined;
  }

  set(uin: number, at: number, newestAt: number): void {
    const slot = this.slotOf(uin);
    if (this.used[slot] === 0) {
      if (this.size === 0) this.startedAt = newestAt;
      this.used[slot] = 1;
      this.uins[slot] = uin;
      this.size++;
    }
    this.ats[slot] = at;
  }

  /** The uin's slot, or the empty slot where it would go (there always is one: the table is never full). */
  private slotOf(uin: number): number {
    // Fibonacci hashing: neighbouring uins land far apart, so runs of ids do not make runs of probes.
    let slot = this.shift === 32 ? 0 : Math.imul(uin, 0x9e3779b1) >>> this.shift;
    while (this.used[slot] === 1 && this.uins[slot] !== uin) slot = (slot + 1) & this.mask;
    return slot;
  }
}
