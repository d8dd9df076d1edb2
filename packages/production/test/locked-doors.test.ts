import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TOPICS } from '@herald/core/ports';
import { signPresenceEvent } from '@herald/presence';
import { SharedOnlineBitmap } from '@herald/shared-bitmap';
import { makeTempDir, ProcessCluster, type TempDir, waitFor } from '@herald/testing';
import { createClient, Exception } from 'node-zookeeper-client';
import { tearDown, uniqueNames } from './scenario';

/**
 * A production cluster with ZooKeeper digest auth and signed presence events
 * (docs/security-connections.md), every tier its own process: it starts and
 * elects with creator-only znodes a stranger cannot read, and its presence
 * agent sets online exactly the users whose logins were signed, counting the
 * rest. (Kafka SASL/TLS and MySQL TLS cannot be enforced by the test servers;
 * their own tests cover them.)
 */
jest.setTimeout(180_000);

describe('production profile with zookeeper.auth and presence.hmacKeyFile', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('locked');
  const key = randomBytes(32).toString('hex'); // the file's text is the key, as `openssl rand -hex 32` writes it
  const metricsOf = async (id: string) =>
    (await fetch(`http://${cluster.managementAddress(id)}/metrics`, { headers: cluster.managementHeaders() })).text();

  beforeAll(async () => {
    dir = await makeTempDir('herald-locked-');
    const keyFile = join(dir.path, 'presence.key');
    const credentialsFile = join(dir.path, 'zk.auth');
    await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
    await writeFile(credentialsFile, `herald:${randomBytes(12).toString('hex')}\n`, { mode: 0o600 });
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 1, controllers: 1 },
      names,
    );
    await cluster.configure({
      zookeeper: {
        connectionString: process.env.HERALD_TEST_ZK!,
        root: names.zkRoot,
        sessionTimeoutMs: 4000,
        auth: { credentialsFile },
      },
      presence: { hmacKeyFile: keyFile },
    });
    await cluster.keysAndSchema();
    await cluster.startAll();
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  it('keeps its znodes from a session without the credentials', async () => {
    const stranger = createClient(process.env.HERALD_TEST_ZK!, { sessionTimeout: 5000 });
    stranger.connect();
    await new Promise<void>((resolve) => stranger.once('connected', resolve));
    try {
      const code = (path: string) =>
        new Promise<number>((resolve) =>
          stranger.getChildren(path, (error) => resolve(error === null ? Exception.OK : error.getCode())),
        );
      // The controllers' election runs under <root>/election: it exists, so the cluster works with auth on.
      await waitFor(async () => (await code(`${names.zkRoot}/election`)) !== Exception.NO_NODE, {
        message: 'the election tree exists',
      });
      expect(await code(names.zkRoot)).toBe(Exception.NO_AUTH);
      expect(await code(`${names.zkRoot}/election`)).toBe(Exception.NO_AUTH);
      expect(await code(`${names.zkRoot}/checkpoints`)).toBe(Exception.NO_AUTH);
    } finally {
      stranger.close();
    }
  });

  it('sets online only the users whose logins were signed, and counts the rest', async () => {
    const producer = cluster.kafka().producer();
    await producer.connect();
    const at = Date.now();
    try {
      await producer.send({
        topic: names.topicPrefix + TOPICS.presence,
        messages: [
          { key: '101', value: JSON.stringify(signPresenceEvent(Buffer.from(key), { uin: 101, online: true, at })) },
          { key: '102', value: JSON.stringify({ uin: 102, online: true, at }) }, // what `kcat -P` could write
          { key: '103', value: JSON.stringify(signPresenceEvent(randomBytes(32), { uin: 103, online: true, at })) },
          { key: '104', value: JSON.stringify(signPresenceEvent(Buffer.from(key), { uin: 104, online: true, at })) },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    await cluster.waitForPresence();
    const bitmap = SharedOnlineBitmap.openReader(cluster.bitmapFile('presence-1'), 2 ** 24);
    try {
      expect([101, 102, 103, 104].map((uin) => bitmap.isOnline(uin))).toEqual([true, false, false, true]);
    } finally {
      bitmap.close();
    }
    const metrics = await metricsOf('presence-1');
    expect(metrics).toMatch(/herald_presence_events_total\{[^}]*result="unsigned"[^}]*\} 1\b/);
    expect(metrics).toMatch(/herald_presence_events_total\{[^}]*result="bad_signature"[^}]*\} 1\b/);
    expect(metrics).toMatch(/herald_presence_events_total\{[^}]*result="applied"[^}]*\} 2\b/);
  });
});
