import { ConfigError } from '@herald/core';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { mysqlTlsOptions } from '@herald/production';
import { migrate } from '@herald/store-mysql';

/** `herald migrate --config <file>`: applies the MySQL schema's pending migrations, under a database lock. */
export async function runMigrate(options: HeraldOptions): Promise<void> {
  const config = compileConfig(options);
  if (config.production === null)
    throw new ConfigError('profile', 'herald migrate needs the production profile (its mysql settings)');
  const { mysql } = config.production;
  const tls = mysqlTlsOptions(mysql);
  const { applied, database } = await migrate(mysql.url, {
    database: mysql.database,
    ...(tls === undefined ? {} : { tls }),
  });
  process.stdout.write(
    applied.length === 0
      ? `herald: schema of ${database} is up to date\n`
      : `herald: applied to ${database}: ${applied.join(', ')}\n`,
  );
}
