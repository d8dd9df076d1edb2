import { TOPICS } from '@herald/core/ports';
import { makeTempDir, ProcessCluster, waitFor, type TempDir } from '@herald/testing';
import { uniqueNames, tearDown } from './scenario';

/**
 * A production process warms what its first tasks would wait for (MySQL
 * connections, Kafka topics and their metadata) after it starts, and its
 * management status says ready only once that is done (docs/operations.md,
 * "Readiness"). A failing step (not ready, its error shown, retried) is
 * covered by src/readiness.test.ts: the mock Kafka creates any topic asked
 * for, and a Kafka unreachable at start fails the start as before.
 */
jest.setTimeout(120_000);

describe('production readiness', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('ready');

  beforeAll(async () => {
    dir = await makeTempDir('herald-ready-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 1, controllers: 1 },
      names,
    );
    await cluster.configure();
    await cluster.keysAndSchema();
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  /** The cluster's topics that exist on the broker. */
  async function topicsOnBroker(prefix: string): Promise<string[]> {
    const admin = cluster.kafka().admin();
    await admin.connect();
    try {
      return (await admin.listTopics()).filter((t) => t.startsWith(prefix)).sort();
    } finally {
      await admin.disconnect();
    }
  }

  it('says ready once its warm-up has made every topic it will publish to', async () => {
    // A controller with an empty outbox publishes nothing: only the warm-up makes these topics.
    expect(await topicsOnBroker(names.topicPrefix)).toEqual([]);
    await cluster.start('controller', 'controller-1');
    await waitFor(async () => (await cluster.status('controller-1')).ready === true, {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: 'controller-1 ready',
    });
    expect(await cluster.status('controller-1')).toMatchObject({ ready: true, waitingFor: [] });
    expect(await topicsOnBroker(names.topicPrefix)).toEqual(
      Object.values(TOPICS)
        .map((t) => names.topicPrefix + t)
        .sort(),
    );
  });
});
