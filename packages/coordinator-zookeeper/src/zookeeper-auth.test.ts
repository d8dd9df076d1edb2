import { createHash, randomUUID } from 'node:crypto';
import { ConfigError } from '@herald/core';
import type { UnitCheckpoint } from '@herald/core/ports';
import { coordinatorConformance, waitFor } from '@herald/testing';
import { createClient, Exception, type Client } from 'node-zookeeper-client';
import { ZooKeeperCoordinator } from './zookeeper-coordinator';

/**
 * zookeeper.auth against the real ZooKeeper the tests start (HERALD_TEST_ZK):
 * Herald's znodes are creator-only (plus read for a monitoring identity); a
 * session without the credentials gets NoAuth; the coordinator conformance
 * suite passes with auth on.
 */
const SHARED_ZK = process.env.HERALD_TEST_ZK;
if (SHARED_ZK === undefined)
  throw new Error('HERALD_TEST_ZK is not set: run through jest, whose global setup starts ZooKeeper');

const CREDENTIALS = 'herald:zk-pa55-never-shown';
const MONITOR = 'monitor:monitor-pa55';
const digestOf = (userPassword: string) =>
  `${userPassword.slice(0, userPassword.indexOf(':'))}:${createHash('sha1').update(userPassword).digest('base64')}`;
const AUTH = { credentials: CREDENTIALS, monitorDigest: digestOf(MONITOR) };
/** Under a parent of its own: the parent itself is created creator-only, which other test files' roots must not sit under. */
const uniqueRoot = (): string => `/herald-auth-test/${randomUUID()}`;

