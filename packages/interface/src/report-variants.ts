import { variantIndexOf, type RolloutVariant } from '@herald/core/rollout';
import type { Task } from '@herald/core/task';

/**
 * An A/B task's variants as its delivery report names them (docs/rollouts.md,
 * "Reports"). A kept row's variant is a hash of its uin and the task's seed
 * (variantIndexOf: the placement the executors and the per-recipient answer
 * use), so it changes from row to row where the rest of a tail is shared by
 * a batch record's rows. The writers therefore keep their tails per slot:
 * slot 0 names no variant (a task without variants, or a kept uin the
 * rollout holds out, which only a list filtered before its rollout changed
 * has), slot i + 1 names variants[i]. With at most 8 variants a tail is still
 * rendered once per record, online bit and variant, never per row.
 */
export class ReportVariants {
  /** The variant each slot names. */
  readonly names: readonly (string | undefined)[];

  private constructor(
    private readonly seed: number,
    private readonly variants: readonly RolloutVariant[],
    private readonly holdout: number,
  ) {
    this.names = [undefined, ...variants.map((v) => v.name)];
  }

  /** The task's variants, or undefined for a task without: its rows all take slot 0 and hash nothing. */
  static of(task: Pick<Task, 'rollout'>): ReportVariants | undefined {
    const rollout = task.rollout;
    if (rollout?.variants === undefined) return undefined;
    return new ReportVariants(rollout.seed, rollout.variants, rollout.holdout ?? 0);
  }

  /** The slot of a uin in the filtered list. */
  slotOf(uin: number): number {
    return variantIndexOf(uin, this.seed, this.variants, this.holdout) + 1;
  }
}

/** How many slots the writers keep tails for. */
export function slotCount(variants: ReportVariants | undefined): number {
  return variants === undefined ? 1 : variants.names.length;
}

/** The slot of a uin in the filtered list: 0 for every uin of a task without variants. */
export function slotOf(variants: ReportVariants | undefined, uin: number): number {
  return variants === undefined ? 0 : variants.slotOf(uin);
}

/**
 * The row (or tail) with the variant of its slot added last, as the
 * per-recipient answer adds it after any local-time group; slot 0 adds none.
 */
export function withVariant<T extends object>(
  row: T,
  variants: ReportVariants | undefined,
  slot: number,
): T & { variant?: string } {
  const name = variants?.names[slot];
  return name === undefined ? row : { ...row, variant: name };
}

/**
 * A batch record's tails: those of its online and of its offline rows, one
 * of each per slot, each rendered by the first row that needs it.
 */
export class RecordTails {
  record: object | undefined = undefined;
  // Filled with undefined from the start (not `new Array(n)`, holey): a tail is looked up per row.
  readonly online: (Buffer | undefined)[];
  readonly offline: (Buffer | undefined)[];

  constructor(slots: number) {
    this.online = Array.from({ length: slots }, () => undefined);
    this.offline = Array.from({ length: slots }, () => undefined);
  }

  /** The tails of `record`, those of the record held before forgotten. */
  hold(record: object): this {
    if (this.record !== record) {
      this.record = record;
      this.online.fill(undefined);
      this.offline.fill(undefined);
    }
    return this;
  }
}

/** One map of tails per slot, for tails cached by a key of their facts. */
export function tailMaps(variants: ReportVariants | undefined): Map<string, Buffer>[] {
  return Array.from({ length: slotCount(variants) }, () => new Map<string, Buffer>());
}
