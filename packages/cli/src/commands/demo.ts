import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE } from '@herald/core';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { removedTotal, type ListMeta, type Task } from '@herald/core/task';
import { subtractSorted } from '@herald/core/uins';
import { syntheticAudience, writeRecipientListFile } from '@herald/audience';
import { startEmbeddedCluster } from '@herald/embedded';
import { newTokenText } from '@herald/interface';
import { api, uploadFile, type ApiTarget } from '../http-client';
import { demoAudiences, seedDemoAudiences } from './demo-audiences';
import { StageProgress } from '../progress';

export interface DemoOptions {
  recipients: number;
  online: number;
  loginShare: number;
  dataDir?: string;
  keep: boolean;
  seed: number;
  base: HeraldOptions;
  /** After the broadcast, keep the cluster (API and console) up until SIGINT/SIGTERM. */
  serve?: boolean;
}

const say = (line = '') => process.stdout.write(line + '\n');
const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The demo broadcast: a synthetic audience goes through the real tiers of an
 * embedded cluster, over the real HTTP API, and the summary reconciles every
 * recipient: total = delivered + queued offline + filtered by reason. Then a
 * share of the offline users log in and get their offline deliveries.
 */
export async function runDemo(options: DemoOptions): Promise<boolean> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'herald-demo-')));
  // A --data-dir that does not exist yet is made, as `herald dev` makes it (the list files go there first).
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const config = compileConfig({
    ...options.base,
    dataDir,
    http: { ...options.base.http, port: options.base.http?.port ?? 0 },
  });
  say(
    `Herald demo: ${fmt(options.recipients)} recipients, ${(options.online * 100).toFixed(0)}% online, data in ${dataDir}`,
  );

  const audience = syntheticAudience({
    recipients: options.recipients,
    onlineFraction: options.online,
    uinLimit: config.uinLimit,
    seed: options.seed,
  });
  const listFile = join(dataDir, 'demo-audience.hrl');
  const blacklistFile = join(dataDir, 'demo-blacklist.hrl');
  await writeRecipientListFile(listFile, audience.list, 0);
  await writeRecipientListFile(blacklistFile, audience.blacklist, 0);

  // The demo calls the API as an admin of its own: a fresh token, stored hashed at start, shown once.
  const admin = newTokenText();
  const cluster = await startEmbeddedCluster({
    ...options.base,
    dataDir,
    http: { ...options.base.http, port: options.base.http?.port ?? 0 },
    auth: { ...options.base.auth, bootstrapAdminToken: admin.token },
  });
  const target: ApiTarget = { url: cluster.url, token: admin.token };
  say(`API ${cluster.url}, admin token ${admin.token}`);
  say(
    `console ${cluster.url}/console/ (sign in with the admin token${options.serve ? '' : '; add --serve to keep it up after the broadcast'})`,
  );
  try {
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    await uploadFile(target, 'PUT', '/api/v1/blacklists/global', blacklistFile);
    // The console's other two audience sources build from these (docs/operator-guide.md, "Audience").
    const seeded = demoAudiences(audience.distinct, options.seed, Date.now());
    await seedDemoAudiences(target, 'demo', seeded);
    say(
      `seeded ${fmt(seeded.followers.length)} followers of account demo and the attributes of ${fmt(seeded.users.length)} users`,
    );
    const upload = new StageProgress('upload');
    const list = await uploadFile<ListMeta>(target, 'POST', '/api/v1/lists?accountId=demo', listFile, (sent, total) =>
      upload.update(sent, total, `${fmt(sent)} B`),
    );
    upload.finish(`list ${list.id}: ${fmt(list.count)} recipients`);

    const started = Date.now();
    // The scripted broadcast starts now: an explicit sendAt skips the undo window (tasks.undoGraceMs) that a
    // console user's immediate task still gets, and confirm repeats the count a list over confirmAbove needs.
    const created = await api<Task>(target, 'POST', '/api/v1/tasks', {
      accountId: 'demo',
      listId: list.id,
      content: { title: 'Hello', body: 'Herald demo broadcast' },
      sendAt: new Date().toISOString(),
      confirm: list.count,
    });
    const task = await watch(target, created.id);
    const seconds = (Date.now() - started) / 1000;
    const ok = summarise(task, seconds, audience);
    if (options.loginShare > 0) await loginShare(cluster, task, audience, options.loginShare);
    if (options.serve) await serveUntilStopped(cluster.url);
    return ok;
  } finally {
    await cluster.stop();
    if (!options.keep && options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Keeps the demo cluster up for the console until Ctrl-C (SIGINT) or SIGTERM. */
async function serveUntilStopped(url: string): Promise<void> {
  say('');
  say(`Serving: console ${url}/console/, API ${url}/api/v1 (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function watch(target: ApiTarget, taskId: number): Promise<Task> {
  const preprocessing = new StageProgress('pre-processing');
  const sending = new StageProgress('delivery');
  let preDone = false;
  for (;;) {
    const task = await api<Task>(target, 'GET', `/api/v1/tasks/${taskId}`);
    const sent = task.report.delivered + task.report.offline;
    if (!preDone && ['SENDING', 'COMPLETED'].includes(task.state)) {
      preDone = true;
      preprocessing.finish(`${fmt(task.report.kept)} kept of ${fmt(task.report.total)}, ${task.report.units} unit(s)`);
    } else if (!preDone) preprocessing.update(0, 1, task.state);
    if (preDone)
      sending.update(
        sent,
        task.report.kept,
        `${fmt(task.report.delivered)} online, ${fmt(task.report.offline)} offline`,
      );
    if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) {
      if (preDone) sending.finish(`${task.state}`);
      return task;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function summarise(task: Task, seconds: number, audience: { list: Uint32Array }): boolean {
  const r = task.report;
  const removed = removedTotal(r);
  const reconciled = r.total === r.delivered + r.offline + removed && r.total === audience.list.length;
  say('');
  say(
    `Task ${task.id}: ${task.state} in ${seconds.toFixed(2)} s (${fmt(Math.round(r.total / seconds))} recipients/s end to end)`,
  );
  say(`  total in list        ${fmt(r.total).padStart(14)}`);
  say(`  delivered (online)   ${fmt(r.delivered).padStart(14)}`);
  say(`  queued offline       ${fmt(r.offline).padStart(14)}`);
  for (const [reason, count] of Object.entries(r.removed))
    say(`  filtered: ${reason.padEnd(11)}${fmt(count ?? 0).padStart(14)}`);
  say(
    `  ${reconciled ? 'reconciled: total = delivered + offline + filtered' : 'NOT RECONCILED'}  (${fmt(r.total)} = ${fmt(r.delivered)} + ${fmt(r.offline)} + ${fmt(removed)})`,
  );
  if (task.error) say(`  error: ${task.error.code}: ${task.error.message}`);
  return reconciled && task.state === 'COMPLETED';
}

async function loginShare(
  cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>,
  task: Task,
  audience: { distinct: Uint32Array; online: Uint32Array; blacklist: Uint32Array },
  share: number,
): Promise<void> {
  // Offline recipients: distinct, not blacklisted, not online.
  const offline = subtractSorted(subtractSorted(audience.distinct.slice(), audience.blacklist), audience.online);
  const count = Math.min(offline.length, Math.max(1, Math.floor(offline.length * share)));
  const step = offline.length / count;
  const users = Uint32Array.from({ length: count }, (_, i) => offline[Math.floor(i * step)]!);
  const progress = new StageProgress('login delivery');
  let delivered = 0;
  for (let i = 0; i < users.length; i += 1000) {
    const result = await cluster.login(users.subarray(i, i + 1000));
    delivered += result.delivered;
    progress.update(Math.min(users.length, i + 1000), users.length, `${fmt(delivered)} delivered`);
  }
  progress.finish(`${fmt(count)} offline users logged in; ${fmt(delivered)} offline deliveries of task ${task.id}`);
}