/** A plain client session, with `credentials` added when given. */
async function session(credentials?: string): Promise<Client> {
  const client = createClient(SHARED_ZK!, { sessionTimeout: 5000 });
  if (credentials !== undefined) client.addAuthInfo('digest', Buffer.from(credentials));
  client.connect();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cannot reach ZooKeeper at ${SHARED_ZK}`)), 10_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client;
}

/** The code a callback call failed with, or 0 for success. */
function codeOf(invoke: (done: (error: { getCode(): number } | null) => void) => void): Promise<number> {
  return new Promise((resolve) => invoke((error) => resolve(error === null ? Exception.OK : error.getCode())));
}

async function children(client: Client, path: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    client.getChildren(path, (error, names) => (error === null ? resolve(names) : reject(error))),
  );
}

/** Every node under `root` (inclusive), depth first. */
async function tree(client: Client, root: string): Promise<string[]> {
  const out = [root];
  for (const child of await children(client, root)) out.push(...(await tree(client, `${root}/${child}`)));
  return out;
}

async function removeTree(root: string): Promise<void> {
  const client = await session(CREDENTIALS);
  try {
    for (const path of (await tree(client, root).catch(() => [] as string[])).reverse())
      await codeOf((done) => client.remove(path, -1, done));
  } finally {
    client.close();
  }
}

coordinatorConformance('ZooKeeperCoordinator with zookeeper.auth', async () => {
  const root = uniqueRoot();
  return {
    connect: () =>
      ZooKeeperCoordinator.connect({
        connectionString: SHARED_ZK,
        root,
        sessionTimeoutMs: 4000,
        connectTimeoutMs: 5000,
        auth: AUTH,
      }),
    cleanup: () => removeTree(root),
  };
});

const checkpoint: UnitCheckpoint = {
  taskId: 7,
  unitNo: 0,
  epoch: 1,
  checkpoint: 10,
  delivered: 10,
  offline: 0,
  at: 1_700_000_000_000,
};

describe('ZooKeeperCoordinator with zookeeper.auth', () => {
  let root: string;
  let coordinator: ZooKeeperCoordinator | undefined;
  const clients: Client[] = [];
  const open = async (credentials?: string) => {
    const client = await session(credentials);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    root = uniqueRoot();
    coordinator = await ZooKeeperCoordinator.connect({
      connectionString: SHARED_ZK,
      root,
      sessionTimeoutMs: 4000,
      connectTimeoutMs: 5000,
      auth: AUTH,
    });
    await coordinator.putCheckpoint(checkpoint);
    const election = await coordinator.elect('scheduler', 'scheduler-1');
    await waitFor(() => election.isLeader(), { message: 'the only candidate leads' });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await coordinator?.close();
    await removeTree(root);
  });

  it('creates every znode creator-only, plus read for the monitoring identity', async () => {
    const client = await open(CREDENTIALS);
    const nodes = await tree(client, root);
    expect(nodes.some((p) => p.includes('/election/'))).toBe(true); // the ephemeral election node too
    expect(nodes.some((p) => p.includes('/checkpoints/'))).toBe(true);
    for (const path of [...nodes, '/herald-auth-test']) {
      const acls = await new Promise<{ permission: number; id: { scheme: string; id: string } }[]>((resolve, reject) =>
        client.getACL(path, (error, list) => (error === null ? resolve(list) : reject(error))),
      );
      expect(acls.map((a) => `${a.id.scheme}:${a.id.id}:${a.permission}`).sort()).toEqual(
        [`digest:${digestOf(CREDENTIALS)}:31`, `digest:${digestOf(MONITOR)}:1`].sort(),
      );
    }
  });

  it("refuses a session without the credentials (NoAuth): it can neither read nor change Herald's znodes", async () => {
    const stranger = await open();
    const nodes = await tree(await open(CREDENTIALS), root);
    const unitNode = nodes.find((p) => /\/checkpoints\/.+\/.+/.test(p))!;
    expect(await codeOf((done) => stranger.getData(root, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => stranger.getChildren(`${root}/checkpoints`, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => stranger.getData(unitNode, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => stranger.setData(unitNode, Buffer.from('forged'), -1, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => stranger.create(`${root}/election/forged`, null, 0, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => stranger.remove(unitNode, -1, done))).toBe(Exception.NO_AUTH);
    // Other credentials are another identity: no better.
    const wrong = await open('herald:wrong-password');
    expect(await codeOf((done) => wrong.getData(unitNode, done))).toBe(Exception.NO_AUTH);
  });

  it('lets a session with the credentials read and change them, and the monitoring identity only read', async () => {
    const herald = await open(CREDENTIALS);
    const unitNode = (await tree(herald, root)).find((p) => /\/checkpoints\/.+\/.+/.test(p))!;
    expect(await codeOf((done) => herald.getData(unitNode, done))).toBe(Exception.OK);
    expect(await codeOf((done) => herald.create(`${root}/scratch`, null, 0, done))).toBe(Exception.OK);
    const monitor = await open(MONITOR);
    expect(await codeOf((done) => monitor.getData(unitNode, done))).toBe(Exception.OK);
    expect(await codeOf((done) => monitor.getChildren(`${root}/election`, done))).toBe(Exception.OK);
    expect(await codeOf((done) => monitor.setData(unitNode, Buffer.from('x'), -1, done))).toBe(Exception.NO_AUTH);
    expect(await codeOf((done) => monitor.remove(`${root}/scratch`, -1, done))).toBe(Exception.NO_AUTH);
  });

  it('fails to start, naming zookeeper.auth, without the credentials or with others, and never shows the password', async () => {
    for (const auth of [undefined, { credentials: 'herald:wrong-password' }]) {
      const error = await ZooKeeperCoordinator.connect({
        connectionString: SHARED_ZK!,
        root,
        sessionTimeoutMs: 4000,
        connectTimeoutMs: 5000,
        auth,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe('zookeeper.auth');
      expect((error as ConfigError).message).toMatch(/NoAuth/);
      expect((error as ConfigError).message).not.toMatch(/wrong-password|pa55/);
    }
  });

  it('refuses malformed auth settings at start, naming them', async () => {
    const connect = (auth: unknown) =>
      ZooKeeperCoordinator.connect({ connectionString: SHARED_ZK!, root, auth: auth as never });
    await expect(connect({ credentials: 'no-colon-secret' })).rejects.toMatchObject({
      setting: 'zookeeper.auth.credentials',
    });
    await expect(connect({ credentials: CREDENTIALS, monitorDigest: 'monitor:plain' })).rejects.toMatchObject({
      setting: 'zookeeper.auth.monitorDigest',
    });
    await expect(connect({ credentials: 'no-colon-secret' })).rejects.not.toThrow(/no-colon-secret/);
  });
});
