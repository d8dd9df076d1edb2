import type { Logger, RecipientRejection } from '@herald/core/ports';
import type { ChannelMetrics } from './channel-metrics';

/** Distinct dead-letter reasons counted per channel; a receiver's further ones count as `other` (they label a metric). */
const MAX_REASONS = 64;
/** Recipients named in one dead-letter log line at most (the count is always whole). */
const LOGGED_UINS = 100;

/**
 * One channel's record of recipients never to be sent again (docs/delivery.md,
 * "Dead letters"): counted by reason in herald_channel_dead_letters_total and
 * logged, a line per batch and reason.
 */
export class DeadLetterLog {
  private readonly reasons = new Set<string>();

  constructor(
    private readonly channel: string,
    private readonly metrics: ChannelMetrics,
    private readonly logger: Logger,
  ) {}

  record(taskId: number, rejected: readonly RecipientRejection[], detail?: string): void {
    if (rejected.length === 0) return;
    const byReason = new Map<string, number[]>();
    for (const { uin, reason } of rejected) {
      const label = this.labelOf(reason);
      const uins = byReason.get(label);
      if (uins === undefined) byReason.set(label, [uin]);
      else uins.push(uin);
    }
    for (const [reason, uins] of byReason) {
      this.metrics.deadLetters.inc({ channel: this.channel, reason }, uins.length);
      this.logger.info('dead letters', {
        channel: this.channel,
        taskId,
        reason,
        count: uins.length,
        uins: uins.slice(0, LOGGED_UINS),
        ...(detail === undefined ? {} : { detail }),
      });
    }
  }

  private labelOf(reason: string): string {
    if (this.reasons.has(reason)) return reason;
    if (this.reasons.size >= MAX_REASONS) return 'other';
    this.reasons.add(reason);
    return reason;
  }
}
