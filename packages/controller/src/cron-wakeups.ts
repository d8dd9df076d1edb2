import { createTask, type ScheduledTask } from 'node-cron';
import type { Campaign } from '@herald/core/campaign';
import type { Logger } from '@herald/core/ports';

/**
 * Wakes the leading controller at campaign fire times. The controller asks
 * for a campaign pass when woken; the pass itself decides what to fire from
 * the stored schedule and the clock (core planFirings), so a wake-up is only
 * a hint: a missed or extra one changes nothing but latency.
 */
export interface CampaignWakeups {
  /** Follows the enabled campaigns: starts, replaces or stops one wake-up per campaign. */
  sync(campaigns: readonly Campaign[]): void;
  /** Stops every wake-up. */
  clear(): void;
}

/**
 * Wake-ups by node-cron: one node-cron task per enabled campaign, on the
 * campaign's expression in its time zone, whose only job is to call `wake`.
 * Core and node-cron agree on every fire time except at DST changes (node-cron
 * skips a time in a gap and picks a zone-dependent occurrence in an overlap;
 * packages/controller/src/cron-agreement.test.ts); the controller's own
 * next-due time from core covers those, and its periodic scan anything else.
 */
export function nodeCronWakeups(wake: () => void, logger: Logger): CampaignWakeups {
  const tasks = new Map<number, { spec: string; task: ScheduledTask }>();
  // node-cron logs through its own logger; route what it says into ours, quietly.
  const cronLogger = {
    info: (message: string) => logger.debug(`node-cron: ${message}`),
    warn: (message: string) => logger.debug(`node-cron: ${message}`),
    error: (message: string | Error) => logger.warn(`node-cron: ${String(message)}`),
    debug: () => undefined,
  };
  const stop = (id: number) => {
    const entry = tasks.get(id);
    if (entry === undefined) return;
    tasks.delete(id);
    void Promise.resolve(entry.task.destroy()).catch(() => undefined);
  };
  return {
    sync(campaigns) {
      const wanted = new Set<number>();
      for (const campaign of campaigns) {
        wanted.add(campaign.id);
        const spec = `${campaign.cron}\u0000${campaign.timeZone}`;
        if (tasks.get(campaign.id)?.spec === spec) continue;
        stop(campaign.id);
        try {
          const task = createTask(campaign.cron, () => wake(), {
            name: `campaign-${campaign.id}`,
            timezone: campaign.timeZone,
            noOverlap: true,
            suppressMissedWarning: true,
            logger: cronLogger,
            unref: true,
          });
          void Promise.resolve(task.start()).catch((error: unknown) =>
            logger.warn('node-cron wake-up did not start', { campaignId: campaign.id, error: String(error) }),
          );
          tasks.set(campaign.id, { spec, task });
        } catch (error) {
          // An expression core accepts and node-cron refuses: the controller's own due times still fire it.
          logger.warn('node-cron refused a campaign expression; relying on the controller scan', {
            campaignId: campaign.id,
            error: String(error),
          });
        }
      }
      for (const id of [...tasks.keys()]) if (!wanted.has(id)) stop(id);
    },
    clear() {
      for (const id of [...tasks.keys()]) stop(id);
    },
  };
}
