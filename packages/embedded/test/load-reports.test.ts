import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call } from './helpers';

interface HostRow {
  executorId: string;
  cpuCores: number;
  memAvailableBytes: number;
  senderSlots: number;
  senderSlotsFree: number;
  ageMs: number;
}

/** The embedded profile's in-process path of load-aware dispatch: each executor's report reaches the dispatcher, and the cluster view shows it. */
describe('embedded load reports', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-embedded-load-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS, tasks: TEST_TASK_OPTIONS,
      executor: { ids: ['executor-1', 'executor-2'] },
      load: { reportIntervalMs: 100, senderSlots: 3 },
    });
  });

  afterAll(async () => {
    await cluster.stop();
    await dir.remove();
  });

  it("shows each executor's fresh report of this host in GET /api/v1/cluster", async () => {
    let hosts: HostRow[] = [];
    await waitFor(
      async () => {
        hosts = (await call<{ hosts: HostRow[] }>(cluster, 'GET', '/api/v1/cluster')).body.hosts;
        return hosts.length === 2;
      },
      { timeoutMs: 10_000, intervalMs: 50, message: 'both executors reported' },
    );
    expect(hosts.map((h) => h.executorId)).toEqual(['executor-1', 'executor-2']);
    for (const host of hosts) {
      expect(host).toMatchObject({ senderSlots: 3, senderSlotsFree: 3 });
      expect(host.cpuCores).toBeGreaterThan(0);
      expect(host.memAvailableBytes).toBeGreaterThan(0);
      expect(host.ageMs).toBeLessThanOrEqual(3000); // load.maxReportAgeMs: what the planner would use
    }
  });
});
