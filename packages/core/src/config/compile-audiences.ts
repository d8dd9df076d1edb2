import { ConfigError } from '../errors';
import { DEFAULTS, type AudiencesConfig, type HeraldOptions } from './options';
import { section } from './section';
import { int } from './validate';

/**
 * Audience source settings (docs/configuration.md, `audiences`;
 * docs/audience-sources.md): how many audience jobs an interface process
 * runs at once, how long finished jobs stay readable, and the page size of
 * the sources' reads, whether production applies the herald.follows topic,
 * and from how many followers an account keeps a local copy.
 */
export function compileAudiences(options: HeraldOptions): AudiencesConfig {
  const audiences = section(options, 'audiences', [
    'maxRunningJobs',
    'jobRetentionMs',
    'pageSize',
    'followEvents',
    'followerCopyThreshold',
  ]);
  if (audiences.followEvents !== undefined && typeof audiences.followEvents !== 'boolean') {
    throw new ConfigError(
      'audiences.followEvents',
      `must be true or false (got ${JSON.stringify(audiences.followEvents)})`,
    );
  }
  return {
    maxRunningJobs: int('audiences.maxRunningJobs', audiences.maxRunningJobs, DEFAULTS.audiences.maxRunningJobs, 1, 64),
    jobRetentionMs: int(
      'audiences.jobRetentionMs',
      audiences.jobRetentionMs,
      DEFAULTS.audiences.jobRetentionMs,
      1000,
      7 * 86_400_000,
    ),
    pageSize: int('audiences.pageSize', audiences.pageSize, DEFAULTS.audiences.pageSize, 1, 1 << 20),
    followEvents: audiences.followEvents ?? false,
    followerCopyThreshold: int(
      'audiences.followerCopyThreshold',
      audiences.followerCopyThreshold,
      DEFAULTS.audiences.followerCopyThreshold,
      0,
      2 ** 32,
    ),
  };
}
