import { DEFAULTS, type CampaignsConfig, type HeraldOptions } from './options';
import { section } from './section';
import { int } from './validate';

/**
 * Cron campaign settings (docs/configuration.md, `campaigns`; docs/campaigns.md):
 * the misfire grace and how often the controller re-reads the campaigns.
 */
export function compileCampaigns(options: HeraldOptions): CampaignsConfig {
  const campaigns = section(options, 'campaigns', ['misfireGraceMs', 'scanIntervalMs']);
  return {
    misfireGraceMs: int('campaigns.misfireGraceMs', campaigns.misfireGraceMs, DEFAULTS.campaigns.misfireGraceMs, 1000, 86_400_000),
    scanIntervalMs: int('campaigns.scanIntervalMs', campaigns.scanIntervalMs, DEFAULTS.campaigns.scanIntervalMs, 100, 3_600_000),
  };
}
