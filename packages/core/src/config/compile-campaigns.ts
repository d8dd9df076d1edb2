import { DEFAULTS, type CampaignsConfig, type HeraldOptions } from './options';
import { section } from './section';
import { int } from './validate';

/**
 * Cron campaign settings (docs/configuration.md, `campaigns`; docs/campaigns.md):
 * the misfire grace, how often the controller re-reads the campaigns, and
 * the shortest period a campaign's cron may have.
 */
export function compileCampaigns(options: HeraldOptions): CampaignsConfig {
  const campaigns = section(options, 'campaigns', ['misfireGraceMs', 'scanIntervalMs', 'minPeriodMs']);
  return {
    misfireGraceMs: int(
      'campaigns.misfireGraceMs',
      campaigns.misfireGraceMs,
      DEFAULTS.campaigns.misfireGraceMs,
      1000,
      86_400_000,
    ),
    scanIntervalMs: int(
      'campaigns.scanIntervalMs',
      campaigns.scanIntervalMs,
      DEFAULTS.campaigns.scanIntervalMs,
      100,
      3_600_000,
    ),
    // At least a second (cron's finest step is one); at most a day, so a daily campaign is always allowed.
    minPeriodMs: int('campaigns.minPeriodMs', campaigns.minPeriodMs, DEFAULTS.campaigns.minPeriodMs, 1000, 86_400_000),
  };
}
