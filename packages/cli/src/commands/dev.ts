import { startEmbeddedCluster } from '@herald/embedded';
import { newTokenText } from '@herald/interface';
import { createJsonLogger } from '@herald/metrics';
import type { AccessStore } from '@herald/core/ports';
import type { HeraldOptions } from '@herald/core/config';
import { firstStopSignal } from '../stop-signals';

/**
 * The first start of a data directory makes an admin token and prints it
 * once, so the API and the console can be used at all; later starts find an
 * admin and print nothing. Not when auth.bootstrapAdminToken (or
 * HERALD_ADMIN_TOKEN) names the admin: then that is the way in.
 */
async function firstAdminToken(access: AccessStore): Promise<string | undefined> {
  if ((await access.listTokens()).some((token) => token.role === 'admin' && token.revokedAt === null)) return undefined;
  const text = newTokenText();
  await access.createToken({
    id: text.tokenId,
    name: 'dev admin',
    role: 'admin',
    accounts: [],
    hash: text.hash,
    createdAt: Date.now(),
  });
  return text.token;
}

/** Starts the embedded cluster and serves until SIGINT/SIGTERM; a second one while it stops exits at once. */
export async function runDev(options: HeraldOptions): Promise<void> {
  const cluster = await startEmbeddedCluster(options, { logger: createJsonLogger({ level: 'info' }) });
  // Listen for the stop signals before anything else is awaited: one may come as soon as the address is out.
  // A second signal while it stops exits at once (stop-signals.ts).
  const stopped = firstStopSignal();
  const token = cluster.config.auth.bootstrapAdminToken === null ? await firstAdminToken(cluster.access) : undefined;
  process.stdout.write(`Herald (embedded) listening on ${cluster.url}; data in ${cluster.config.dataDir}\n`);
  process.stdout.write(`console ${cluster.url}/console/ (sign in with an API token)\n`);
  if (token !== undefined)
    process.stdout.write(`admin token (shown once, keep it; send it as Authorization: Bearer <token>): ${token}\n`);
  await stopped;
  process.stdout.write('stopping...\n');
  await cluster.stop();
}
